-- Callers never run others' code, and crid's state is crid's
-- (docs/security.md): a function that reads a table as its caller checks
-- ownership before it reads anything; snowflake_backfill_plan takes only a
-- plan of its caller's; the key columns of a backfill are compared with the
-- operators of their primary key, never found through a search_path;
-- crid_backfill_state is written by crid only; crid_check() answers every
-- role; a member of pg_write_all_data cannot make crid reissue.
SET client_min_messages = warning;
CREATE ROLE regress_h39_owner;
CREATE ROLE regress_h39_stranger;
GRANT CREATE ON SCHEMA public TO regress_h39_owner, regress_h39_stranger;
GRANT USAGE ON SCHEMA regress TO regress_h39_owner, regress_h39_stranger;
RESET client_min_messages;

-- The owner's code, reporting whether it runs with a superuser's rights.
CREATE FUNCTION public.regress_h39_trap() RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RAISE NOTICE 'the owner''s code ran, as a superuser: %',
        (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user);
    RETURN 0;
END $$;
ALTER FUNCTION public.regress_h39_trap() OWNER TO regress_h39_owner;

-- crid_partition_move_default, called by a superuser who does not own the
-- table: refused before the default partition is planned (the planner
-- evaluates a partial index's predicate, the owner's code).
SET ROLE regress_h39_owner;
CREATE TABLE public.h39_events (id bigint PRIMARY KEY DEFAULT snowflake_next(1), v int)
    PARTITION BY RANGE (id);
CREATE TABLE public.h39_events_default PARTITION OF public.h39_events DEFAULT;
CREATE INDEX h39_events_default_trap ON public.h39_events_default (v) WHERE id > public.regress_h39_trap();
RESET ROLE;
SELECT regress.sqlstate_of($$SELECT * FROM crid_partition_move_default('public.h39_events', '1 day')$$)
       AS move_default_by_a_superuser;
-- Its owner may.
SET ROLE regress_h39_owner;
SELECT count(*) AS moved FROM crid_partition_move_default('public.h39_events', '1 day');
RESET ROLE;
-- A default partition of another owner is refused too, before it is read:
-- its code would run with the rights of the table's owner.
CREATE FUNCTION public.regress_h39_stranger_trap() RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RAISE NOTICE 'the default partition''s owner''s code ran, as %', current_user;
    RETURN 0;
END $$;
ALTER FUNCTION public.regress_h39_stranger_trap() OWNER TO regress_h39_stranger;
SET ROLE regress_h39_owner;
CREATE TABLE public.h39_shared (id bigint PRIMARY KEY DEFAULT snowflake_next(1), v int) PARTITION BY RANGE (id);
RESET ROLE;
CREATE TABLE public.h39_shared_default PARTITION OF public.h39_shared DEFAULT;
ALTER TABLE public.h39_shared_default OWNER TO regress_h39_stranger;
SET ROLE regress_h39_stranger;
CREATE INDEX h39_shared_default_trap ON public.h39_shared_default (v) WHERE id > public.regress_h39_stranger_trap();
SET ROLE regress_h39_owner;
SELECT regress.sqlstate_of($$SELECT * FROM crid_partition_move_default('public.h39_shared', '1 day')$$)
       AS move_from_a_strangers_default,
       regress.sqlstate_of($$SELECT * FROM crid_partition_create('public.h39_shared', '1 day', '2026-03-01',
                                                                 '2026-03-01')$$)
       AS create_beside_a_strangers_default;
RESET ROLE;

-- snowflake_backfill_plan: a relation of the plan's name that the caller
-- does not own, or that is not a table, is never the plan: another role's
-- view with the plan's comment would choose the ids written.
CREATE TABLE public.h39_orders (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, new_id bigint);
INSERT INTO public.h39_orders SELECT g, '2026-03-01 00:00:00+00'::timestamptz + g * interval '1 s', NULL
  FROM generate_series(1, 5) g;
