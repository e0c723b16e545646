-- The reviewed lists of docs/security.md, checked against the catalog: every
-- function of crid that runs as its owner (SECURITY DEFINER), why, who may
-- call it and its search_path; and every function PUBLIC may not call, with
-- who may. A function that becomes SECURITY DEFINER, or changes its grants
-- or search_path, or a new function that is not PUBLIC's, shows here as a
-- row the lists lack, and fails the test until it is reviewed and added.
-- (Grants an administrator adds later are theirs: the owner's own
-- privilege and grants to PUBLIC are what the extension decides.)
CREATE TEMP VIEW crid_functions AS
SELECT p.oid, p.oid::regprocedure::text AS fn, p.prosecdef, p.proconfig,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_may
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid';

-- SECURITY DEFINER: the reviewed list, with each function's reason.
WITH reviewed(fn, reason) AS (VALUES
    ('crid_allocate(bigint,bigint)',
     'outside nodes reserve a block without rights on the registry table; arguments are numbers'),
    ('crid_reserve(timestamp with time zone,bigint)',
     'backfills reserve a block without rights on the registry table; arguments are a time and a number'),
    ('crid_evict(timestamp with time zone)',
     'records the eviction horizon in crid_evictions, which the caller may not write'),
    ('crid_registry_check(regclass)',
     'writes crid_registry_state, which no caller may write; reads only registry tables, as their owner'),
    ('crid_registry_guard()',
     'trigger of registry tables: their writers need no right on crid_registry_state'),
    ('crid_node_lease_guard()',
     'trigger of crid_node_leases: lease takers need no right on its continuity state and ledger'),
    ('crid_local_only()',
     'trigger of crid''s own tables: pg_replication_origin_session_is_setup() is for superusers'))
SELECT coalesce(f.fn, r.fn) AS function, r.reason IS NOT NULL AS reviewed, f.fn IS NOT NULL AS definer,
       f.public_may, f.proconfig
  FROM (SELECT * FROM crid_functions WHERE prosecdef) f
  FULL JOIN reviewed r ON r.fn = f.fn
 ORDER BY 1;

-- Functions PUBLIC may not call, and who may instead.
WITH reviewed(fn, who) AS (VALUES
    ('crid_accept_layout(boolean)', 'superusers'),
    ('crid_reset_high_water(timestamp with time zone,boolean)', 'superusers'),
    ('crid_allocate(bigint,bigint)', 'outside nodes an administrator grants it'),
    ('crid_reserve(timestamp with time zone,bigint)', 'backfilling roles an administrator grants it'),
    ('crid_evict(timestamp with time zone)', 'the role that prunes the registry'),
    ('crid_registry_check(regclass)', 'a fleet''s role'),
    ('crid_registry_reserve(regclass,bigint,bigint,bigint,bigint)', 'a fleet''s role'),
    ('crid_registry_upsert(regclass,bigint,bigint,bigint)', 'a fleet''s role'),
    ('crid_registry_guard()', 'owners of tables that are to be registry tables'),
    ('crid_registry_status()', 'pg_monitor'),
    ('crid_registry_clock()', 'pg_monitor'),
    ('crid_registry_identity(regclass)', 'crid'),
    ('crid_registry_newest(regclass)', 'crid'),
    ('crid_registry_next_seq(regclass,bigint)', 'crid'),
    ('crid_registry_evict(regclass,bigint)', 'crid'),
    ('crid_registry_admit(regclass,bigint)', 'crid'),
    ('crid_check_allocation(bigint,bigint)', 'crid'),
    ('crid_check_block_end(bigint,bigint)', 'crid'),
    ('crid_check_not_evicted(text,bigint,bigint)', 'crid'),
    ('crid_check_reserved_end(bigint,bigint,bigint)', 'crid'),
    ('crid_reserve_ts(timestamp with time zone,bigint)', 'crid'),
    ('crid_evict_horizon(timestamp with time zone)', 'crid'),
    ('crid_evicted_before(regclass)', 'crid'),
    ('crid_record_eviction(regclass,bigint)', 'crid'),
    ('crid_node_lease_take(integer[],integer[],text,text,bigint,bigint,bigint,integer)', 'a fleet''s role'),
    ('crid_node_lease_since(text)', 'crid'),
    ('crid_node_lease_guard()', 'crid'),
    ('crid_local_only()', 'crid'),
    ('crid_public_id_keys_check()', 'crid'),
    ('crid_public_id_keys_restored()', 'crid'),
    ('crid_public_id_keys_changed()', 'crid'),
    ('crid_state_writes_guard()', 'crid'),
    ('crid_registry_forward_only()', 'crid'))
SELECT coalesce(f.fn, r.fn) AS function, r.who, f.fn IS NOT NULL AS not_public
  FROM (SELECT * FROM crid_functions WHERE NOT public_may) f
  FULL JOIN reviewed r ON r.fn = f.fn
 ORDER BY 1;

-- pg_monitor reads where the registry is; nobody else but superusers.
SELECT has_function_privilege('pg_monitor', 'crid_registry_status()', 'EXECUTE') AS pg_monitor_may,
       has_function_privilege('pg_monitor', 'crid_registry_clock()', 'EXECUTE') AS pg_monitor_may_clock;

-- Every PL/pgSQL or SQL function of crid that pins no search_path with a SET
-- clause: list them, so one that ought to pin it is seen. crid_backfill, a
-- procedure that commits, sets its own for each transaction; the bodies of
-- crid_backfill_lock_key and uuid_v7_text_to_timestamptz are bound to their
-- operators and functions when they are made.
SELECT fn FROM crid_functions f JOIN pg_proc p USING (oid) JOIN pg_language l ON l.oid = p.prolang
 WHERE l.lanname IN ('plpgsql', 'sql') AND f.proconfig IS NULL
 ORDER BY 1;

-- The guard of the lease table rules on crid's own lease table only: attached
-- to another table with the same columns, it refuses (42809) and writes
-- nothing to the ledger.
CREATE TABLE lookalike_leases (LIKE crid_node_leases);
CREATE TRIGGER lookalike_guard BEFORE INSERT ON lookalike_leases
    FOR EACH ROW EXECUTE FUNCTION crid_node_lease_guard();
SELECT regress.sqlstate_of($$INSERT INTO lookalike_leases (node, holder, token, kind, lease_until, renewed_at,
                                                            high_water_ms)
                              VALUES (16001, 'h', 't', 'lease', now() + interval '1 min', now(), 0)$$)
           AS guard_on_another_table,
       NOT EXISTS (SELECT FROM crid_node_lease_ledger WHERE node = 16001) AS ledger_untouched;
DROP TABLE lookalike_leases;
