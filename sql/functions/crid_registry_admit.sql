-- Refuses (ERROR 55000) a reservation of second `ts` in `registry` that
-- crid_registry_check refuses: a second reservations lost with an earlier
-- table may hold, or one ahead of the registry's clock by more than the skew
-- the fleet allows. The one rule every writer passes: the trigger
-- crid_registry_guard for any insert or update of a registry row,
-- crid_allocate and crid_reserve before their reservation (also on a
-- registry table crid does not own), and crid_registry_reserve, which tests
-- the same condition and then reserves nothing. It runs with its caller's
-- rights (those SECURITY DEFINER functions); PUBLIC may not call it.
CREATE FUNCTION crid_registry_admit(registry regclass, ts bigint) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    IF crid_registry_admit.ts IS NULL THEN
        RAISE EXCEPTION 'crid_registry_admit: ts must not be NULL' USING ERRCODE = '22004';
    END IF;
    c := @extschema@.crid_registry_check(crid_registry_admit.registry);
    IF crid_registry_admit.ts > c.live_max_ts THEN
        RAISE EXCEPTION 'crid registry: second % is ahead of the registry''s clock', crid_registry_admit.ts
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('%s allows reservations up to second %s now (its clock plus %s ms).',
                                             crid_registry_admit.registry, c.live_max_ts, c.max_skew_ms),
                  HINT = 'Synchronise the clock of the node that reserves with the registry''s (NTP).';
    END IF;
    IF c.refused_from_ts IS NOT NULL AND crid_registry_admit.ts BETWEEN c.refused_from_ts AND c.floor_ts THEN
        RAISE EXCEPTION 'crid registry: second % may hold reservations the registry lost', crid_registry_admit.ts
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('%s refuses seconds %s to %s since %s (%s).', crid_registry_admit.registry,
                                             c.refused_from_ts, c.floor_ts, c.changed_at, c.reason),
                  HINT = pg_catalog.format('Reserve in a second after %s: live reservations do so once the '
                                           'registry''s clock reaches it.', c.floor_ts);
    END IF;
END
$$;