SET ROLE regress_h39_stranger;
CREATE VIEW public.h39_plan AS SELECT g::bigint AS id, (g + 1000)::bigint AS new_id FROM generate_series(1, 5) g;
DO $$BEGIN
    EXECUTE format('COMMENT ON VIEW public.h39_plan IS %L',
                   format('crid snowflake_backfill_plan of public.h39_orders.new_id from created_at: node 5, layout %s',
                          snowflake_layout('twitter')));
END$$;
CREATE TABLE public.h39_plan_table (id bigint PRIMARY KEY, new_id bigint NOT NULL);
DO $$BEGIN
    EXECUTE format('COMMENT ON TABLE public.h39_plan_table IS %L',
                   format('crid snowflake_backfill_plan of public.h39_orders.new_id from created_at: node 5, layout %s',
                          snowflake_layout('twitter')));
END$$;
RESET ROLE;
SELECT regress.sqlstate_of($$SELECT snowflake_backfill_plan('public.h39_orders', 'new_id', 'created_at',
                                                              'public.h39_plan', 5, 'twitter')$$)
       AS a_strangers_view,
       regress.sqlstate_of($$SELECT snowflake_backfill_plan('public.h39_orders', 'new_id', 'created_at',
                                                              'public.h39_plan_table', 5, 'twitter')$$)
       AS a_strangers_table;
-- A plan it made is used again (a CALL resumes), and its rows are the ids.
SELECT snowflake_backfill_plan('public.h39_orders', 'new_id', 'created_at', 'public.h39_own_plan', 5, 'twitter')
       IS NOT NULL AS planned;
SET client_min_messages = warning;
SELECT snowflake_backfill_plan('public.h39_orders', 'new_id', 'created_at', 'public.h39_own_plan', 5, 'twitter')
       IS NOT NULL AS planned_again;
RESET client_min_messages;
SELECT count(*) AS planned_rows, count(DISTINCT new_id) AS distinct_ids FROM public.h39_own_plan;

-- crid_backfill compares key columns with their primary key's operators,
-- whatever the caller's search_path finds: an operator planted in public for
-- a key of a domain type never runs.
CREATE DOMAIN public.h39_key AS integer;
CREATE TABLE public.h39_keyed (id public.h39_key PRIMARY KEY, v bigint);
INSERT INTO public.h39_keyed SELECT g, NULL FROM generate_series(1, 7) g;
SET ROLE regress_h39_stranger;
CREATE FUNCTION public.h39_planted(a public.h39_key, b public.h39_key) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RAISE WARNING 'a planted operator ran';
    RETURN a::integer = b::integer;
END $$;
CREATE FUNCTION public.h39_planted_gt(a public.h39_key, b public.h39_key) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RAISE WARNING 'a planted operator ran';
    RETURN a::integer > b::integer;
END $$;
CREATE OPERATOR public.= (LEFTARG = public.h39_key, RIGHTARG = public.h39_key, FUNCTION = public.h39_planted);
CREATE OPERATOR public.> (LEFTARG = public.h39_key, RIGHTARG = public.h39_key, FUNCTION = public.h39_planted_gt);
RESET ROLE;
SET search_path = public, regress;
SET client_min_messages = warning;
CALL crid_backfill('public.h39_keyed', 'v', 'id::integer * 10', 3, '0');
RESET client_min_messages;
RESET search_path;
SELECT count(*) FILTER (WHERE v = id::integer * 10) AS filled, count(*) AS total FROM public.h39_keyed;

-- crid_backfill_state: nobody but crid writes or locks it; a run's row is
-- still written for a role that may update the column.
GRANT SELECT, UPDATE (v) ON public.h39_keyed TO regress_h39_owner;
UPDATE public.h39_keyed SET v = NULL WHERE id::integer > 4;
SET ROLE regress_h39_stranger;
SELECT what, regress.sqlstate_of(statement) AS sqlstate
FROM (VALUES
    ('lock it', 'LOCK TABLE crid_backfill_state IN ACCESS EXCLUSIVE MODE'),
    ('lock it for writes', 'LOCK TABLE crid_backfill_state IN ROW EXCLUSIVE MODE'),
    ('insert a row', $$INSERT INTO crid_backfill_state VALUES (1, 1, 'x', 'x', 1, now(), now(), NULL, 0, 0, 0, NULL,
                                                                NULL, 1)$$),
    ('delete rows', 'DELETE FROM crid_backfill_state'),
    ('write a row through crid', $$SELECT crid_backfill_state_write('public.h39_keyed', 2::smallint, 'v', 'x', 1, now(),
                                                                    0, 0, 0, NULL, '{6}', false)$$))
    AS t(what, statement);
