-- One call for a scheduler (pg_cron): the partitions of every interval of
-- `step` from now's through now() + ahead's (crid_partition_create), the
-- rows of the default partition moved into theirs
-- (crid_partition_move_default), and with a retention, the partitions whose
-- ids all decode to times before now() - retention detached or dropped
-- (crid_partition_retire). Each step takes the parent's SHARE UPDATE
-- EXCLUSIVE lock, so runs that overlap wait for each other; a run with
-- nothing to do returns no row.
--
-- Each interval's partition, the move out of the default partition and the
-- retention run in a subtransaction of their own: one that fails (rows to
-- move in a table that foreign keys reference, a trigger that refuses them,
-- a lock_timeout) is a WARNING with its SQLSTATE and a row ('failed', what
-- failed, NULL), and leaves the others made, so that a scheduled run still
-- makes tomorrow's partition while today's waits for a hand. Wrong
-- arguments and a caller who is not the owner are ERRORs, before anything.
CREATE OR REPLACE FUNCTION crid_partition_maintain(parent regclass, step interval, ahead interval,
                                        retention interval DEFAULT NULL, detach boolean DEFAULT false,
                                        gene_bits integer DEFAULT 0, family text DEFAULT NULL,
                                        layout text DEFAULT NULL,
                                        OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unit text;
    k record;
    start_at timestamp;    -- an interval's start, UTC
    last_at timestamp;
    intervals integer := 0;
    what text;
    state text;
    message text;
BEGIN
    IF parent IS NULL OR step IS NULL OR ahead IS NULL OR detach IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_maintain: parent, step, ahead, detach and gene_bits must not be NULL'
            USING ERRCODE = '22004';
    END IF;
    IF ahead < interval '0' OR retention < interval '0' THEN
        RAISE EXCEPTION 'crid_partition_maintain: ahead and retention must not be negative' USING ERRCODE = '22023';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    IF (SELECT c.relowner FROM pg_class c WHERE c.oid = parent) <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'crid_partition_maintain: only the owner of % may make its partitions', parent
            USING ERRCODE = '42501',
                  HINT = 'Run it as the owner (SET ROLE, or a pg_cron job scheduled as that role).';
    END IF;
    IF gene_bits NOT BETWEEN 0 AND 16 THEN
        RAISE EXCEPTION 'crid_partition_maintain: gene_bits % is out of range 0 .. 16', gene_bits USING ERRCODE = '22003';
    END IF;
    -- Partitions made under another layout than the one read by now: an
    -- ERROR before anything is done, not a WARNING of a step.
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    PERFORM @extschema@.crid_partition_layout_guard(parent, 'crid_partition_maintain', k.key_family, k.key_layout);

    start_at := date_trunc(unit, now() AT TIME ZONE 'UTC');
    last_at := (now() + ahead) AT TIME ZONE 'UTC';
    WHILE start_at <= last_at LOOP
        intervals := intervals + 1;
        IF intervals > 10000 THEN
            RAISE EXCEPTION 'crid_partition_maintain: more than 10000 intervals of % in %', step, ahead
                USING ERRCODE = '54000', HINT = 'Choose a shorter ahead or a longer step.';
        END IF;
        what := 'the interval from ' || to_char(start_at, 'YYYY-MM-DD HH24:MI') || ' UTC';
        BEGIN
            RETURN QUERY SELECT * FROM @extschema@.crid_partition_create(parent, step, start_at AT TIME ZONE 'UTC',
                                                                         start_at AT TIME ZONE 'UTC', gene_bits,
                                                                         k.key_family, k.key_layout);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
            RAISE WARNING 'crid_partition_maintain: % of %: % (SQLSTATE %)', what, parent, message, state;
            action := 'failed'; partition_name := what; row_count := NULL;
            RETURN NEXT;
        END;
        start_at := start_at + step;
    END LOOP;

    what := 'the default partition';
    BEGIN
        RETURN QUERY SELECT * FROM @extschema@.crid_partition_move_default(parent, step, gene_bits, k.key_family,
                                                                           k.key_layout);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
        RAISE WARNING 'crid_partition_maintain: % of %: % (SQLSTATE %)', what, parent, message, state;
        action := 'failed'; partition_name := what; row_count := NULL;
        RETURN NEXT;
    END;

    IF retention IS NOT NULL THEN
        what := 'the retention';
        BEGIN
            RETURN QUERY SELECT * FROM @extschema@.crid_partition_retire(parent, now() - retention, detach,
                                                                         k.key_family, k.key_layout);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
            RAISE WARNING 'crid_partition_maintain: % of %: % (SQLSTATE %)', what, parent, message, state;
            action := 'failed'; partition_name := what; row_count := NULL;
            RETURN NEXT;
        END;
    END IF;
END
$$;
