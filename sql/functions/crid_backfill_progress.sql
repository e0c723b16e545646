-- Progress of crid_backfill runs, for any session: running, interrupted or
-- done; the rows of tables the reader may read (the read policy of
-- crid_backfill_state). A run is running while the backend its row names
-- holds the run's advisory lock: another session holding a lock of that key
-- does not make an interrupted run look alive. Every operator and function
-- is named with its schema: the view is bound to them when it is made, by
-- the superuser who runs the script.
CREATE OR REPLACE VIEW crid_backfill_progress WITH (security_invoker = true) AS
SELECT s.relid::pg_catalog.regclass AS relation, s.column_name,
       CASE WHEN s.finished_at IS NOT NULL THEN 'done'
            WHEN EXISTS (SELECT FROM pg_catalog.pg_locks l
                         WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted
                           AND l.objsubid OPERATOR(pg_catalog.=) 1
                           AND l.pid OPERATOR(pg_catalog.=) s.pid
                           AND l.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d
                                             WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
                           AND l.classid OPERATOR(pg_catalog.=)
                               (@extschema@.crid_backfill_lock_key(s.relid, s.attnum)
                                OPERATOR(pg_catalog.>>) 32)::pg_catalog.int4::pg_catalog.oid
                           AND l.objid OPERATOR(pg_catalog.=) s.relid) THEN 'running'
            ELSE 'interrupted' END AS state,
       s.rows_done, GREATEST(s.rows_total OPERATOR(pg_catalog.-) s.rows_done, 0::pg_catalog.int8) AS rows_left,
       CASE WHEN s.rows_total OPERATOR(pg_catalog.<>) 0::pg_catalog.int8
            THEN pg_catalog.round(100.0 OPERATOR(pg_catalog.*) s.rows_done::pg_catalog.numeric
                                  OPERATOR(pg_catalog./) s.rows_total::pg_catalog.numeric, 1) END AS percent_done,
       s.rows_per_second,
       CASE WHEN s.finished_at IS NULL AND s.rows_per_second OPERATOR(pg_catalog.>) 0::pg_catalog.numeric
            THEN pg_catalog.justify_interval(pg_catalog.make_interval(secs => pg_catalog.round(
                     GREATEST(s.rows_total OPERATOR(pg_catalog.-) s.rows_done, 0::pg_catalog.int8)::pg_catalog.numeric
                     OPERATOR(pg_catalog./) s.rows_per_second)::pg_catalog.float8)) END AS time_left,
       s.batches, s.batch_size, s.expression, s.last_key AS resume_after, s.started_at, s.updated_at, s.finished_at,
       s.pid
FROM @extschema@.crid_backfill_state s
WHERE EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) s.relid);
