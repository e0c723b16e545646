-- The registry's state for `registry`, made current: when the table is not
-- the one the state was written for (or there is no state), the registry went
-- (or may have gone) backwards, and this records the new identity and
-- refuses every second a reservation lost with the old history could have
-- used. Every reservation checks it in its own statement (the trigger
-- crid_registry_guard, and the block reserver's upsert), so every node
-- notices before it reserves again.
--
-- Why the refused seconds suffice: every reservation of second s is made at
-- a registry time t with s <= (t + max_skew_ms) / 1000 (crid_registry_guard
-- refuses a second further ahead of the registry's clock), and the clocks of
-- a primary and its standbys agree within max_skew_ms. A lost reservation
-- was made before the change was noticed at time T, so it used a second at
-- most (T + 2 max_skew_ms) / 1000: the new floor. The refusal starts at the
-- newest second the table still holds, less the skew (the lost reservations
-- came after the ones it kept), or at 0 when it holds none. A table crid
-- has no state for (new, or met for the first time: an upgrade, a Go
-- services' table) starts with the seconds around now refused: it may be a
-- re-created one whose reservations of this moment are gone, and nothing
-- older can have been lost without crid seeing the table before. `changed`
-- says this call found the table changed from the one its state was
-- written for, and recorded it.
--
-- Privileges (docs/security.md): SECURITY DEFINER, since it writes
-- crid_registry_state, which no caller may write itself; EXECUTE only for
-- the roles that reserve (a fleet's role). It runs nothing its caller
-- controls: crid_registry_identity refuses, before anything reads it, a
-- relation that is not a registry table (crid's own, the one
-- crid.registry_table names, or one given crid_registry_guard by its
-- owner), so no state is kept for any other; the newest second is read by
-- crid_registry_newest as the table's owner; every name is qualified and
-- search_path holds only pg_catalog and pg_temp.
CREATE OR REPLACE FUNCTION crid_registry_check(registry regclass,
    OUT refused_from_ts bigint, OUT floor_ts bigint, OUT live_max_ts bigint, OUT now_unix_ms bigint,
    OUT epoch timestamptz, OUT max_skew_ms integer, OUT changed_at timestamptz, OUT identity text,
    OUT reason text, OUT changed boolean)
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    name text;
    current text;
    st @extschema@.crid_registry_state;
    now_ms bigint;
    newest bigint;
    start_epoch timestamptz;
    epoch_ms bigint;
    skew integer;
    new_from bigint;
BEGIN
    -- @schema_guard
    IF crid_registry_check.registry IS NULL THEN
        RAISE EXCEPTION 'crid_registry_check: registry must not be NULL' USING ERRCODE = '22004';
    END IF;
    -- First, before anything else reads the relation: ERROR 42809 unless it
    -- is a registry table.
    current := @extschema@.crid_registry_identity(crid_registry_check.registry);
    SELECT pg_catalog.format('%I.%I', n.nspname, c.relname) INTO name
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = crid_registry_check.registry;
    changed := false;
    FOR attempt IN 1 .. 3 LOOP
        SELECT * INTO st FROM @extschema@.crid_registry_state s WHERE s.registry = name;
        now_ms := pg_catalog.floor(extract(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint;
        EXIT WHEN FOUND AND st.identity = current;
        -- The identity changed, or the state is new: refuse what lost history
        -- may hold. A concurrent writer may do the same first; the loop then
        -- reads its row.
        skew := coalesce(st.max_skew_ms, 1000);
        start_epoch := coalesce(st.epoch, timestamptz '2026-01-01 00:00:00+00');
        epoch_ms := pg_catalog.floor(extract(epoch FROM start_epoch) * 1000)::bigint;
        newest := @extschema@.crid_registry_newest(crid_registry_check.registry);
        new_from := greatest(CASE WHEN st.registry IS NULL
                                  THEN (now_ms - epoch_ms - 2 * skew) / 1000 - 1
                                  ELSE coalesce(newest - (2 * skew + 999) / 1000, 0) END, 0);
        INSERT INTO @extschema@.crid_registry_state AS s
            (registry, identity, epoch, max_skew_ms, refused_from_ts, floor_ts, changed_at, reason)
        VALUES (name, current, start_epoch, skew, new_from, greatest((now_ms - epoch_ms + 2 * skew) / 1000, 0),
                pg_catalog.clock_timestamp(),
                CASE WHEN st.registry IS NULL AND newest IS NULL THEN 'a new registry table'
                     WHEN st.registry IS NULL THEN 'a registry table crid had no state for'
                     ELSE pg_catalog.format('the table was %s and is %s', st.identity, current) END)
        ON CONFLICT (registry) DO UPDATE
            SET identity = EXCLUDED.identity,
                refused_from_ts = least(coalesce(s.refused_from_ts, EXCLUDED.refused_from_ts),
                                        EXCLUDED.refused_from_ts),
                floor_ts = greatest(s.floor_ts, EXCLUDED.floor_ts),
                changed_at = EXCLUDED.changed_at,
                reason = EXCLUDED.reason
            WHERE s.identity IS DISTINCT FROM EXCLUDED.identity;
        -- (A state made for the first time is no change of one.)
        changed := changed OR st.registry IS NOT NULL;
    END LOOP;
    IF st.identity IS DISTINCT FROM current THEN
        RAISE EXCEPTION 'crid_registry_check: the state of % keeps changing', name USING ERRCODE = '40001';
    END IF;
    refused_from_ts := st.refused_from_ts;
    floor_ts := st.floor_ts;
    epoch := st.epoch;
    max_skew_ms := st.max_skew_ms;
    changed_at := st.changed_at;
    identity := st.identity;
    reason := st.reason;
    now_unix_ms := now_ms;
    live_max_ts := (now_ms - pg_catalog.floor(extract(epoch FROM st.epoch) * 1000)::bigint
                    + st.max_skew_ms) / 1000;
END
$$;