RESET ROLE;
SET ROLE regress_h39_owner;
SELECT what, regress.sqlstate_of(statement) AS sqlstate
FROM (VALUES
    ('move its own resume point', 'UPDATE crid_backfill_state SET last_key = ''{6}'''),
    ('lock it', 'LOCK TABLE crid_backfill_state IN ACCESS EXCLUSIVE MODE'))
    AS t(what, statement);
SET client_min_messages = warning;
CALL crid_backfill('public.h39_keyed', 'v', 'id::integer * 100', 2, '0');
RESET client_min_messages;
SELECT relation, column_name, state, rows_done, rows_left FROM crid_backfill_progress
 WHERE relation = 'public.h39_keyed'::regclass;
RESET ROLE;
SELECT count(*) FILTER (WHERE v = id::integer * 100) AS refilled FROM public.h39_keyed;

-- crid_sequences: every backend's planner reads it for each nextval() it
-- plans, and every DROP's event trigger writes it. A role may not lock it
-- (that would stop every serial INSERT of new sessions and every DROP in the
-- database), nor delete rows of sequences it does not own; the rows of its
-- own sequences it removes through crid (crid_sequence_revert).
CREATE TABLE public.h39_serial (id bigserial PRIMARY KEY);
ALTER TABLE public.h39_serial OWNER TO regress_h39_owner;
SET crid.node_id = 7;
SET ROLE regress_h39_owner;
SELECT crid_sequence_convert('public.h39_serial_id_seq') AS converted;
RESET ROLE;
SET ROLE regress_h39_stranger;
SELECT what, regress.sqlstate_of(statement) AS sqlstate
FROM (VALUES
    ('lock it', 'LOCK TABLE crid_sequences IN ACCESS EXCLUSIVE MODE'),
    ('lock it against readers', 'LOCK TABLE crid_sequences IN SHARE ROW EXCLUSIVE MODE'),
    ('delete rows', 'DELETE FROM crid_sequences'),
    ('forget a row through crid', $$SELECT crid_sequences_forget('public.h39_serial_id_seq')$$),
    ('revert it', $$SELECT crid_sequence_revert('public.h39_serial_id_seq')$$))
    AS t(what, statement);
RESET ROLE;
SELECT count(*) AS still_converted FROM crid_sequences WHERE seq = 'public.h39_serial_id_seq'::regclass;
SET ROLE regress_h39_owner;
SELECT crid_sequence_revert('public.h39_serial_id_seq') > 0 AS reverted;
SELECT crid_sequence_convert('public.h39_serial') AS converted_again;
DROP TABLE public.h39_serial;
RESET ROLE;
SELECT count(*) AS rows_of_dropped FROM crid_sequences WHERE seq::oid NOT IN (SELECT oid FROM pg_class);
RESET crid.node_id;

-- crid_check() answers a role without pg_monitor: what it may not see is
-- one row that says so, not an ERROR.
SET ROLE regress_h39_stranger;
SELECT regress.sqlstate_of('SELECT count(*) FROM crid_check()') AS crid_check_by_anyone;
SELECT problem, object FROM crid_check() WHERE problem = 'not_checked';
RESET ROLE;
SELECT count(*) AS not_checked_rows_for_a_superuser FROM crid_check() WHERE problem = 'not_checked';

