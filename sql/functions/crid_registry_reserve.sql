-- The one reservation every writer of crid runs: `amount` sequences of
-- second `ts` in `registry`, one upsert of its row, returning the row's new
-- next_seq (the reservation is [next_seq - amount, next_seq)). NULL, with no
-- row touched, when the registry's continuity check (crid_registry_check)
-- refuses the second, when `epoch_ms` is given and is not the registry's
-- crid.epoch, or when the row's next_seq is past `room_limit` (the block
-- would not fit in the second). crid_allocate and crid_reserve call
-- crid_registry_admit first, which raises the refusal with its reason; the
-- block reserver reads the reason from crid_registry_check in the same
-- transaction. The Go library's plain upsert passes the same rule through
-- the trigger crid_registry_guard. It runs with its caller's rights: the
-- caller needs what the plain upsert needs on the registry table (SELECT,
-- INSERT, UPDATE) and EXECUTE on this function, crid_registry_check and
-- crid_registry_upsert (a fleet's role: docs/security.md).
CREATE OR REPLACE FUNCTION crid_registry_reserve(registry regclass, ts bigint, amount bigint,
                                      room_limit bigint DEFAULT NULL, epoch_ms bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    -- @schema_guard
    IF crid_registry_reserve.registry IS NULL OR crid_registry_reserve.ts IS NULL
       OR crid_registry_reserve.amount IS NULL THEN
        RAISE EXCEPTION 'crid_registry_reserve: registry, ts and amount must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF crid_registry_reserve.ts < 0 OR crid_registry_reserve.amount < 1 THEN
        RAISE EXCEPTION 'crid_registry_reserve: second % and amount % are not a reservation',
            crid_registry_reserve.ts, crid_registry_reserve.amount
            USING ERRCODE = '22023', HINT = 'A reservation is of one or more sequences of a second 0 or later.';
    END IF;
    c := @extschema@.crid_registry_check(crid_registry_reserve.registry);
    IF crid_registry_reserve.ts > c.live_max_ts
       OR (c.refused_from_ts IS NOT NULL AND crid_registry_reserve.ts BETWEEN c.refused_from_ts AND c.floor_ts)
       OR (crid_registry_reserve.epoch_ms IS NOT NULL
           AND (pg_catalog.date_part('epoch', c.epoch) * 1000)::bigint <> crid_registry_reserve.epoch_ms) THEN
        RETURN NULL;
    END IF;
    RETURN @extschema@.crid_registry_upsert(crid_registry_reserve.registry, crid_registry_reserve.ts,
                                            crid_registry_reserve.amount, crid_registry_reserve.room_limit);
END
$$;
