-- crid_backfill found the advisory lock of its column (crid_backfill_lock_key)
-- held by another backend: ERROR 55006 naming that backend, and saying
-- whether it is the crid_backfill run crid_backfill_state records for the
-- column. Any session may take an advisory lock of any key, so the lock
-- alone does not prove a run: the backend named is the one to look at (and
-- to end, with pg_terminate_backend, if it is not a backfill).
CREATE FUNCTION crid_backfill_lock_refused(rel regclass, attnum smallint, lock_key bigint, label text,
                                           took_over boolean) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    holder integer;
    run_pid integer;
BEGIN
    SELECT l.pid INTO holder
      FROM pg_catalog.pg_locks l
     WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted AND l.objsubid OPERATOR(pg_catalog.=) 1
       AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d
                                              WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
       AND l.classid OPERATOR(pg_catalog.=) (lock_key OPERATOR(pg_catalog.>>) 32)::integer::oid
       AND l.objid OPERATOR(pg_catalog.=) (lock_key OPERATOR(pg_catalog.&) 4294967295)::oid
       AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
     LIMIT 1;
    SELECT s.pid INTO run_pid FROM @extschema@.crid_backfill_state s
     WHERE s.relid OPERATOR(pg_catalog.=) rel AND s.attnum OPERATOR(pg_catalog.=) crid_backfill_lock_refused.attnum
       AND s.finished_at IS NULL;
    IF holder IS NOT NULL AND holder IS NOT DISTINCT FROM run_pid THEN
        RAISE EXCEPTION 'crid_backfill: another crid_backfill % %',
            CASE WHEN took_over THEN 'took over' ELSE 'is filling' END, label
            USING ERRCODE = '55006', DETAIL = pg_catalog.format('It runs in backend %s.', holder);
    END IF;
    RAISE EXCEPTION 'crid_backfill: a backend that is not a crid_backfill run holds the lock of the backfill of %', label
        USING ERRCODE = '55006',
              DETAIL = pg_catalog.format('Backend %s holds the advisory lock %s, which any session may take.',
                                         coalesce(holder::text, '(gone since)'), lock_key),
              HINT = 'See what that backend runs in pg_stat_activity; end it (pg_terminate_backend) if it should not '
                     'hold the lock, then CALL again.';
END
$$;