-- pg_write_all_data writes every table, crid's too: crid refuses what
-- would make it reissue (a registry row moved back or deleted) and any write
-- of its state tables that does not come from crid (it reads them too here,
-- with pg_read_all_data, to name rows).
GRANT pg_write_all_data, pg_read_all_data TO regress_h39_stranger;
INSERT INTO crid_allocations VALUES (9000001, 500);
SET ROLE regress_h39_stranger;
SELECT what, regress.sqlstate_of(statement) AS sqlstate
FROM (VALUES
    ('move a registry row back', 'UPDATE crid_allocations SET next_seq = 0 WHERE ts = 9000001'),
    ('delete a registry row', 'DELETE FROM crid_allocations WHERE ts = 9000001'),
    ('move a registry row forward', 'UPDATE crid_allocations SET next_seq = 600 WHERE ts = 9000001'),
    ('write crid_backfill_state', $$INSERT INTO crid_backfill_state VALUES ('public.h39_keyed'::regclass, 2, 'v', 'x', 1,
                                      now(), now(), NULL, 0, 0, 0, NULL, '{6}', 1)$$),
    ('write crid_registry_state', $$INSERT INTO crid_registry_state VALUES ('regress.h39', 'x', now(), 0, NULL, 0, now(),
                                                                            'h39')$$),
    ('write crid_evictions', $$INSERT INTO crid_evictions VALUES ('regress.h39', 0)$$),
    ('write crid_node_lease_state', $$INSERT INTO crid_node_lease_state VALUES (true, 'x', now(), true, 'h39')
                                       ON CONFLICT (one) DO UPDATE SET reason = 'h39'$$),
    ('write crid_node_lease_ledger', $$INSERT INTO crid_node_lease_ledger VALUES (16099, now())$$))
    AS t(what, statement);
RESET ROLE;
SELECT next_seq FROM crid_allocations WHERE ts = 9000001;
SELECT (SELECT count(*) FROM crid_registry_state WHERE registry = 'regress.h39')
     + (SELECT count(*) FROM crid_evictions WHERE registry = 'regress.h39')
     + (SELECT count(*) FROM crid_node_lease_state WHERE reason = 'h39')
     + (SELECT count(*) FROM crid_node_lease_ledger WHERE node = 16099)
     + (SELECT count(*) FROM crid_backfill_state WHERE last_key = '{6}') AS rows_written;
DELETE FROM crid_allocations WHERE ts = 9000001;
REVOKE pg_write_all_data, pg_read_all_data FROM regress_h39_stranger;

-- A plan that folded a face keeps no key row's secret once the key table
-- changes: a key made in a transaction that rolled back, whose key id a
-- later key takes, gives the later key's faces.
BEGIN;
SELECT crid_public_id_key_create(current_user::regrole, 9039) AS made;
PREPARE h39_face AS SELECT crid_mask(12345::bigint, 9039) AS face;
EXECUTE h39_face \gset rolled_back_
ROLLBACK;
SELECT crid_public_id_key_create(current_user::regrole, 9039) AS made_again;
SELECT crid_mask(12345::bigint, 9039) AS face \gset fresh_
EXECUTE h39_face \gset prepared_
SELECT :prepared_face = :fresh_face AS prepared_is_fresh, :rolled_back_face <> :fresh_face AS secrets_differ;
DEALLOCATE h39_face;
UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = 9039;

-- Clean up.
DROP TABLE public.h39_shared, public.h39_events, public.h39_orders, public.h39_own_plan, public.h39_keyed;
DELETE FROM crid_backfill_state WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = relid);
DROP VIEW public.h39_plan;
DROP TABLE public.h39_plan_table;
DROP OPERATOR public.= (public.h39_key, public.h39_key);
DROP OPERATOR public.> (public.h39_key, public.h39_key);
DROP FUNCTION public.h39_planted(public.h39_key, public.h39_key), public.h39_planted_gt(public.h39_key, public.h39_key);
DROP DOMAIN public.h39_key;
DROP FUNCTION public.regress_h39_trap(), public.regress_h39_stranger_trap();
REVOKE CREATE ON SCHEMA public FROM regress_h39_owner, regress_h39_stranger;
REVOKE USAGE ON SCHEMA regress FROM regress_h39_owner, regress_h39_stranger;
DROP ROLE regress_h39_owner;
DROP ROLE regress_h39_stranger;
