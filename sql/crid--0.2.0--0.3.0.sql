-- crid 0.2.0 -> 0.3.0. New and changed SQL objects of 0.3.0 go here (long
-- function bodies in sql/functions/, taken in with "-- @include" lines); the
-- Makefile builds crid--0.2.0--0.3.0.sql from this file and appends it to the
-- earlier scripts to build crid--0.3.0.sql, so a fresh install and an upgrade
-- run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.3.0'" to load this file. \quit

------------------------------------------------------------------------------
-- A registry that goes backwards never makes a node reissue: every
-- reservation, whoever makes it, is checked against the registry's memory of
-- its own table (crid_registry_state) in its own statement.
------------------------------------------------------------------------------

-- The registry's memory of its own continuity (docs/fleet.md, "What a
-- fleet guarantees" and "Restoring the registry"): one row per
-- registry table, naming the physical table it was written for (system
-- identifier, timeline, relation and its file) and the seconds no live
-- reservation may use any more. A TRUNCATE, a re-created table, a restore
-- into another cluster or a promoted standby change the identity, and the
-- first writer that notices (crid_registry_check) moves the floor above
-- every second a lost reservation could have used. Not dumped: it describes
-- one physical table, and a restored table gets a new row.
CREATE TABLE IF NOT EXISTS crid_registry_state (
    registry text PRIMARY KEY,           -- the registry table, schema.table
    identity text NOT NULL,              -- the table this row was written for
    epoch timestamptz NOT NULL,          -- the fleet's crid.epoch: ts 0 is this instant
    max_skew_ms integer NOT NULL CHECK (max_skew_ms OPERATOR(pg_catalog.>=) 0 AND max_skew_ms OPERATOR(pg_catalog.<=) 60000),
    refused_from_ts bigint,              -- reservations in refused_from_ts .. floor_ts are refused
    floor_ts bigint NOT NULL,            -- (NULL refused_from_ts: none below floor_ts is)
    changed_at timestamptz NOT NULL,     -- when the identity last changed (or the row was made)
    reason text NOT NULL                 -- why, for people
);
COMMENT ON TABLE crid_registry_state IS
    'crid registry continuity: the table identity each registry table was last seen with, and the seconds reservations must avoid';
REVOKE ALL ON crid_registry_state FROM PUBLIC;
-- Every statement on a registry table goes through these, which refuse a
-- relation that is not a registry table and run the statement as the
-- table's owner (src/pg/registry/registry_access.cpp says why). Internal:
-- not PUBLIC's.
CREATE FUNCTION crid_registry_identity(registry regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'crid_registry_identity'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
CREATE FUNCTION crid_registry_newest(registry regclass) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_registry_newest'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
CREATE FUNCTION crid_registry_upsert(registry regclass, ts bigint, amount bigint, room_limit bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_registry_upsert'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
CREATE FUNCTION crid_registry_next_seq(registry regclass, ts bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_registry_next_seq'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
CREATE FUNCTION crid_registry_evict(registry regclass, horizon bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_registry_evict'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION crid_registry_identity(regclass) IS
    'the physical table a registry table is now (system, timeline, relation, file); ERROR unless a registry table';
COMMENT ON FUNCTION crid_registry_newest(regclass) IS
    'the newest second a registry table holds, read as its owner';
COMMENT ON FUNCTION crid_registry_upsert(regclass, bigint, bigint, bigint) IS
    'the reservation upsert on a registry table, run as its owner for a caller that may write it';
COMMENT ON FUNCTION crid_registry_next_seq(regclass, bigint) IS
    'the next_seq of one second of a registry table, read as its owner';
COMMENT ON FUNCTION crid_registry_evict(regclass, bigint) IS
    'deletes the rows of seconds before horizon from a registry table, as its owner';
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
CREATE FUNCTION crid_registry_check(registry regclass,
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
-- Row trigger of a registry table: every insert or update of a row is a
-- reservation, and passes crid_registry_admit, whoever makes it (crid
-- servers, crid_allocate, crid_reserve, the plain upsert of Go services).
-- Rows carried in from elsewhere (a copy of another registry table, a
-- restore) are history, not reservations: load them with
-- session_replication_role = replica, under which this trigger does not
-- fire.
--
-- SECURITY DEFINER, so the roles that write a registry need no right on
-- crid's state. It reads nothing of NEW but ts, and admits the table the
-- trigger fired on, which crid_registry_check accepts only as a registry
-- table. Giving a table this trigger makes it a registry table, so EXECUTE
-- (which CREATE TRIGGER needs) is not PUBLIC's: a superuser grants it to
-- the owner of a table that is to be one.
CREATE FUNCTION crid_registry_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@.crid_registry_admit(TG_RELID::regclass, NEW.ts);
    RETURN NEW;
END
$$;
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
CREATE FUNCTION crid_registry_reserve(registry regclass, ts bigint, amount bigint,
                                      room_limit bigint DEFAULT NULL, epoch_ms bigint DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
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
COMMENT ON FUNCTION crid_registry_check(regclass) IS
    'the registry''s continuity state for a registry table, updated when the table changed (truncated, re-created, restored, failed over)';
COMMENT ON FUNCTION crid_registry_admit(regclass, bigint) IS
    'ERROR 55000 unless a reservation of second ts in the registry table is allowed now';
COMMENT ON FUNCTION crid_registry_reserve(regclass, bigint, bigint, bigint, bigint) IS
    'reserve amount sequences of second ts in the registry table and return the new next_seq (NULL: refused or full)';
-- crid_allocate and crid_reserve check every reservation too, also in a
-- registry table crid does not own (crid.registry_table), which may lack
-- the trigger.
-- The registry primitive for outside nodes: a block of block_size
-- sequences of second ts, its start returned. Refused for an evicted second
-- and for one the registry's continuity check refuses (crid_registry_admit).
-- SECURITY DEFINER, so an outside node needs EXECUTE on it and no right on
-- the registry table (EXECUTE is granted to such roles, never to PUBLIC).
-- Its arguments are two numbers; the table is crid_registry_table(), which
-- only the server's configuration names, and crid_registry_upsert writes it
-- as its owner.
CREATE OR REPLACE FUNCTION crid_allocate(ts bigint, block_size bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    registry regclass;
    block_end bigint;
BEGIN
    IF crid_allocate.ts IS NULL OR crid_allocate.block_size IS NULL THEN
        RAISE EXCEPTION 'crid_allocate: ts and block_size must not be NULL' USING ERRCODE = '22004';
    END IF;
    PERFORM @extschema@.crid_check_allocation(crid_allocate.ts, crid_allocate.block_size);
    registry := @extschema@.crid_registry_table();
    PERFORM @extschema@.crid_check_not_evicted('crid_allocate', crid_allocate.ts,
                                               @extschema@.crid_evicted_before(registry));
    PERFORM @extschema@.crid_registry_admit(registry, crid_allocate.ts);
    block_end := @extschema@.crid_registry_reserve(registry, crid_allocate.ts, crid_allocate.block_size);
    PERFORM @extschema@.crid_check_block_end(crid_allocate.ts, block_end);
    RETURN block_end - crid_allocate.block_size;
END
$$;
-- Reserves a block of n sequences of at's second in the registry, with the
-- reservation every node uses (crid_registry_reserve), and returns its
-- start: the ids crid_pack(at, start) .. crid_pack(at, start + n - 1) are
-- the caller's. The reservation is part of
-- the caller's transaction: it commits with the ids it gave (a rolled-back
-- backfill leaves neither), and the second's registry row stays locked until
-- then, so reserve long past seconds rather than the current one. Refused
-- for an evicted second and for one the registry's continuity check refuses
-- (crid_registry_admit): the seconds a registry that went backwards may
-- have lost reservations of. SECURITY DEFINER for the same reasons as
-- crid_allocate, and like it granted to the roles that backfill, never to
-- PUBLIC.
CREATE OR REPLACE FUNCTION crid_reserve(at timestamptz, n bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ts bigint := @extschema@.crid_reserve_ts(at, n);
    registry regclass := @extschema@.crid_registry_table();
    block_end bigint;
BEGIN
    PERFORM @extschema@.crid_check_not_evicted('crid_reserve', ts, @extschema@.crid_evicted_before(registry));
    PERFORM @extschema@.crid_registry_admit(registry, ts);
    block_end := @extschema@.crid_registry_reserve(registry, ts, n);
    PERFORM @extschema@.crid_check_reserved_end(ts, n, block_end);
    RETURN block_end - n;
END
$$;
-- Deletes registry rows of seconds before `before`; refuses a horizon newer
-- than now - crid.evict_min_age, since a clock stepped back into a deleted
-- second would start its sequences from 0 again. SECURITY DEFINER, for the
-- roles granted EXECUTE (never PUBLIC): it records the horizon in
-- crid_evictions, which they may not write, and deletes from the table
-- crid_registry_table() names as its owner (crid_registry_evict).
CREATE OR REPLACE FUNCTION crid_evict(before timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    horizon bigint := @extschema@.crid_evict_horizon(before);
    registry regclass := @extschema@.crid_registry_table();
BEGIN
    PERFORM @extschema@.crid_record_eviction(registry, horizon);
    RETURN @extschema@.crid_registry_evict(registry, horizon);
END
$$;
CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON crid_allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_registry_guard();
-- The state of the extension's own table starts now: a re-created registry
-- refuses the seconds around this moment, which reservations lost with the
-- old one may hold.
SELECT @extschema@.crid_registry_check('@extschema@.crid_allocations'::pg_catalog.regclass);

-- Snowflake node leases: when a node's holder may mint on it. A holder that
-- took a node whose earlier holder cannot be shown to have stopped (no row,
-- or the registry's table changed less than a takeover delay ago) mints from
-- a full crid.node_lease_ttl and a fifth later; NULL: at once.
ALTER TABLE crid_node_leases ADD COLUMN IF NOT EXISTS mint_from timestamptz;
COMMENT ON COLUMN crid_node_leases.mint_from IS
    'when the holder may mint on the node: after a takeover delay when its earlier holder could not be shown to have stopped';
-- ... and where no earlier holder can be minting on the node (one that
-- never had a row, or whose holder released it or let it lapse, in a table
-- that has not changed since), at once: the registry keeps the lease
-- table's continuity and a ledger of every node that ever had a row, and
-- the trigger crid_node_lease_guard rules on every row taken. Leasing
-- servers take a node with crid_node_lease_take, in O(1).
-- What lets the registry vouch that nobody else mints on a node (docs/fleet.md,
-- "What a fleet guarantees"): whether its holder released the row, the
-- lease table's memory of its own continuity, and a ledger of every node that
-- ever had a row. Shared by the extension and crid_registry_server.sql.
ALTER TABLE crid_node_leases ADD COLUMN IF NOT EXISTS released_at timestamptz;
COMMENT ON COLUMN crid_node_leases.released_at IS
    'when its holder released the node at a planned exit, its bound lowered to what it minted; NULL while held';
-- A server finds its own rows by token and its earlier starts' by holder, and
-- probes nodes by the primary key: no lease statement reads the whole table.
CREATE INDEX IF NOT EXISTS crid_node_leases_token ON crid_node_leases (token);
CREATE INDEX IF NOT EXISTS crid_node_leases_holder ON crid_node_leases (holder);

-- The lease table's continuity (one row): the physical table it was made as
-- or last seen changed to (system identifier, timeline, relation and file),
-- since when the registry vouches for it (when this row was made or the
-- table last seen to change), and whether it has seen the table whole: made
-- empty with this row, and never seen changed since, so that every row the
-- table ever had passed the ledger. A TRUNCATE, a re-created table, a
-- promoted standby, a restore and rows carried in from elsewhere move
-- `since` and end `whole`. Not dumped: it describes one physical table.
CREATE TABLE IF NOT EXISTS crid_node_lease_state (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    identity text NOT NULL,       -- the table this row was written for
    since timestamptz NOT NULL,   -- made, or last seen changed
    whole boolean NOT NULL,       -- made empty with this row, and unchanged since
    reason text NOT NULL          -- why, for people
);
COMMENT ON TABLE crid_node_lease_state IS
    'crid node lease continuity: the lease table''s identity, and since when the registry vouches for it';
REVOKE ALL ON crid_node_lease_state FROM PUBLIC;

-- Every node that ever had a lease row, and when the registry first saw one:
-- a node with no row and no entry here never had a row while the entries
-- were kept. Written by the trigger crid_node_lease_guard only; not dumped.
CREATE TABLE IF NOT EXISTS crid_node_lease_ledger (
    node integer PRIMARY KEY,
    first_seen timestamptz NOT NULL
);
COMMENT ON TABLE crid_node_lease_ledger IS
    'every snowflake node that ever had a row in crid_node_leases, and when the registry first saw one';
REVOKE ALL ON crid_node_lease_ledger FROM PUBLIC;
-- Since when the registry vouches for its lease table crid_node_leases: the
-- moment its continuity state was made (CREATE EXTENSION, an upgrade, the
-- registry-server script) or the table was last seen to change; -infinity
-- while the state has seen the table whole (it was made empty with the
-- state, and has not been seen to change since), so that every row the table
-- ever had passed crid_node_lease_guard into the ledger.
--
-- A table is seen changed when it is not the physical table the state was
-- written for (TRUNCATE and VACUUM FULL make a new file, a re-created table
-- a new relation, a restore into another cluster a new system, a promoted
-- standby or a point-in-time restore a new timeline), or when the caller
-- names a `change` it found (crid_node_lease_guard: a row carried in from
-- elsewhere). Then `since` moves to now, the table is no longer whole, and
-- every row it holds is entered in the ledger as history from before then
-- (first seen no later than `since`).
--
-- Why `since` bounds what an unknown earlier holder may do: every lease row
-- a holder renewed and the registry lost (with a truncated, re-created,
-- restored or failed-over table) was renewed before the change, and so
-- before `since`; a holder mints at most 4/5 of a TTL after its last
-- renewal, so none of them mints past `since` plus a takeover delay. In a
-- whole table no row was lost: only rows deleted in place, which the ledger
-- remembers.
--
-- Internal (not PUBLIC's): called by crid_node_lease_guard, as its owner,
-- and once where the lease table is made.
CREATE FUNCTION crid_node_lease_since(change text DEFAULT NULL) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    leases CONSTANT pg_catalog.regclass := '@extschema@.crid_node_leases'::pg_catalog.regclass;
    current text;
    st @extschema@.crid_node_lease_state;
BEGIN
    current := pg_catalog.format('system %s, timeline %s, relation %s file %s',
                                 (SELECT s.system_identifier FROM pg_catalog.pg_control_system() s),
                                 ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(
                                     pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 1, 8))::bit(32)::integer,
                                 leases::pg_catalog.oid, pg_catalog.pg_relation_filenode(leases));
    SELECT * INTO st FROM @extschema@.crid_node_lease_state s;
    IF FOUND AND st.identity = current AND change IS NULL THEN
        RETURN CASE WHEN st.whole THEN '-infinity'::pg_catalog.timestamptz ELSE st.since END;
    END IF;
    INSERT INTO @extschema@.crid_node_lease_state AS s (one, identity, since, whole, reason)
    VALUES (true, current, pg_catalog.clock_timestamp(),
            st.identity IS NULL AND change IS NULL AND NOT EXISTS (SELECT FROM @extschema@.crid_node_leases),
            CASE WHEN change IS NOT NULL THEN change
                 WHEN st.identity IS NULL AND NOT EXISTS (SELECT FROM @extschema@.crid_node_leases)
                     THEN 'a new lease table'
                 WHEN st.identity IS NULL THEN 'a lease table crid had no state for'
                 ELSE pg_catalog.format('the table was %s and is %s', st.identity, current) END)
    ON CONFLICT (one) DO UPDATE SET identity = EXCLUDED.identity, since = EXCLUDED.since, whole = false,
                                    reason = EXCLUDED.reason
    RETURNING s.* INTO st;
    INSERT INTO @extschema@.crid_node_lease_ledger AS g (node, first_seen)
    SELECT l.node, least(l.renewed_at, st.since) FROM @extschema@.crid_node_leases l
    ON CONFLICT (node) DO NOTHING;
    RETURN CASE WHEN st.whole THEN '-infinity'::pg_catalog.timestamptz ELSE st.since END;
END
$$;
-- Row trigger of crid_node_leases (BEFORE INSERT OR UPDATE OF token): the
-- registry's word on when a node's new holder may mint on it, mint_from
-- (NULL: at once). The taker proposes now() plus its takeover delay (a lease
-- TTL and a fifth), which stands where an earlier holder may still mint;
-- the guard lowers it where the registry can show that none does. With
-- `since` from crid_node_lease_since (-infinity while the registry has seen
-- the lease table whole since it was made):
--
-- - a new row of a node the ledger never saw: the node had no row since
--   `since`, so at once once `since` is a takeover delay old, and from
--   `since` plus the delay before that (a table that changed may have lost
--   the row of a holder that still mints until then);
-- - a new row of a node the ledger saw: its row vanished (a DELETE, or a
--   change that lost it) and its holder may mint until its lease could
--   have lapsed: the proposal stands (counted from `since` when this take
--   is what saw the table change);
-- - a row taken over (a new token: its holder released it at a planned
--   exit, or its lease lapsed, so it mints no more): at once, but not before
--   the row's own mint_from (the reason its holder waited holds for the
--   next), nor, when the row was first seen no later than `since` (it may
--   be a stale copy of a row the table lost renewals of), before `since`
--   plus the delay.
--
-- A row that no take wrote (a take sets renewed_at to its transaction's
-- now()) came from elsewhere, a restore: it keeps its values, enters the
-- ledger and moves `since` (once a transaction). A row taken over that the
-- ledger never saw was loaded with this trigger disabled: it moves `since`.
--
-- SECURITY DEFINER, so the roles that take leases (a fleet's) need no right
-- on the continuity state and the ledger, which no caller may write: one
-- that could would make a node look never leased. It reads NEW, OLD and
-- crid's own tables, every name qualified.
CREATE FUNCTION crid_node_lease_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    delay interval := coalesce(NEW.mint_from OPERATOR(pg_catalog.-) pg_catalog.now(),
                               (NEW.lease_until OPERATOR(pg_catalog.-) NEW.renewed_at) OPERATOR(pg_catalog.*) 1.2);
    since timestamptz;
    seen timestamptz;
    at timestamptz;
BEGIN
    -- Crid's own lease table only: on another table (a role with EXECUTE on
    -- this function could attach it to one of its own) NEW's columns are
    -- whatever that role made them.
    IF TG_RELID OPERATOR(pg_catalog.<>) '@extschema@.crid_node_leases'::pg_catalog.regclass::pg_catalog.oid
       OR TG_WHEN OPERATOR(pg_catalog.<>) 'BEFORE' OR TG_LEVEL OPERATOR(pg_catalog.<>) 'ROW' THEN
        RAISE EXCEPTION 'crid_node_lease_guard: a BEFORE ROW trigger of crid_node_leases only, not of %',
            TG_RELID::pg_catalog.regclass USING ERRCODE = '42809';
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.token = NEW.token THEN
        RETURN NEW;  -- its holder's own row
    END IF;
    IF TG_OP = 'INSERT' AND EXISTS (SELECT FROM @extschema@.crid_node_leases l WHERE l.node = NEW.node) THEN
        RETURN NEW;  -- an upsert's insert that updates the row: ruled on as an update
    END IF;
    since := @extschema@.crid_node_lease_since(NULL::pg_catalog.text);
    IF TG_OP = 'INSERT' AND NEW.renewed_at IS DISTINCT FROM pg_catalog.now() THEN
        IF since < pg_catalog.now() THEN
            since := @extschema@.crid_node_lease_since(pg_catalog.format(
                'rows came from elsewhere, a restore (node %s, renewed at %s)', NEW.node, NEW.renewed_at));
        END IF;
        INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen)
        VALUES (NEW.node, least(NEW.renewed_at, since)) ON CONFLICT (node) DO NOTHING;
        RETURN NEW;
    END IF;
    SELECT g.first_seen INTO seen FROM @extschema@.crid_node_lease_ledger g WHERE g.node = NEW.node;
    IF TG_OP = 'INSERT' AND FOUND THEN
        NEW.mint_from := greatest(pg_catalog.now(), since) OPERATOR(pg_catalog.+) delay;
        RETURN NEW;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen) VALUES (NEW.node, pg_catalog.now())
            ON CONFLICT (node) DO NOTHING;
        at := since OPERATOR(pg_catalog.+) delay;
    ELSE
        IF NOT FOUND THEN
            since := @extschema@.crid_node_lease_since(pg_catalog.format(
                'a row of node %s that crid never saw (loaded with crid_node_lease_guard disabled)', NEW.node));
            INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen)
            VALUES (NEW.node, least(OLD.renewed_at, since)) ON CONFLICT (node) DO NOTHING;
            seen := since;
        END IF;
        at := greatest(OLD.mint_from, CASE WHEN seen <= since THEN since OPERATOR(pg_catalog.+) delay END);
        NEW.released_at := NULL;
    END IF;
    NEW.mint_from := CASE WHEN at > pg_catalog.now() THEN at END;
    RETURN NEW;
END
$$;
-- A leasing server's acquisition (crid.node_id = 'lease'): takes one node of
-- the wanted ranges [first_nodes[i], last_nodes[i]] for the holder `token` (a random
-- token per postmaster start; `holder` names the server for people), and
-- returns it with the bound its previous holder wrote (raise_to: the new
-- holder's ids start above it; NULL when nobody held it), or node NULL
-- with how many nodes were probed and how many of those other live servers
-- hold. The crid worker runs exactly this, in the transaction that then
-- renews what the server holds; when it may mint on the node is the
-- trigger crid_node_lease_guard's word (mint_from).
--
-- The choice costs O(1) whatever the number of nodes and of leases held:
-- first the row this server holds already (its worker started again) by
-- the token index, then a lapsed row of its earlier start (same holder) by
-- the holder index, then at most `probes` nodes drawn at random, each one
-- primary key lookup, taking the first that has no row or a lapsed one.
-- With a fraction f of the wanted nodes free, a probe finds one with
-- probability f, so 1/f probes are expected (1.14 with 2,000 of 16,384
-- nodes leased), and the draws spread takers over the free nodes, which the
-- lowest free node would not. Wanted ranges of at most `probes` nodes are
-- all probed, in random order, so "every node is held" is exact there;
-- beyond that, a round that finds none is tried again by the worker.
--
-- Two servers never hold one node: a node without a row is taken by an
-- INSERT that the primary key lets only one transaction make (a concurrent
-- one waits for it and then inserts nothing); a lapsed row is taken by an
-- UPDATE under the row lock of SELECT ... FOR UPDATE, whose lapse condition
-- PostgreSQL checks again on the newest version of the row once it holds
-- the lock (SKIP LOCKED: a row another taker locked is left to it). Renewals
-- keep only rows with their holder's token.
--
-- Caller's rights: the caller needs SELECT, INSERT, UPDATE on
-- crid_node_leases and EXECUTE on this function (a fleet's role).
CREATE FUNCTION crid_node_lease_take(first_nodes integer[], last_nodes integer[], holder text, token text,
                                     bound_ms bigint, ttl_ms bigint, delay_ms bigint, probes integer DEFAULT 16,
                                     OUT node integer, OUT raise_to bigint, OUT probed integer, OUT live integer)
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    nodes bigint;  -- how many nodes the ranges hold
    candidates integer[];
    n integer;
    at bigint;
    r record;
BEGIN
    IF first_nodes IS NULL OR last_nodes IS NULL OR holder IS NULL OR token IS NULL OR bound_ms IS NULL
       OR ttl_ms IS NULL OR delay_ms IS NULL OR probes IS NULL THEN
        RAISE EXCEPTION 'crid_node_lease_take: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    nodes := (SELECT sum(w.hi::bigint - w.lo + 1) FROM unnest(first_nodes, last_nodes) w(lo, hi)
               HAVING bool_and(w.lo BETWEEN 0 AND w.hi AND w.hi <= 65535));
    IF nodes IS NULL OR pg_catalog.cardinality(first_nodes) NOT BETWEEN 1 AND 64
       OR pg_catalog.cardinality(last_nodes) <> pg_catalog.cardinality(first_nodes)
       OR ttl_ms < 1 OR delay_ms < 0 OR probes NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'crid_node_lease_take: nodes % to %, ttl_ms %, delay_ms % or probes % out of range',
            first_nodes, last_nodes, ttl_ms, delay_ms, probes USING ERRCODE = '22023',
            HINT = 'Ranges are 1 to 64 pairs first_nodes[i] <= last_nodes[i] within 0 to 65535; ttl_ms is at '
                   'least 1, delay_ms at least 0, probes 1 to 1000.';
    END IF;
    probed := 0;
    live := 0;
    SELECT l.node INTO node FROM @extschema@.crid_node_leases l
     WHERE l.token = crid_node_lease_take.token
       AND EXISTS (SELECT FROM unnest(first_nodes, last_nodes) w(lo, hi) WHERE l.node BETWEEN w.lo AND w.hi) LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    candidates := ARRAY(SELECT l.node FROM @extschema@.crid_node_leases l
                         WHERE l.holder = crid_node_lease_take.holder AND l.lease_until < pg_catalog.now()
                           AND EXISTS (SELECT FROM unnest(first_nodes, last_nodes) w(lo, hi)
                                        WHERE l.node BETWEEN w.lo AND w.hi)
                         ORDER BY l.lease_until DESC LIMIT 1);
    IF nodes <= probes THEN
        candidates := ARRAY(SELECT g FROM unnest(first_nodes, last_nodes) w(lo, hi), generate_series(w.lo, w.hi) g
                             ORDER BY g = ANY (candidates) DESC, pg_catalog.random());
    END IF;
    WHILE pg_catalog.cardinality(candidates) < least(probes, nodes) LOOP
        at := pg_catalog.floor(pg_catalog.random() * nodes)::bigint;  -- the at-th wanted node, across the ranges
        FOR i IN 1 .. pg_catalog.cardinality(first_nodes) LOOP
            n := first_nodes[i] + at;
            EXIT WHEN at <= last_nodes[i] - first_nodes[i];
            at := at - (last_nodes[i] - first_nodes[i] + 1);
        END LOOP;
        IF n <> ALL (candidates) THEN
            candidates := candidates || n;
        END IF;
    END LOOP;
    FOREACH n IN ARRAY candidates LOOP
        probed := probed + 1;
        SELECT l.lease_until < pg_catalog.now() AS lapsed INTO r FROM @extschema@.crid_node_leases l WHERE l.node = n;
        IF NOT FOUND THEN
            INSERT INTO @extschema@.crid_node_leases AS l
                (node, holder, token, kind, lease_until, renewed_at, high_water_ms, mint_from)
            VALUES (n, crid_node_lease_take.holder, crid_node_lease_take.token, 'lease',
                    pg_catalog.now() + ttl_ms * interval '1 millisecond', pg_catalog.now(), bound_ms,
                    pg_catalog.now() + delay_ms * interval '1 millisecond')
            ON CONFLICT (node) DO NOTHING RETURNING l.node INTO node;
            EXIT WHEN FOUND;
        ELSIF NOT r.lapsed THEN
            live := live + 1;
        ELSE
            SELECT l.high_water_ms INTO raise_to FROM @extschema@.crid_node_leases l
             WHERE l.node = n AND l.lease_until < pg_catalog.now() FOR UPDATE SKIP LOCKED;
            CONTINUE WHEN NOT FOUND;
            UPDATE @extschema@.crid_node_leases l
               SET holder = crid_node_lease_take.holder, token = crid_node_lease_take.token, kind = 'lease',
                   lease_until = pg_catalog.now() + ttl_ms * interval '1 millisecond', renewed_at = pg_catalog.now(),
                   high_water_ms = greatest(l.high_water_ms, bound_ms), released_at = NULL,
                   mint_from = pg_catalog.now() + delay_ms * interval '1 millisecond'
             WHERE l.node = n;
            node := n;
            EXIT;
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION crid_node_lease_since(text) IS
    'since when the registry vouches for crid_node_leases: its continuity state made, or the table last seen changed';
COMMENT ON FUNCTION crid_node_lease_guard() IS
    'row trigger of crid_node_leases: when the new holder of a node may mint on it (mint_from), and the ledger of nodes';
COMMENT ON FUNCTION crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer) IS
    'a leasing server takes one free node of the ranges, in O(1): its own, its earlier start''s, or one of random probes';
CREATE TRIGGER crid_node_lease_guard BEFORE INSERT OR UPDATE OF token ON crid_node_leases
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_node_lease_guard();
-- Rows loaded under session_replication_role = replica (a restore by hand)
-- are seen too; rows logical replication brings never reach it
-- (crid_local_only skips them first).
ALTER TABLE crid_node_leases ENABLE ALWAYS TRIGGER crid_node_lease_guard;
-- The registry vouches for the lease table from now: a re-created one may
-- have had holders that still mint for a takeover delay.
SELECT @extschema@.crid_node_lease_since(NULL::pg_catalog.text);
-- Ids for past times: node and sequence as bigint
------------------------------------------------------------------------------

-- row_number() and count(*) are bigint, so snowflake_pack(at, node,
-- row_number() OVER w - 1) needs these overloads. Node is bigint too, so
-- that a call with an integer node keeps resolving to the integer
-- overloads as before, also with a NULL or quoted literal as sequence (the
-- integer ones match one more argument exactly). Values beyond a field are
-- ERROR 22003 naming the value and the field's range, as with integers.
CREATE FUNCTION snowflake_pack(at timestamptz, node bigint, sequence bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_bigint'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node bigint, sequence bigint, gene integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_gene_bigint'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node bigint, sequence bigint, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_layout_bigint'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION snowflake_pack(at timestamptz, node bigint, sequence bigint, gene integer, layout text)
    RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_pack_gene_layout_bigint'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_pack(timestamptz, bigint, bigint) IS
    'the snowflake id of this server''s layout with these fields at at''s millisecond (for backfills; bigint sequence, such as row_number())';
COMMENT ON FUNCTION snowflake_pack(timestamptz, bigint, bigint, integer) IS
    'the snowflake id of this server''s layout with these fields and gene at at''s millisecond (for backfills; bigint sequence)';
COMMENT ON FUNCTION snowflake_pack(timestamptz, bigint, bigint, text) IS
    'the snowflake id of the layout with these fields at at''s time unit (for backfills; bigint sequence)';
COMMENT ON FUNCTION snowflake_pack(timestamptz, bigint, bigint, integer, text) IS
    'the snowflake id of the layout with these fields and gene at at''s time unit (for backfills; bigint sequence)';

------------------------------------------------------------------------------
-- Queries by time: the planner hook keeps every answer
------------------------------------------------------------------------------

-- The id bound of decoder(id) op at for a date or timestamp `at`, compared
-- as the cross-type operators compare it: one beyond timestamptz's range is
-- later (or earlier) than every id's time, never a conversion ERROR. STABLE:
-- the conversion follows TimeZone.
CREATE FUNCTION uuid_v7_time_bound(at date, op text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_time_bound_date'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_v7_time_bound(at timestamp, op text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_time_bound_timestamp'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at date, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound_date'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at timestamp, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound_timestamp'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at date, op text, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound_date'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time_bound(at timestamp, op text, layout text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_snowflake_time_bound_timestamp'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_time_bound(at date, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_crid_time_bound_date'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION crid_time_bound(at timestamp, op text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_crid_time_bound_timestamp'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v7_time_bound(date, text) IS
    'id bound of uuid_v7_to_timestamptz(id) op at for a date at, compared as date and timestamptz compare';
COMMENT ON FUNCTION uuid_v7_time_bound(timestamp, text) IS
    'id bound of uuid_v7_to_timestamptz(id) op at for a timestamp at, compared as timestamp and timestamptz compare';
COMMENT ON FUNCTION snowflake_time_bound(date, text, text) IS
    'id bound of snowflake_to_timestamptz(id, layout) op at for a date at';
COMMENT ON FUNCTION snowflake_time_bound(timestamp, text, text) IS
    'id bound of snowflake_to_timestamptz(id, layout) op at for a timestamp at';
COMMENT ON FUNCTION crid_time_bound(date, text) IS
    'id bound of crid_to_timestamptz(id) op at for a date at';
COMMENT ON FUNCTION crid_time_bound(timestamp, text) IS
    'id bound of crid_to_timestamptz(id) op at for a timestamp at';

-- What the hook leaves beside the id range of a snowflake or crid predicate
-- when the range lets negative ids through: the decoder's own ERROR for
-- them, true for every other id. The support function tells the planner it
-- keeps every row it does not refuse. COST 2, what the decoder and its
-- comparison cost, so a cheaper filter still runs first.
CREATE FUNCTION crid_snowflake_check(id bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_snowflake_check'
    LANGUAGE C STABLE STRICT PARALLEL SAFE COST 2 SUPPORT crid_uuid_v7_check_support;
CREATE FUNCTION crid_snowflake_check(id bigint, layout text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_snowflake_check'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2 SUPPORT crid_uuid_v7_check_support;
CREATE FUNCTION crid_crid_check(id bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_crid_check'
    LANGUAGE C STABLE STRICT PARALLEL SAFE COST 2 SUPPORT crid_uuid_v7_check_support;
COMMENT ON FUNCTION crid_snowflake_check(bigint) IS
    'true for an id snowflake_to_timestamptz(id) decodes; its ERROR for any other (the planner hook''s filter)';
COMMENT ON FUNCTION crid_snowflake_check(bigint, text) IS
    'true for an id snowflake_to_timestamptz(id, layout) decodes; its ERROR for any other (the planner hook''s filter)';
COMMENT ON FUNCTION crid_crid_check(bigint) IS
    'true for an id crid_to_timestamptz(id) decodes; its ERROR for any other (the planner hook''s filter)';
-- A UUID column is range-scanned by time only where a CHECK constraint says
-- what it holds: this one, version 7 only.
COMMENT ON FUNCTION crid_uuid_v7_check(uuid) IS
    'true for a UUID version 7, uuid_v7_to_timestamptz''s ERROR for any other; as CHECK (crid_uuid_v7_check(id)) it lets the planner hook range-scan id by time';

------------------------------------------------------------------------------
-- Backfills: finish or fail, never loop; "done" waits for open transactions
------------------------------------------------------------------------------

-- Fills column_name with expression where it is NULL, batch_size rows at a
-- time in primary-key order, committing each batch and sleeping pause
-- between them. Interrupted, it resumes from its last committed batch; a
-- filled row is never written again. Everything is checked before the first
-- row changes.
--
-- It finishes or fails, never loops: a batch whose UPDATE leaves rows it
-- picked NULL (a BEFORE UPDATE trigger returned NULL for them, row-level
-- security hides them from UPDATE) stops the run with an ERROR that counts
-- them, names some and says why. Rows picked but changed or deleted by
-- another transaction meanwhile are not its to write.
--
-- "done" means: no row is NULL that was visible to the backfill when it
-- finished, nor one written by a transaction that was open when its final
-- pass began: once nothing is left, it waits for every transaction of the
-- database open at that moment to end (as CREATE INDEX CONCURRENTLY waits
-- for older snapshots), then makes one more pass from the start. Rows of
-- transactions that begin later are theirs: give the column a DEFAULT first.
--
-- The names it gives its own parts of the batch statement (the CTEs and
-- their columns) carry a random suffix and are checked against the table's
-- name, its columns and the expression's text: they never capture a name of
-- the user's.
--
-- It runs with its caller's rights. A procedure that commits cannot pin
-- its search_path with SET, so it sets it itself, for its transaction, to
-- pg_catalog and pg_temp: its own statements then resolve no function or
-- operator of any other schema, whatever the caller's search_path (an
-- operator planted in public with exact argument types, such as
-- =(oid, regclass), would otherwise win over pg_catalog's). Only the
-- caller's own parts resolve through the caller's search_path: the
-- expression, when it is checked and in the batch statement, and the
-- operators of the key columns' types there; the batch statement names
-- every other operator with its schema.
CREATE OR REPLACE PROCEDURE crid_backfill(rel regclass, column_name name, expression text,
                                          batch_size integer DEFAULT 5000, pause interval DEFAULT '50 ms')
    LANGUAGE plpgsql
AS $$
DECLARE
    col record;
    keys text[];       -- primary key columns, quoted
    key_types text[];  -- their types
    target text;       -- the table as UPDATE names it
    lock_key bigint;
    resume text[];
    cursor_key text[];
    after text;
    batch_sql text[] := '{}';  -- the batch from the start, and after a cursor
    picked bigint;
    filled bigint;
    last_picked text[];
    null_key text[];
    unwritten text[];  -- keys picked and not written (two dimensions: row, key column)
    stuck bigint;
    stuck_keys text;
    why text;
    more boolean;
    final_pass boolean := false;  -- the pass after waiting for older transactions
    waited_for text[];
    waiting_pids text;
    total bigint;
    done bigint := 0;
    batch_no bigint := 0;
    run_start timestamptz := pg_catalog.clock_timestamp();
    caller_path constant text := pg_catalog.current_setting('search_path');
    shown constant text := rel::text;  -- the table as the caller's search_path names it
    rate numeric;
    left_rows bigint;
    eta bigint;        -- seconds left at the current rate
    label text := pg_catalog.format('%s.%I', rel, column_name);
    suffix text;
    batch_cte text;    -- internal names, unlike any of the user's
    filled_cte text;
    key_alias text;
    key_match text;    -- the keys of the unwritten rows, typed, for IN
BEGIN
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    IF rel IS NULL OR column_name IS NULL OR expression IS NULL OR batch_size IS NULL OR pause IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    IF batch_size < 1 THEN
        RAISE EXCEPTION 'crid_backfill: batch_size % is below 1', batch_size USING ERRCODE = '22023';
    END IF;
    IF pause < interval '0' THEN
        RAISE EXCEPTION 'crid_backfill: pause % is negative', pause USING ERRCODE = '22023';
    END IF;
    IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = rel) NOT IN ('r', 'p') THEN
        RAISE EXCEPTION 'crid_backfill: % is not a table', shown USING ERRCODE = '42809';
    END IF;
    SELECT a.attnum, a.attgenerated, a.attidentity INTO col
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = crid_backfill.column_name AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of relation % does not exist', column_name, shown
            USING ERRCODE = '42703';
    END IF;
    IF col.attgenerated <> '' THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of % is a generated column', column_name, shown
            USING ERRCODE = '42809';
    END IF;
    SELECT pg_catalog.array_agg(pg_catalog.quote_ident(a.attname) ORDER BY k.ord),
           pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY k.ord)
    INTO keys, key_types
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = rel AND i.indisprimary;
    IF keys IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: % has no primary key', shown USING ERRCODE = '55000',
            HINT = 'Batches walk the table in primary-key order; add a primary key (or backfill with UPDATE).';
    END IF;
    IF pg_catalog.quote_ident(column_name) = ANY (keys) THEN
        RAISE EXCEPTION 'crid_backfill: column "%" is part of the primary key of %, which is never NULL',
            column_name, shown USING ERRCODE = '22023';
    END IF;
    IF NOT pg_catalog.has_column_privilege(rel, col.attnum, 'UPDATE') THEN
        RAISE EXCEPTION 'crid_backfill: permission denied to update column "%" of %', column_name, shown
            USING ERRCODE = '42501';
    END IF;
    -- The expression is the caller's: checked as the caller's session reads it.
    PERFORM pg_catalog.set_config('search_path', caller_path, true);
    PERFORM @extschema@.crid_backfill_check_expression(rel, column_name, expression);
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

    target := pg_catalog.quote_ident((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel));
    lock_key := @extschema@.crid_backfill_lock_key(rel, col.attnum);
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        RAISE EXCEPTION 'crid_backfill: another crid_backfill is filling %', label USING ERRCODE = '55006';
    END IF;

    -- The names of the batch statement's own parts: a CTE name is seen by
    -- every subquery of the statement, the expression's too, and the batch's
    -- columns by its unqualified column names. So none may be the table's
    -- name, one of its columns, or occur in the expression.
    LOOP
        suffix := pg_catalog.substr(pg_catalog.md5(pg_catalog.random()::text || pg_catalog.clock_timestamp()::text), 1, 8);
        batch_cte := 'crid_backfill_batch_' || suffix;
        filled_cte := 'crid_backfill_filled_' || suffix;
        key_alias := 'crid_backfill_key_' || suffix || '_';
        EXIT WHEN pg_catalog.strpos(pg_catalog.lower(expression), suffix) = 0
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                              WHERE a.attrelid = rel AND pg_catalog.strpos(pg_catalog.lower(a.attname), suffix) > 0)
              AND pg_catalog.strpos(pg_catalog.lower((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel)), suffix) = 0;
    END LOOP;

    -- One batch: pick the next batch_size NULL rows (after the cursor: $1,
    -- the last key of the previous batch), fill those still NULL, report how
    -- many were picked and filled, the last key picked, the key of a row the
    -- expression left NULL, and the keys of rows picked and not written. The
    -- expression sits between parentheses on lines of its own (it was
    -- checked to be one expression).
    FOREACH after IN ARRAY ARRAY['', pg_catalog.format('AND (%s) > (%s)', pg_catalog.array_to_string(keys, ', '),
                                            (SELECT pg_catalog.string_agg(pg_catalog.format('($1)[%s]::%s', n, key_types[n]), ', ')
                                             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n))] LOOP
        batch_sql := batch_sql || pg_catalog.format(
            'WITH %14$I AS (SELECT %1$s FROM %2$s WHERE %3$I IS NULL %4$s ORDER BY %5$s LIMIT %6$s), '
            '%15$I AS (UPDATE %2$s SET %3$I = (' || E'\n' || '%7$s' || E'\n' || ') '
            'FROM %14$I WHERE (%8$s) = (%9$s) AND %10$s.%3$I IS NULL '
            'RETURNING %10$s.%3$I IS NULL, ARRAY[%11$s]::text[]) '
            'SELECT (SELECT pg_catalog.count(*) FROM %14$I), '
            '(SELECT pg_catalog.count(*) FROM %15$I), '
            '(SELECT ARRAY[%12$s]::text[] FROM %14$I ORDER BY %13$s LIMIT 1), '
            '(SELECT f.k FROM %15$I f(n, k) WHERE f.n LIMIT 1), '
            '(SELECT pg_catalog.array_agg(ARRAY[%12$s]::text[]) FROM %14$I '
            'WHERE NOT ARRAY[%12$s]::text[] OPERATOR(pg_catalog.=) ANY (SELECT f.k FROM %15$I f(n, k)))',
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s AS %I', k, key_alias || n), ', ') FROM pg_catalog.unnest(keys) WITH ORDINALITY u(k, n)),
            rel, column_name, after, pg_catalog.array_to_string(keys, ', '), batch_size, expression,
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s.%s', target, k), ', ') FROM pg_catalog.unnest(keys) k),
            (SELECT pg_catalog.string_agg(pg_catalog.format('%I.%I', batch_cte, key_alias || n), ', ')
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            target,
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s.%s::text', target, k), ', ') FROM pg_catalog.unnest(keys) k),
            (SELECT pg_catalog.string_agg(pg_catalog.format('%I::text', key_alias || n), ', ')
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            (SELECT pg_catalog.string_agg(pg_catalog.format('%I DESC', key_alias || n), ', ')
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            batch_cte, filled_cte);
    END LOOP;
    -- The unwritten keys ($1, rows of key texts) as typed rows, for IN.
    key_match := pg_catalog.format('(%s) IN (SELECT %s FROM pg_catalog.generate_subscripts($1, 1) i)', pg_catalog.array_to_string(keys, ', '),
                        (SELECT pg_catalog.string_agg(pg_catalog.format('($1)[i][%s]::%s', n, key_types[n]), ', ')
                         FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n));

    SELECT s.last_key INTO resume FROM @extschema@.crid_backfill_state s
    WHERE s.relid = rel AND s.attnum = col.attnum AND s.finished_at IS NULL;
    cursor_key := resume;
    EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) FROM %s WHERE %I IS NULL', rel, column_name) INTO total;
    INSERT INTO @extschema@.crid_backfill_state AS s
        VALUES (rel, col.attnum, column_name, expression, batch_size, run_start, pg_catalog.clock_timestamp(), NULL, 0, total, 0,
                NULL, cursor_key, pg_catalog.pg_backend_pid())
    ON CONFLICT (relid, attnum) DO UPDATE
        SET column_name = EXCLUDED.column_name, expression = EXCLUDED.expression, batch_size = EXCLUDED.batch_size,
            started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at, finished_at = NULL, rows_done = 0,
            rows_total = EXCLUDED.rows_total, batches = 0, rows_per_second = NULL, last_key = EXCLUDED.last_key,
            pid = EXCLUDED.pid;
    IF resume IS NOT NULL THEN
        RAISE NOTICE 'crid_backfill %: resuming after primary key (%), % rows to fill', label,
            pg_catalog.array_to_string(resume, ', '), total;
    END IF;
    COMMIT;
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    -- Committing released the lock: take it again in each transaction.
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        RAISE EXCEPTION 'crid_backfill: another crid_backfill took over %', label USING ERRCODE = '55006';
    END IF;

    LOOP
        PERFORM pg_catalog.set_config('search_path', caller_path, true);
        EXECUTE batch_sql[CASE WHEN cursor_key IS NULL THEN 1 ELSE 2 END]
            INTO picked, filled, last_picked, null_key, unwritten
            USING cursor_key;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        IF null_key IS NOT NULL THEN
            RAISE EXCEPTION 'crid_backfill %: the expression gave NULL for the row with primary key (%)', label,
                pg_catalog.array_to_string(null_key, ', ') USING ERRCODE = '22004',
                HINT = 'Such a row would stay NULL and be picked again forever; fix it or the expression, then CALL again.';
        END IF;
        IF unwritten IS NOT NULL THEN
            -- Picked and not written: those another transaction changed or
            -- deleted meanwhile are not NULL any more; the rest would be
            -- picked again forever.
            PERFORM pg_catalog.set_config('search_path', caller_path, true);
            EXECUTE pg_catalog.format('SELECT pg_catalog.count(*), pg_catalog.string_agg(k, ''), ('' ORDER BY n) '
                           'FILTER (WHERE n OPERATOR(pg_catalog.<=) 5) '
                           'FROM (SELECT pg_catalog.array_to_string(ARRAY[%s]::text[], '', '') AS k, '
                           'pg_catalog.row_number() OVER (ORDER BY %s) AS n FROM %s WHERE %I IS NULL AND %s) s',
                           (SELECT pg_catalog.string_agg(pg_catalog.format('%s::text', k), ', ') FROM pg_catalog.unnest(keys) k),
                           pg_catalog.array_to_string(keys, ', '), rel, column_name, key_match)
                INTO stuck, stuck_keys USING unwritten;
            PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            IF stuck > 0 THEN
                why := nullif(pg_catalog.concat_ws('; ',
                    (SELECT 'BEFORE UPDATE trigger ' || pg_catalog.string_agg(DISTINCT pg_catalog.format('%I', t.tgname), ', ')
                            || ' may return NULL for them'
                     FROM pg_catalog.pg_trigger t
                     WHERE (t.tgrelid = rel OR t.tgrelid IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(rel) p))
                       AND NOT t.tgisinternal AND t.tgenabled <> 'D'
                       AND t.tgtype::integer & (1 | 2 | 16) = (1 | 2 | 16)),
                    CASE WHEN pg_catalog.row_security_active(rel)
                         THEN pg_catalog.format('row-level security may hide them from UPDATE by %I', current_user) END,
                    (SELECT 'rule ' || pg_catalog.string_agg(pg_catalog.format('%I', r.rulename), ', ') || ' may rewrite the UPDATE'
                     FROM pg_catalog.pg_rewrite r WHERE r.ev_class = rel AND r.ev_type = '2')), '');
                RAISE EXCEPTION 'crid_backfill %: % rows of a batch are still NULL after its UPDATE, such as primary key (%)',
                    label, stuck, stuck_keys USING ERRCODE = '55000',
                    DETAIL = 'The UPDATE did not write them: '
                             || coalesce(why, 'a trigger, a row-level security policy or a rule kept it from them')
                             || '. The rows of this batch are rolled back; the batches before it stay.',
                    HINT = 'Such rows would be picked again forever. Let the UPDATE write them (or fill them yourself), '
                           'then CALL again.';
            END IF;
        END IF;
        IF picked = 0 THEN
            -- The end of a pass. Rows inserted behind the cursor meanwhile
            -- are found by one more pass from the start.
            IF cursor_key IS NOT NULL AND NOT final_pass THEN
                EXECUTE pg_catalog.format('SELECT EXISTS (SELECT FROM %s WHERE %I IS NULL)', rel, column_name) INTO STRICT more;
                IF more THEN
                    cursor_key := NULL;
                    CONTINUE;
                END IF;
            END IF;
            EXIT WHEN final_pass;
            -- Nothing is left that this snapshot sees, but a transaction open
            -- now may still commit rows with a NULL here: wait until every
            -- transaction of this database open now has ended (committing
            -- between looks, so that runs waiting alike never wait on each
            -- other), then make a final pass from the start. A prepared
            -- transaction holding a lock on the table is waited for too.
            SELECT pg_catalog.array_agg(l.virtualxid), pg_catalog.string_agg(l.pid::text, ', ' ORDER BY l.pid) INTO waited_for, waiting_pids
            FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'virtualxid' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()
              AND a.datid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
              AND a.backend_type <> 'autovacuum worker';
            waited_for := waited_for || ARRAY(
                SELECT DISTINCT 'prepared ' || l.virtualtransaction FROM pg_catalog.pg_locks l
                WHERE l.locktype = 'relation' AND l.pid IS NULL
                  AND (l.relation = rel OR l.relation IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(rel) p)));
            IF pg_catalog.cardinality(waited_for) > 0 THEN
                RAISE NOTICE 'crid_backfill %: nothing left; waiting for % open now to end before a final pass',
                    label, CASE pg_catalog.cardinality(waited_for) WHEN 1 THEN 'the transaction'
                                ELSE pg_catalog.cardinality(waited_for) || ' transactions' END
                    USING DETAIL = pg_catalog.concat_ws('; ', 'backends ' || waiting_pids,
                                             CASE WHEN EXISTS (SELECT FROM pg_catalog.unnest(waited_for) w WHERE w LIKE 'prepared %')
                                                  THEN 'prepared transactions holding a lock on ' || shown END);
            END IF;
            WHILE EXISTS (SELECT FROM pg_catalog.pg_locks l
                          WHERE (l.locktype = 'virtualxid' AND l.virtualxid = ANY (waited_for))
                             OR (l.locktype = 'relation' AND l.pid IS NULL
                                 AND 'prepared ' || l.virtualtransaction = ANY (waited_for))) LOOP
                COMMIT;
                PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
                IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
                    RAISE EXCEPTION 'crid_backfill: another crid_backfill took over %', label USING ERRCODE = '55006';
                END IF;
                PERFORM pg_catalog.pg_sleep(0.05);
            END LOOP;
            final_pass := true;
            cursor_key := NULL;
            CONTINUE;
        END IF;
        cursor_key := last_picked;
        done := done + filled;
        batch_no := batch_no + 1;
        rate := pg_catalog.round(done / greatest(extract(epoch FROM pg_catalog.clock_timestamp() - run_start), 0.001));
        left_rows := greatest(total - done, 0);
        UPDATE @extschema@.crid_backfill_state s
            SET rows_done = done, batches = batch_no, last_key = cursor_key, rows_per_second = rate,
                updated_at = pg_catalog.clock_timestamp()
            WHERE s.relid = rel AND s.attnum = col.attnum;
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
            RAISE EXCEPTION 'crid_backfill: another crid_backfill took over %', label USING ERRCODE = '55006';
        END IF;
        eta := CASE WHEN rate > 0 THEN pg_catalog.round(left_rows / rate)::bigint END;
        RAISE NOTICE 'crid_backfill %: batch %, % rows done, % left, % rows/s, about % left', label, batch_no, done,
            left_rows, rate, coalesce(pg_catalog.format('%s:%s:%s', eta / 3600, pg_catalog.lpad((eta / 60 % 60)::text, 2, '0'),
                                             pg_catalog.lpad((eta % 60)::text, 2, '0')), 'unknown time');
        IF pause > interval '0' THEN
            PERFORM pg_catalog.pg_sleep(extract(epoch FROM pause)::double precision);
        END IF;
    END LOOP;

    UPDATE @extschema@.crid_backfill_state s
        SET finished_at = pg_catalog.clock_timestamp(), updated_at = pg_catalog.clock_timestamp(), rows_done = done, batches = batch_no,
            last_key = NULL
        WHERE s.relid = rel AND s.attnum = col.attnum;
    RAISE NOTICE 'crid_backfill %: done, % rows filled in % batches', label, done, batch_no;
END
$$;
COMMENT ON PROCEDURE crid_backfill(regclass, name, text, integer, interval) IS
    'fill a column with an expression where it is NULL, in committed primary-key-ordered batches; resumable; ERROR for rows the UPDATE cannot write';

------------------------------------------------------------------------------
-- Core's names win: PostgreSQL 17 has uuid_extract_timestamp(uuid) and
-- uuid_extract_version(uuid) in pg_catalog, 18 also uuidv7() and
-- uuidv7(interval). crid--0.1.0.sql creates crid's own under these names,
-- for the majors without them; on a major with them, crid's (in crid's
-- schema, behind pg_catalog on the search path) are dropped here, so no
-- search_path makes a call reach crid's instead of core's. Only a function
-- something outside crid depends on stays (a DEFAULT, CHECK or view made on
-- an older major and carried over by pg_upgrade): dropping it would fail,
-- and it does what it did. A NOTICE names it and what depends on it.
------------------------------------------------------------------------------
DO $$
DECLARE
    f record;
    users pg_catalog.text;
BEGIN
    FOR f IN
        SELECT p.oid, pg_catalog.format('%I.%I(%s)'::pg_catalog.text, n.nspname, p.proname,
                                        pg_catalog.pg_get_function_identity_arguments(p.oid)) AS name
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
          JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
                                     AND d.objid OPERATOR(pg_catalog.=) p.oid
                                     AND d.deptype OPERATOR(pg_catalog.=) 'e'::pg_catalog."char"
          JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                                        AND e.extname OPERATOR(pg_catalog.=) 'crid'::pg_catalog.name
         WHERE p.proname OPERATOR(pg_catalog.=) ANY (ARRAY['uuidv7', 'uuid_extract_timestamp',
                                                           'uuid_extract_version']::pg_catalog.name[])
           AND p.pronamespace OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace
           AND EXISTS (SELECT FROM pg_catalog.pg_proc c
                        WHERE c.pronamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace
                          AND c.proname OPERATOR(pg_catalog.=) p.proname
                          AND c.proargtypes OPERATOR(pg_catalog.=) p.proargtypes)
         ORDER BY 2
    LOOP
        SELECT pg_catalog.string_agg(pg_catalog.pg_describe_object(u.classid, u.objid, u.objsubid), ', '::pg_catalog.text
                                     ORDER BY pg_catalog.pg_describe_object(u.classid, u.objid, u.objsubid))
          INTO users
          FROM pg_catalog.pg_depend u
         WHERE u.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND u.refobjid OPERATOR(pg_catalog.=) f.oid AND u.deptype OPERATOR(pg_catalog.<>) 'e'::pg_catalog."char";
        IF users IS NULL THEN
            EXECUTE 'DROP FUNCTION '::pg_catalog.text OPERATOR(pg_catalog.||) f.name;
        ELSE
            RAISE NOTICE 'crid keeps %, which core also has: % depends on it', f.name, users;
        END IF;
    END LOOP;
END $$;

------------------------------------------------------------------------------
-- Multi-writer replication: crid's own tables describe the server they are
-- on, and never travel; crid_check() names every misconfiguration it sees
------------------------------------------------------------------------------

-- crid's own tables: this server's registry rows, node leases, the
-- registry's memory of its table, eviction horizons, backfill progress.
CREATE FUNCTION crid_own_tables() RETURNS regclass[]
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
SELECT coalesce(array_agg(c.oid::regclass ORDER BY c.relname), '{}')
FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.objid
WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_extension'::regclass
  AND d.deptype = 'e' AND c.relkind IN ('r', 'p')
  AND d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'crid')
$$;
COMMENT ON FUNCTION crid_own_tables() IS
    'the tables of the crid extension: they describe this server and must not be replicated';

-- A row of these tables that replication brings from another server (an
-- apply worker of a subscription or of pglogical, anything replaying changes
-- under a replication origin) is that server's registry reservation, lease,
-- or progress. Applied here it collides with this server's own row of the
-- same key (insert_exists, which stops the subscription) or overwrites it,
-- so it is skipped. The trigger is ENABLE ALWAYS: apply workers run with
-- session_replication_role = replica, where ordinary triggers do not fire
-- (and history loaded by hand under replica, without an origin, still goes
-- in). crid_check() names the publication that sends such rows.
CREATE FUNCTION crid_local_only() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_replication_origin_session_is_setup() THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION crid_local_only() IS
    'row trigger of crid''s own tables: skips rows that logical replication brings from another server';
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_allocations ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_node_leases
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_node_leases ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_node_lease_state
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_node_lease_state ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_node_lease_ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_node_lease_ledger ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_registry_state
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_registry_state ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_evictions
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_evictions ENABLE ALWAYS TRIGGER crid_local_only;
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_backfill_state
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_backfill_state ENABLE ALWAYS TRIGGER crid_local_only;

-- The command that takes crid's own tables out of a publication and keeps
-- every other table it publishes; NULL when it publishes none of them.
--   FOR ALL TABLES: such a publication cannot leave a table out, so it is
--     made again in one transaction, with its name, options and owner, for
--     the tables it publishes now but crid's (partitioned tables by their
--     root, so their new partitions keep being published).
--   TABLES IN SCHEMA of a schema crid's tables are in: that schema is
--     dropped from it and its other tables are added by name.
--   crid's tables named in it: they are dropped from it.
-- Subscribers keep their subscription: it names the publication, which
-- exists again when the transaction commits.
CREATE FUNCTION crid_publication_fix(publication oid) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    own regclass[] := @extschema@.crid_own_tables();
    p record;
    options text;
    tables text;
    steps text[] := '{}';
    s record;
BEGIN
    IF publication IS NULL THEN
        RAISE EXCEPTION 'crid_publication_fix: publication must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT x.oid, x.pubname, x.pubowner, x.puballtables, x.pubinsert, x.pubupdate, x.pubdelete, x.pubtruncate,
           x.pubviaroot, to_jsonb(x) ->> 'pubgencols' AS pubgencols
      INTO p FROM pg_catalog.pg_publication x WHERE x.oid = publication;
    IF NOT FOUND OR NOT EXISTS (
        SELECT FROM pg_catalog.pg_publication_tables t
        JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
        JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
        WHERE t.pubname = p.pubname AND c.oid = ANY (own)) THEN
        RETURN NULL;
    END IF;

    IF p.puballtables THEN
        SELECT string_agg(r::text, ', ' ORDER BY r::text) INTO tables
        FROM (SELECT DISTINCT coalesce(pg_catalog.pg_partition_root(c.oid), c.oid)::regclass AS r
              FROM pg_catalog.pg_publication_tables t
              JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
              JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
              WHERE t.pubname = p.pubname AND c.oid <> ALL (own)) kept;
        options := format('publish = %L, publish_via_partition_root = %s',
                          array_to_string(ARRAY[CASE WHEN p.pubinsert THEN 'insert' END,
                                                CASE WHEN p.pubupdate THEN 'update' END,
                                                CASE WHEN p.pubdelete THEN 'delete' END,
                                                CASE WHEN p.pubtruncate THEN 'truncate' END], ', '),
                          CASE WHEN p.pubviaroot THEN 'true' ELSE 'false' END);
        -- PostgreSQL 18 can publish stored generated columns.
        IF p.pubgencols IN ('s', 'true') THEN
            options := options || ', publish_generated_columns = stored';
        END IF;
        RETURN format('BEGIN; DROP PUBLICATION %1$I; CREATE PUBLICATION %1$I%2$s WITH (%3$s); '
                      'ALTER PUBLICATION %1$I OWNER TO %4$s; COMMIT;',
                      p.pubname, ' FOR TABLE ' || tables, options, p.pubowner::regrole);
    END IF;

    -- Schemas published whole that hold crid's tables: the schema out, its
    -- other tables in by name (those not named in the publication already).
    FOR s IN
        SELECT pn.pnnspid::regnamespace AS schema,
               (SELECT string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid::regclass::text)
                FROM pg_catalog.pg_class c
                WHERE c.relnamespace = pn.pnnspid AND c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
                  AND NOT c.relispartition AND c.oid <> ALL (own)
                  AND NOT EXISTS (SELECT FROM pg_catalog.pg_publication_rel pr
                                  WHERE pr.prpubid = p.oid AND pr.prrelid = c.oid)) AS others
        FROM pg_catalog.pg_publication_namespace pn
        WHERE pn.pnpubid = p.oid
          AND EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.relnamespace = pn.pnnspid AND c.oid = ANY (own))
        ORDER BY 1::text
    LOOP
        steps := steps || format('ALTER PUBLICATION %I DROP TABLES IN SCHEMA %s;', p.pubname, s.schema);
        IF s.others IS NOT NULL THEN
            steps := steps || format('ALTER PUBLICATION %I ADD TABLE %s;', p.pubname, s.others);
        END IF;
    END LOOP;
    SELECT string_agg(pr.prrelid::regclass::text, ', ' ORDER BY pr.prrelid::regclass::text) INTO tables
    FROM pg_catalog.pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = ANY (own);
    IF tables IS NOT NULL THEN
        steps := steps || format('ALTER PUBLICATION %I DROP TABLE %s;', p.pubname, tables);
    END IF;
    IF cardinality(steps) = 1 THEN
        RETURN steps[1];
    END IF;
    RETURN 'BEGIN; ' || array_to_string(steps, ' ') || ' COMMIT;';
END
$$;
COMMENT ON FUNCTION crid_publication_fix(oid) IS
    'the command that keeps crid''s own tables out of a publication and keeps what else it publishes; NULL when it carries none';
-- The registry's clock against this server's at the block reserver's last
-- reservation, and the skew the fleet allows: crid_check() reports a member
-- whose clock is off.
CREATE FUNCTION crid_registry_clock(
    OUT offset_ms bigint, OUT uncertainty_ms bigint, OUT max_skew_ms integer, OUT measured_at timestamptz,
    OUT registry_table text, OUT state_table text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'crid_registry_clock'
    LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1;
COMMENT ON FUNCTION crid_registry_clock() IS
    'the registry''s clock minus this server''s at the block reserver''s last reservation, the skew the fleet allows, and where that is kept on the registry';

-- Every misconfiguration crid can see from this server and database, one row
-- each: problem (a fixed word, for scripts), object (what it is about),
-- detail (what is wrong and what it breaks) and fix (the command that fixes
-- it; a comment after it says what else to do, such as a restart). No rows:
-- nothing crid can see is wrong.
CREATE FUNCTION crid_check(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    own regclass[] := @extschema@.crid_own_tables();
    r record;
    stats jsonb;
    st record;
    clock record;
    skew_needed bigint;
    remote boolean;
    node_setting text;
    registry_table regclass;
    repair text;
BEGIN
    -- crid's tables in a publication: a subscriber would apply this
    -- server's registry rows and leases over its own.
    FOR r IN
        SELECT p.oid, p.pubname::text AS pubname, p.puballtables,
               string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid::regclass::text) AS carried
        FROM pg_catalog.pg_publication p
        JOIN pg_catalog.pg_publication_tables t ON t.pubname = p.pubname
        JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
        JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
        WHERE c.oid = ANY (own)
        GROUP BY p.oid, p.pubname, p.puballtables
        ORDER BY p.pubname
    LOOP
        problem := 'publication';
        object := r.pubname;
        detail := format('publication %I%s publishes crid''s own tables (%s): their rows describe this server, and a '
                         'subscriber that applies them collides with its own (insert_exists stops its subscription) '
                         'or overwrites them; crid 0.3.0 and later skips them on the subscriber',
                         r.pubname, CASE WHEN r.puballtables THEN ' (FOR ALL TABLES)' ELSE '' END, r.carried);
        fix := @extschema@.crid_publication_fix(r.oid);
        RETURN NEXT;
    END LOOP;

    -- A subscription of this database that receives them: the publisher's
    -- publication is to be fixed, then the subscription refreshed.
    FOR r IN
        SELECT s.subname::text AS subname,
               string_agg(sr.srrelid::regclass::text, ', ' ORDER BY sr.srrelid::regclass::text) AS carried
        FROM pg_catalog.pg_subscription s
        JOIN pg_catalog.pg_subscription_rel sr ON sr.srsubid = s.oid
        WHERE s.subdbid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
          AND sr.srrelid = ANY (own)
        GROUP BY s.subname
        ORDER BY s.subname
    LOOP
        problem := 'subscription';
        object := r.subname;
        detail := format('subscription %I receives crid''s own tables (%s) from its publisher, whose rows crid skips '
                         'here; first take them out of the publication on the publisher (its crid_check() names the '
                         'command), then refresh the subscription', r.subname, r.carried);
        fix := format('ALTER SUBSCRIPTION %I REFRESH PUBLICATION WITH (copy_data = false)', r.subname);
        RETURN NEXT;
    END LOOP;

    -- pglogical (PostgreSQL 15's multi-writer replication): its replication
    -- sets name tables one by one, replication_set_add_all_tables included.
    FOR r IN
        SELECT e.extnamespace::regnamespace::text AS schema FROM pg_catalog.pg_extension e WHERE e.extname = 'pglogical'
    LOOP
        FOR st IN EXECUTE format(
            'SELECT s.set_name::text AS set_name, string_agg(t.set_reloid::regclass::text, '', '' '
            '       ORDER BY t.set_reloid::regclass::text) AS carried, '
            '       string_agg(format(''SELECT %%s.replication_set_remove_table(%%L, %%L);'', $2, s.set_name, '
            '                         t.set_reloid::regclass::text), '' '' ORDER BY t.set_reloid::regclass::text) AS fix '
            'FROM %1$s.replication_set_table t JOIN %1$s.replication_set s ON s.set_id = t.set_id '
            'WHERE t.set_reloid::oid = ANY ($1::oid[]) GROUP BY s.set_name ORDER BY s.set_name', r.schema)
            USING own, r.schema
        LOOP
            problem := 'replication_set';
            object := st.set_name;
            detail := format('pglogical replication set %I replicates crid''s own tables (%s): their rows describe '
                             'this server; subscribers with crid 0.3.0 and later skip them, others collide or '
                             'overwrite their own', st.set_name, st.carried);
            fix := st.fix;
            RETURN NEXT;
        END LOOP;
    END LOOP;

    -- The trigger that skips replicated rows, on each of crid's tables.
    FOR r IN
        SELECT o.rel, t.tgenabled
        FROM unnest(own) o(rel)
        LEFT JOIN pg_catalog.pg_trigger t ON t.tgrelid = o.rel AND t.tgname = 'crid_local_only'
        WHERE t.tgenabled IS DISTINCT FROM 'A'
        ORDER BY o.rel::text
    LOOP
        problem := 'local_only_trigger';
        object := r.rel::text;
        detail := format('the trigger crid_local_only of %s is %s: rows that logical replication brings from another '
                         'server would be applied to it', r.rel,
                         CASE r.tgenabled WHEN 'D' THEN 'disabled' WHEN NULL THEN 'missing'
                                          ELSE 'not ENABLE ALWAYS (apply workers do not fire it)' END);
        fix := CASE WHEN r.tgenabled IS NULL
                    THEN format('CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW '
                                'EXECUTE FUNCTION %s.crid_local_only(); ', r.rel,
                                (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                                 WHERE e.extname = 'crid'))
                    ELSE '' END
               || format('ALTER TABLE %s ENABLE ALWAYS TRIGGER crid_local_only', r.rel);
        RETURN NEXT;
    END LOOP;

    -- Everything below is the state of this server's generators and block
    -- reserver, which exist only where crid is preloaded.
    SELECT jsonb_object_agg(s.family || '.' || s.metric, s.value) INTO stats
    FROM @extschema@.crid_stats() s WHERE s.node IS NULL OR s.node < 0;
    IF stats IS NULL THEN
        -- Not preloaded: column DEFAULTs that mint snowflake or crid ids fail.
        SELECT string_agg(format('%s.%I', a.adrelid::regclass, att.attname), ', '
                          ORDER BY a.adrelid::regclass::text, att.attname) INTO detail
        FROM pg_catalog.pg_attrdef a
        JOIN pg_catalog.pg_attribute att ON att.attrelid = a.adrelid AND att.attnum = a.adnum
        JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = a.oid
             AND d.refclassid = 'pg_catalog.pg_proc'::regclass
        JOIN pg_catalog.pg_proc f ON f.oid = d.refobjid AND f.proname IN ('snowflake_next', 'crid_next')
             AND f.pronamespace = (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'crid');
        IF detail IS NOT NULL THEN
            problem := 'not_preloaded';
            object := 'shared_preload_libraries';
            detail := format('crid is not in shared_preload_libraries, so snowflake_next() and crid_next() refuse, '
                             'and the column DEFAULTs that call them fail: %s', detail);
            fix := format('ALTER SYSTEM SET shared_preload_libraries = %L; -- then restart the server',
                          concat_ws(', ', nullif(pg_catalog.current_setting('shared_preload_libraries'), ''), 'crid'));
            RETURN NEXT;
        END IF;
        RETURN;
    END IF;

    IF (stats ->> 'snowflake.layout_changed')::bigint = 1 THEN
        problem := 'layout_changed';
        object := 'crid.snowflake_*';
        detail := 'the snowflake layout settings changed since ids were minted, and snowflake_next() refuses until '
                  'the change is accepted (or the old settings are back and the server restarted)';
        fix := 'SELECT crid_accept_layout()';
        RETURN NEXT;
    END IF;
    -- A damaged mark is replaced with a time no earlier than this server's
    -- newest id: the mark ran up to half crid.clock_borrow_ms ahead of the
    -- ids, so that much past now covers them unless the clock went back.
    repair := format('SELECT crid_reset_high_water(now() + interval %L)',
                     (SELECT g.setting::bigint / 2 FROM pg_catalog.pg_settings g
                      WHERE g.name = 'crid.clock_borrow_ms') || ' ms');
    IF (stats ->> 'snowflake.high_water_damaged')::bigint = 1 OR (stats ->> 'uuidv7.high_water_damaged')::bigint = 1 THEN
        problem := 'high_water_damaged';
        object := 'crid_high_water';
        detail := 'the high-water mark file crid_high_water is damaged or unreadable, and snowflake_next() and '
                  'server-ordered UUIDv7 refuse until it is replaced with a time no earlier than this server''s '
                  'newest id (later than the fix''s if the clock went back), or the file restored and the server '
                  'restarted; the fix replaces crid_registry_mark too';
        fix := repair;
        RETURN NEXT;
    END IF;
    IF (stats ->> 'crid.registry_mark_damaged')::bigint = 1 THEN
        problem := 'registry_mark_damaged';
        object := 'crid_registry_mark';
        detail := 'the registry mark file crid_registry_mark is damaged or unreadable, and crid_next() refuses until '
                  'it is replaced with a time no earlier than this server''s newest id (later than the fix''s if the '
                  'clock went back), or the file restored and the server restarted; the fix replaces crid_high_water '
                  'too';
        fix := repair;
        RETURN NEXT;
    END IF;

    SELECT s.* INTO st FROM @extschema@.crid_registry_status() s;
    remote := coalesce(st.remote, false);
    node_setting := (SELECT g.reset_val FROM pg_catalog.pg_settings g WHERE g.name = 'crid.node_id');

    -- A static node another live server of the fleet holds (a leasing
    -- server takes whatever node is free).
    IF (stats ->> 'snowflake.lease_refused')::bigint = 1 AND node_setting IS DISTINCT FROM 'lease' THEN
        problem := 'node_held_elsewhere';
        object := CASE WHEN node_setting ~ '^[0-9]+$' THEN 'crid.node_id' ELSE 'crid.snowflake_nodes' END;
        detail := format('this server does not mint on a node it is set to: %s',
                         coalesce(st.lease_problem, 'another live server holds it'));
        fix := CASE WHEN node_setting ~ '^[0-9]+$'
                    THEN 'ALTER SYSTEM SET crid.node_id = ''lease''; SELECT pg_reload_conf();'
                    ELSE 'ALTER SYSTEM SET crid.snowflake_nodes = ''...''; SELECT pg_reload_conf(); '
                         '-- nodes no other server holds' END;
        RETURN NEXT;
    END IF;

    -- The registry, as the block reserver last saw it (a damaged registry
    -- mark, above, keeps it failing too).
    IF st.state IN ('unreachable', 'failing', 'no_extension', 'no_database', 'bad_table', 'outdated')
       AND NOT (st.state = 'failing' AND (stats ->> 'crid.registry_mark_damaged')::bigint = 1) THEN
        problem := 'registry';
        object := st.registry;
        detail := format('crid''s block reserver cannot use %s (%s)%s: crid_next() serves what it holds and then '
                         'refuses%s', st.registry, st.state, coalesce(': ' || st.detail, ''),
                         CASE WHEN remote THEN ', and snowflake node leases lapse' ELSE '' END);
        fix := CASE st.state
               WHEN 'no_database' THEN format('CREATE DATABASE %I',
                                              pg_catalog.current_setting('crid.registry_database'))
               WHEN 'no_extension' THEN CASE WHEN remote
                   THEN 'CREATE EXTENSION crid; -- on the registry server, in the database crid.registry names'
                   ELSE format('CREATE EXTENSION crid; -- in database %I',
                               pg_catalog.current_setting('crid.registry_database')) END
               WHEN 'outdated' THEN 'ALTER EXTENSION crid UPDATE; -- on the registry server'
               WHEN 'bad_table' THEN 'ALTER SYSTEM SET crid.registry_table = ''''; -- or name a registry table '
                                     '(ts bigint PRIMARY KEY, next_seq bigint NOT NULL); then restart the server'
               ELSE CASE WHEN remote
                   THEN 'ALTER SYSTEM SET crid.registry = ''...''; -- if crid.registry does not name the registry '
                        'server; then restart. Otherwise start the registry server, or let its host be reached'
                   ELSE 'ALTER SYSTEM SET crid.registry_database = ''...''; -- then restart the server' END
               END;
        RETURN NEXT;
    END IF;

    -- This server's clock against the registry's, as the block reserver
    -- measured it at its last reservation: more than half the skew the fleet
    -- allows, even allowing for the measurement's own uncertainty. A member
    -- ahead reserves crid blocks by the registry's clock, but mints snowflake
    -- and UUIDv7 ids by its own, and the next holder of a node it leaves
    -- starts above them.
    SELECT c.* INTO clock FROM @extschema@.crid_registry_clock() c;
    IF clock.offset_ms IS NOT NULL AND abs(clock.offset_ms) - clock.uncertainty_ms > clock.max_skew_ms / 2.0 THEN
        problem := 'clock_skew';
        object := 'clock';
        detail := format('this server''s clock is %s ms %s the clock of %s (measured to within %s ms at a block '
                         'reservation %s s ago), %s the %s ms of skew the fleet allows (max_skew_ms of %s there): %s',
                         abs(clock.offset_ms), CASE WHEN clock.offset_ms < 0 THEN 'ahead of' ELSE 'behind' END,
                         st.registry, clock.uncertainty_ms,
                         round(extract(epoch FROM pg_catalog.clock_timestamp() - clock.measured_at)),
                         CASE WHEN abs(clock.offset_ms) - clock.uncertainty_ms > clock.max_skew_ms
                              THEN 'more than' ELSE 'over half of' END,
                         clock.max_skew_ms, coalesce(clock.state_table, 'crid_registry_state'),
                         CASE WHEN clock.offset_ms < 0
                              THEN 'snowflake and UUIDv7 ids minted here run that far ahead of the fleet''s, and '
                                   'the next server to hold a snowflake node this one leaves must mint above them'
                              ELSE 'ids minted here name times that far in the past of the fleet''s' END);
        -- Enough skew that this offset is at most half of it.
        skew_needed := ceil((abs(clock.offset_ms) + clock.uncertainty_ms) * 2 / 1000.0) * 1000;
        fix := CASE WHEN skew_needed <= 60000 AND clock.state_table IS NOT NULL
                    THEN format('UPDATE %s SET max_skew_ms = %s WHERE registry = %L; -- on the registry server, '
                                'at the price of a longer pause after the registry changes; or better, ',
                                clock.state_table, skew_needed, clock.registry_table)
                    ELSE '-- ' END
               || 'sync the clocks of this server and of the registry''s hosts with NTP (chronyc makestep)';
        RETURN NEXT;
    END IF;

    -- DEFAULT snowflake_next() with no node to mint on.
    IF node_setting = '-1' THEN
        SELECT string_agg(format('%s.%I', a.adrelid::regclass, att.attname), ', '
                          ORDER BY a.adrelid::regclass::text, att.attname) INTO detail
        FROM pg_catalog.pg_attrdef a
        JOIN pg_catalog.pg_attribute att ON att.attrelid = a.adrelid AND att.attnum = a.adnum
        JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.objid = a.oid
             AND d.refclassid = 'pg_catalog.pg_proc'::regclass
        WHERE d.refobjid = '@extschema@.snowflake_next()'::regprocedure;
        IF detail IS NOT NULL THEN
            problem := 'node_unset';
            object := 'crid.node_id';
            detail := format('crid.node_id is not set, so snowflake_next() refuses, and the column DEFAULTs that '
                             'call it fail: %s', detail);
            fix := CASE WHEN remote
                        THEN 'ALTER SYSTEM SET crid.node_id = ''lease''; SELECT pg_reload_conf();'
                        ELSE 'ALTER SYSTEM SET crid.node_id = 0; SELECT pg_reload_conf(); '
                             '-- a node no other server mints on' END;
            RETURN NEXT;
        END IF;
    END IF;

    -- A registry table of this database (crid.registry_table) without the
    -- trigger that checks every reservation, the plain upsert of Go
    -- services included.
    BEGIN
        registry_table := @extschema@.crid_registry_table();
    EXCEPTION WHEN OTHERS THEN
        registry_table := NULL; -- not a registry here; the reserver's state says what is wrong
    END;
    IF registry_table IS NOT NULL AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_trigger t
        WHERE t.tgrelid = registry_table AND t.tgenabled <> 'D'
          AND t.tgfoid = '@extschema@.crid_registry_guard()'::regprocedure) THEN
        problem := 'registry_unguarded';
        object := registry_table::text;
        detail := format('the registry table %s has no enabled crid_registry_guard trigger: a registry that went '
                         'backwards can make clients that write it directly (Go services'' plain upsert) reissue ids',
                         registry_table);
        SELECT format('ALTER TABLE %s ENABLE TRIGGER %I', registry_table, t.tgname) INTO fix
        FROM pg_catalog.pg_trigger t
        WHERE t.tgrelid = registry_table AND t.tgfoid = '@extschema@.crid_registry_guard()'::regprocedure
        ORDER BY t.tgname LIMIT 1;
        fix := coalesce(fix, format('CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON %s FOR EACH ROW '
                                    'EXECUTE FUNCTION %s.crid_registry_guard()', registry_table,
                                    (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                                     WHERE e.extname = 'crid')));
        RETURN NEXT;
    END IF;

    -- A key of public ids for a role that was dropped (DROP ROLE does not
    -- see keys): only superusers may use it, and a dump names its role by a
    -- number, which a restore hands to whatever role has that number there.
    -- Only a caller who may read the keys sees this.
    IF pg_catalog.has_table_privilege('@extschema@.crid_public_id_keys'::regclass, 'SELECT') THEN
        FOR r IN
            SELECT k.key_id, k.usable_by::oid AS role_oid
            FROM @extschema@.crid_public_id_keys k
            WHERE k.retired_at IS NULL
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles a WHERE a.oid = k.usable_by::oid)
            ORDER BY k.key_id
        LOOP
            problem := 'key_role_dropped';
            object := format('key %s', r.key_id);
            detail := format('key %s of public ids serves role %s, which no longer exists: only superusers may use '
                             'the key, and a restore of a dump gives it to whichever role has that number there',
                             r.key_id, r.role_oid);
            fix := format('UPDATE %s.crid_public_id_keys SET usable_by = ... WHERE key_id = %s; -- the role that '
                          'serves its faces now; or SET retired_at = now() to retire it',
                          (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e
                           WHERE e.extname = 'crid'), r.key_id);
            RETURN NEXT;
        END LOOP;
    END IF;
END
$$;
COMMENT ON FUNCTION crid_check() IS
    'every misconfiguration crid can see on this server and database, one row each: what, where, why, and the command that fixes it';

-- Says so at once when a publication or subscription is made or changed to
-- carry crid's own tables: a WARNING per problem, the fix as its HINT.
CREATE FUNCTION crid_replication_warning() RETURNS event_trigger
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT k.* FROM @extschema@.crid_check() k
        WHERE (k.problem = 'publication' AND k.object IN (
                   SELECT p.pubname::text FROM pg_catalog.pg_event_trigger_ddl_commands() d
                   JOIN pg_catalog.pg_publication p ON p.oid = d.objid
                   WHERE d.classid = 'pg_catalog.pg_publication'::regclass))
           OR (k.problem = 'subscription' AND k.object IN (
                   SELECT s.subname::text FROM pg_catalog.pg_event_trigger_ddl_commands() d
                   JOIN pg_catalog.pg_subscription s ON s.oid = d.objid
                   WHERE d.classid = 'pg_catalog.pg_subscription'::regclass))
    LOOP
        RAISE WARNING 'crid: %', c.detail USING HINT = 'Run: ' || c.fix;
    END LOOP;
-- A check that cannot run (a role that may not read what it reads, crid
-- not preloaded) must not fail the user's own DDL: it says so instead.
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'crid: could not check the replication of crid''s own tables: %', SQLERRM
        USING HINT = 'Run SELECT * FROM crid_check() as a superuser.';
END
$$;
COMMENT ON FUNCTION crid_replication_warning() IS
    'event trigger: a WARNING when a publication or subscription carries crid''s own tables';
CREATE EVENT TRIGGER crid_replication_warning ON ddl_command_end
    WHEN TAG IN ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'CREATE SUBSCRIPTION', 'ALTER SUBSCRIPTION')
    EXECUTE FUNCTION @extschema@.crid_replication_warning();

------------------------------------------------------------------------------
-- Partitions by time of a table partitioned by RANGE on its id
-- (docs/partitions.md): made ahead, the default partition emptied into
-- them, old ones detached or dropped. Bounds are the first ids of each
-- interval, from the exact bound functions of queries by time. All run
-- with their caller's rights, on the caller's tables.
------------------------------------------------------------------------------

-- The interval of one partition, as date_trunc names it: 1 hour, 1 day,
-- 1 week (7 days, from Monday) or 1 month, each from its start in UTC; any
-- other is ERROR 22023. Only these exact fields are taken: '24 hours' and
-- '30 days' are refused rather than guessed at (PostgreSQL compares them equal
-- to 1 day and 1 month).
CREATE FUNCTION crid_partition_step_unit(step interval) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    months numeric := extract(year FROM step) * 12 + extract(month FROM step);
    days numeric := extract(day FROM step);
    seconds numeric := extract(hour FROM step) * 3600 + extract(minute FROM step) * 60 + extract(second FROM step);
BEGIN
    IF months = 0 AND days = 0 AND seconds = 3600 THEN
        RETURN 'hour';
    ELSIF months = 0 AND days = 1 AND seconds = 0 THEN
        RETURN 'day';
    ELSIF months = 0 AND days = 7 AND seconds = 0 THEN
        RETURN 'week';
    ELSIF months = 1 AND days = 0 AND seconds = 0 THEN
        RETURN 'month';
    END IF;
    RAISE EXCEPTION 'crid partitions: a partition''s interval is 1 hour, 1 day, 1 week or 1 month, not %', step
        USING ERRCODE = '22023';
END
$$;
-- What crid's partition functions see in a table: its partition key column,
-- the key's type, the family of ids it holds and, for snowflake keys, the
-- canonical layout. Every partition function starts here, so a table crid
-- cannot partition by time is refused before anything is read or made:
--
--   42809  not a partitioned table, or not partitioned by RANGE on one plain
--          column in the type's default B-tree order (then the order of the
--          partitions would not be the order of the ids)
--   42804  a key of another type than uuid or bigint, or of another family
--          than the one asked for (a uuid key for snowflake, a DEFAULT that
--          mints crid ids for snowflake, ...)
--   22023  an unknown family, a layout for a family other than snowflake, a
--          bigint key whose family neither its DEFAULT nor the caller names,
--          a layout whose time may use the sign bit (bigint order is not time
--          order there)
--
-- The family of a bigint key comes from its DEFAULT: snowflake_next or
-- crid_next of crid's schema (read from the DEFAULT's dependencies, not its
-- text). A layout given makes the family snowflake.
CREATE FUNCTION crid_partition_key(parent regclass, family text DEFAULT NULL, layout text DEFAULT NULL,
                                   OUT key_column name, OUT key_type regtype, OUT key_family text,
                                   OUT key_layout text)
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel record;
    minted text[];   -- crid's generators the key's DEFAULT calls
    asked text := pg_catalog.lower(family);
BEGIN
    IF parent IS NULL THEN
        RAISE EXCEPTION 'crid_partition_key: parent must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind, p.partstrat, p.partnatts, p.partattrs[0] AS attnum, p.partclass[0] AS opclass
      INTO rel
      FROM pg_catalog.pg_class c
      LEFT JOIN pg_catalog.pg_partitioned_table p ON p.partrelid OPERATOR(pg_catalog.=) c.oid
     WHERE c.oid OPERATOR(pg_catalog.=) parent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crid_partition_key: no relation with OID %', parent::oid USING ERRCODE = '42P01';
    END IF;
    IF rel.relkind OPERATOR(pg_catalog.<>) 'p' THEN
        RAISE EXCEPTION 'crid_partition_key: % is not a partitioned table', parent
            USING ERRCODE = '42809',
                  HINT = 'crid makes the partitions of a table created with PARTITION BY RANGE (id), id its uuid or bigint key.';
    END IF;
    IF rel.partstrat OPERATOR(pg_catalog.<>) 'r' OR rel.partnatts OPERATOR(pg_catalog.<>) 1
       OR rel.attnum OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'crid_partition_key: % is partitioned by %, not by RANGE on one column', parent,
                        pg_catalog.pg_get_partkeydef(parent)
            USING ERRCODE = '42809',
                  HINT = 'crid makes the partitions of a table created with PARTITION BY RANGE (id), id its uuid or bigint key.';
    END IF;
    SELECT a.attname, a.atttypid::regtype,
           pg_catalog.array_agg(DISTINCT pr.proname::text) FILTER (WHERE pr.proname IS NOT NULL)
      INTO key_column, key_type, minted
      FROM pg_catalog.pg_attribute a
      LEFT JOIN pg_catalog.pg_attrdef ad
             ON ad.adrelid OPERATOR(pg_catalog.=) a.attrelid AND ad.adnum OPERATOR(pg_catalog.=) a.attnum
      LEFT JOIN pg_catalog.pg_depend dep
             ON dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_attrdef'::pg_catalog.regclass
            AND dep.objid OPERATOR(pg_catalog.=) ad.oid
            AND dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
      LEFT JOIN pg_catalog.pg_proc pr
             ON pr.oid OPERATOR(pg_catalog.=) dep.refobjid
            AND pr.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
            AND pr.proname OPERATOR(pg_catalog.=) ANY (ARRAY['snowflake_next', 'crid_next']::name[])
     WHERE a.attrelid OPERATOR(pg_catalog.=) parent AND a.attnum OPERATOR(pg_catalog.=) rel.attnum
     GROUP BY a.attname, a.atttypid;
    IF key_type NOT IN ('pg_catalog.uuid'::pg_catalog.regtype, 'pg_catalog.int8'::pg_catalog.regtype) THEN
        RAISE EXCEPTION 'crid_partition_key: the partition key %.% is %, not uuid or bigint', parent,
                        pg_catalog.quote_ident(key_column), key_type
            USING ERRCODE = '42804',
                  HINT = 'Partition by the id itself: uuid for UUIDv7 keys, bigint for snowflake and crid keys.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_opclass o
                    WHERE o.oid OPERATOR(pg_catalog.=) rel.opclass AND o.opcdefault
                      AND o.opcmethod OPERATOR(pg_catalog.=) (SELECT am.oid FROM pg_catalog.pg_am am
                                                               WHERE am.amname OPERATOR(pg_catalog.=) 'btree')) THEN
        RAISE EXCEPTION 'crid_partition_key: % is partitioned by %, not in the default order of %', parent,
                        pg_catalog.pg_get_partkeydef(parent), key_type
            USING ERRCODE = '42809';
    END IF;

    IF asked IS NOT NULL AND asked NOT IN ('uuidv7', 'snowflake', 'crid') THEN
        RAISE EXCEPTION 'crid_partition_key: unknown family "%"', family
            USING ERRCODE = '22023', HINT = 'The families are uuidv7, snowflake and crid.';
    END IF;
    IF layout IS NOT NULL AND asked IS DISTINCT FROM 'snowflake' THEN
        IF asked IS NOT NULL THEN
            RAISE EXCEPTION 'crid_partition_key: a layout is for snowflake keys, not %', asked USING ERRCODE = '22023';
        END IF;
        asked := 'snowflake';
    END IF;

    IF key_type OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype THEN
        IF asked IS DISTINCT FROM 'uuidv7' AND asked IS NOT NULL THEN
            RAISE EXCEPTION 'crid_partition_key: the key %.% is a uuid, not a % id', parent,
                            pg_catalog.quote_ident(key_column), asked
                USING ERRCODE = '42804';
        END IF;
        key_family := 'uuidv7';
    ELSE
        IF asked OPERATOR(pg_catalog.=) 'uuidv7' THEN
            RAISE EXCEPTION 'crid_partition_key: the key %.% is a bigint, not a UUIDv7', parent,
                            pg_catalog.quote_ident(key_column)
                USING ERRCODE = '42804';
        END IF;
        IF pg_catalog.cardinality(minted) OPERATOR(pg_catalog.=) 1 THEN
            key_family := CASE minted[1] WHEN 'snowflake_next' THEN 'snowflake' ELSE 'crid' END;
            IF asked IS NOT NULL AND asked OPERATOR(pg_catalog.<>) key_family THEN
                RAISE EXCEPTION 'crid_partition_key: the DEFAULT of %.% mints % ids, not % ids', parent,
                                pg_catalog.quote_ident(key_column), key_family, asked
                    USING ERRCODE = '42804';
            END IF;
        ELSIF asked IS NULL THEN
            RAISE EXCEPTION 'crid_partition_key: cannot tell which ids %.% holds', parent,
                            pg_catalog.quote_ident(key_column)
                USING ERRCODE = '22023',
                      DETAIL = 'Its DEFAULT calls neither snowflake_next nor crid_next of crid.',
                      HINT = 'Name the family: family => ''snowflake'' (with layout => ... for another layout than the server''s) or family => ''crid''.';
        ELSE
            key_family := asked;
        END IF;
    END IF;

    IF key_family OPERATOR(pg_catalog.=) 'snowflake' THEN
        key_layout := CASE WHEN layout IS NULL THEN @extschema@.snowflake_layout()
                           ELSE @extschema@.snowflake_layout(layout) END;
        IF key_layout OPERATOR(pg_catalog.~) '(^|,)sign=true(,|$)' THEN
            RAISE EXCEPTION 'crid_partition_key: layout "%" lets the time field use the sign bit', key_layout
                USING ERRCODE = '22023',
                      DETAIL = 'Once its time reaches bit 63 its ids are negative: bigint order is not time order, and no id range holds one time interval.',
                      HINT = 'Partition such keys by a time column, or by snowflake_to_timestamptz(id, layout) stored in a generated column.';
        END IF;
    END IF;
END
$$;
-- The bound of a partition that begins at `at`: the first id of the family
-- (and layout) whose time unit begins at or after `at`, as text (the
-- partition bound's literal). From the same exact bound functions the
-- planner hook writes for `decoder(id) >= at`, so a partition holds exactly
-- the ids whose decoded time lies in its interval, and a query by decoded
-- time prunes to exactly the partitions of its interval.
--
-- `at` must begin a time unit (ERROR 22023 otherwise): a partition boundary
-- inside a unit would put ids of one decoded time into two intervals. A time
-- before the family's first unit gives its first id; a time after its last
-- unit, NULL (no id is that late: the partition ends at MAXVALUE).
CREATE FUNCTION crid_partition_first_id(at timestamptz, family text, layout text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    first_id text;
    first_time timestamptz;  -- the time of first_id's unit
    earlier boolean;         -- an id of a unit before `at` exists
BEGIN
    IF at IS NULL OR family IS NULL THEN
        RAISE EXCEPTION 'crid_partition_first_id: at and family must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT pg_catalog.isfinite(at) THEN
        RAISE EXCEPTION 'crid_partition_first_id: % is not a finite time', at USING ERRCODE = '22008';
    END IF;
    IF layout IS NOT NULL AND family OPERATOR(pg_catalog.<>) 'snowflake' THEN
        RAISE EXCEPTION 'crid_partition_first_id: a layout is for snowflake keys, not %', family USING ERRCODE = '22023';
    END IF;
    CASE family
    WHEN 'uuidv7' THEN
        first_id := @extschema@.uuid_v7_time_bound(at, '>=')::text;
        first_time := @extschema@.uuid_v7_to_timestamptz(first_id::uuid);
        earlier := @extschema@.uuid_v7_time_bound(at, '<') IS NOT NULL;
    WHEN 'snowflake' THEN
        layout := coalesce(layout, @extschema@.snowflake_layout());
        first_id := @extschema@.snowflake_time_bound(at, '>=', layout)::text;
        first_time := @extschema@.snowflake_to_timestamptz(first_id::bigint, layout);
        earlier := @extschema@.snowflake_time_bound(at, '<', layout) IS NOT NULL;
    WHEN 'crid' THEN
        first_id := @extschema@.crid_time_bound(at, '>=')::text;
        first_time := @extschema@.crid_to_timestamptz(first_id::bigint);
        earlier := @extschema@.crid_time_bound(at, '<') IS NOT NULL;
    ELSE
        RAISE EXCEPTION 'crid_partition_first_id: unknown family "%"', family
            USING ERRCODE = '22023', HINT = 'The families are uuidv7, snowflake and crid.';
    END CASE;
    IF first_id IS NOT NULL AND earlier AND first_time OPERATOR(pg_catalog.<>) at THEN
        RAISE EXCEPTION 'crid_partition_first_id: % does not begin a time unit of the % ids', at,
                        coalesce(layout, family)
            USING ERRCODE = '22023',
                  DETAIL = pg_catalog.format('The unit holding it begins before it; the next begins at %s.', first_time),
                  HINT = 'Choose a partition interval whose boundaries are a whole number of the layout''s units from its epoch.';
    END IF;
    RETURN first_id;
END
$$;
-- The partitions of a table and their bounds, read from the catalog: from_id
-- and to_id are the literals of FOR VALUES FROM (...) TO (...), NULL for
-- MINVALUE and MAXVALUE; the default partition has is_default and no bounds.
-- The partition functions compare these with the bounds they would give a
-- partition, so a partition made before (by them or by hand, under any name)
-- is never made again.
CREATE FUNCTION crid_partition_bounds(parent regclass, OUT partition_name regclass, OUT from_id text,
                                      OUT to_id text, OUT is_default boolean)
    RETURNS SETOF record
    LANGUAGE sql STABLE STRICT SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
SELECT c.oid::regclass,
       CASE WHEN b.m[1] <> 'MINVALUE' THEN btrim(b.m[1], '''') END,
       CASE WHEN b.m[2] <> 'MAXVALUE' THEN btrim(b.m[2], '''') END,
       b.expr = 'DEFAULT'
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
 CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS expr) e
 CROSS JOIN LATERAL (SELECT e.expr, regexp_match(e.expr, '^FOR VALUES FROM \((.*)\) TO \((.*)\)$') AS m) b
 WHERE i.inhparent = parent
 ORDER BY b.expr = 'DEFAULT', c.oid::regclass::text
$$;
-- Makes the partitions of a table partitioned by RANGE on its id for every
-- interval of `step` (1 hour, 1 day, 1 week or 1 month, in UTC) from the one
-- holding `first` to the one holding `last`. Each partition's bounds are the
-- first ids of its interval and of the next (crid_partition_first_id), and
-- it is named after its parent and its interval's start: orders_p20261204
-- (orders_p2026120413 by the hour, orders_p202612 by the month).
--
-- With gene_bits > 0 each time partition is itself partitioned by HASH on
-- the id with crid's gene operator class, into 2^gene_bits partitions
-- (orders_p20261204_g0 ...): a lookup by id prunes both levels.
--
-- Rows of an interval that wait in the default partition (PostgreSQL makes
-- no partition while the default partition holds rows of its range) are
-- moved into its partition: deleted from the default partition into a
-- temporary table, and inserted through the parent once the partition is
-- made, so row triggers of DELETE and INSERT fire for them. A table that
-- foreign keys reference is refused then (ERROR 0A000): a referencing row
-- would see its row gone between the two statements, or be deleted with it
-- (ON DELETE CASCADE).
--
-- Idempotent and safe from two sessions at once: it takes SHARE UPDATE
-- EXCLUSIVE on the parent (which conflicts with itself, not with reads and
-- writes of rows), then makes only the partitions whose bounds no partition
-- has yet. Before it looks into the default partition for a partition it
-- makes, it takes SHARE ROW EXCLUSIVE on the parent, which waits for the
-- writers of rows and holds new ones off until the transaction ends (making
-- the partition takes ACCESS EXCLUSIVE then anyway): a row written between
-- the look and the CREATE would make PostgreSQL refuse the partition.
--
-- Only the parent's owner may run it (ERROR 42501 for anyone else, a
-- superuser too): moving rows runs the table's triggers, defaults and index
-- expressions, code of the owner's, which must not run with a caller's
-- greater rights, and every partition made is then the owner's. A name
-- another table holds (a partition detached earlier) gets a suffix: _1, _2. An interval that overlaps a partition with other bounds is
-- PostgreSQL's ERROR 42P17; one no id can fall in (before the epoch) is
-- skipped. Returns one row per partition made: 'created', or 'moved' with
-- the number of rows moved into it.
CREATE FUNCTION crid_partition_create(parent regclass, step interval, first timestamptz, last timestamptz,
                                      gene_bits integer DEFAULT 0, family text DEFAULT NULL,
                                      layout text DEFAULT NULL,
                                      OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;              -- crid_partition_key
    unit text;             -- date_trunc's name of the step
    stamp text;            -- to_char format of an interval's start in a name
    start_at timestamp;    -- an interval's start, UTC
    stop_at timestamp;
    last_at timestamp;
    lo text;
    hi text;
    nsp name;
    base text;             -- the parent's name, cut so that every name made fits
    part text;
    intervals integer := 0;
    modulus integer;
    empty boolean;
    default_part regclass;
    in_range text;         -- the interval's ids, as SQL
    waiting boolean;       -- the default partition holds rows of the interval
    cols text;             -- the columns a moved row is inserted with
    moved bigint;
    inserted bigint;
    write_locked boolean := false;
    taken integer;
BEGIN
    IF parent IS NULL OR step IS NULL OR first IS NULL OR last IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_create: parent, step, first, last and gene_bits must not be NULL'
            USING ERRCODE = '22004';
    END IF;
    IF NOT isfinite(first) OR NOT isfinite(last) THEN
        RAISE EXCEPTION 'crid_partition_create: first and last must be finite times' USING ERRCODE = '22008';
    END IF;
    IF last < first THEN
        RAISE EXCEPTION 'crid_partition_create: last (%) is before first (%)', last, first USING ERRCODE = '22023';
    END IF;
    IF gene_bits NOT BETWEEN 0 AND 16 THEN
        RAISE EXCEPTION 'crid_partition_create: gene_bits % is out of range 0 .. 16', gene_bits USING ERRCODE = '22003';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    IF (SELECT c.relowner FROM pg_class c WHERE c.oid = parent) <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'crid_partition_create: only the owner of % may make its partitions', parent
            USING ERRCODE = '42501',
                  DETAIL = 'Moving rows runs the table''s triggers and defaults, which must run with its owner''s rights, '
                           'and the partitions made are the owner''s.',
                  HINT = 'Run it as the owner (SET ROLE, or a pg_cron job scheduled as that role).';
    END IF;
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);

    stamp := CASE unit WHEN 'hour' THEN 'YYYYMMDDHH24' WHEN 'month' THEN 'YYYYMM' ELSE 'YYYYMMDD' END;
    modulus := (1 << gene_bits);
    -- NAMEDATALEN - 1 bytes hold a name: the parent's is cut, a character at
    -- a time, so that the suffixes fit (a stamp, a gene, a _N against a
    -- name taken) and no name made is cut by PostgreSQL instead.
    SELECT n.nspname, c.relname INTO nsp, base
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
    WHILE octet_length(base) > 63 - octet_length('_p' || stamp) - 4
                               - CASE WHEN gene_bits > 0 THEN octet_length('_g' || modulus) ELSE 0 END LOOP
        base := left(base, -1);
    END LOOP;

    SELECT nullif(p.partdefid, 0)::regclass INTO default_part
      FROM pg_partitioned_table p WHERE p.partrelid = parent;

    last_at := last AT TIME ZONE 'UTC';
    start_at := date_trunc(unit, first AT TIME ZONE 'UTC');
    WHILE start_at <= last_at LOOP
        intervals := intervals + 1;
        IF intervals > 10000 THEN
            RAISE EXCEPTION 'crid_partition_create: more than 10000 intervals of % from % to %', step, first, last
                USING ERRCODE = '54000', HINT = 'Make them in several calls, or choose a longer step.';
        END IF;
        start_at := start_at + step;
    END LOOP;
    start_at := date_trunc(unit, first AT TIME ZONE 'UTC');
    WHILE start_at <= last_at LOOP
        stop_at := start_at + step;
        lo := @extschema@.crid_partition_first_id(start_at AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        hi := @extschema@.crid_partition_first_id(stop_at AT TIME ZONE 'UTC', k.key_family, k.key_layout);
        -- An interval before the family's first id has no ids: lo = hi.
        IF hi IS NOT NULL AND lo IS NOT NULL THEN
            IF k.key_family = 'uuidv7' THEN
                empty := lo::uuid >= hi::uuid;
            ELSE
                empty := lo::bigint >= hi::bigint;
            END IF;
        ELSE
            empty := lo IS NULL;
        END IF;
        IF NOT empty
           AND NOT EXISTS (SELECT FROM @extschema@.crid_partition_bounds(parent) b
                            WHERE b.from_id = lo AND b.to_id IS NOT DISTINCT FROM hi) THEN
            part := base || '_p' || to_char(start_at, stamp);
            taken := 0;
            WHILE to_regclass(format('%I.%I', nsp, part)) IS NOT NULL
                  OR (gene_bits > 0 AND to_regclass(format('%I.%I', nsp, part || '_g0')) IS NOT NULL) LOOP
                taken := taken + 1;
                part := base || '_p' || to_char(start_at, stamp) || '_' || taken;
            END LOOP;
            in_range := format('%I >= %L', k.key_column, lo)
                        || CASE WHEN hi IS NOT NULL THEN format(' AND %I < %L', k.key_column, hi) ELSE '' END;
            waiting := false;
            IF default_part IS NOT NULL AND NOT write_locked THEN
                EXECUTE format('LOCK TABLE ONLY %s IN SHARE ROW EXCLUSIVE MODE', parent);
                write_locked := true;
            END IF;
            IF default_part IS NOT NULL THEN
                EXECUTE format('SELECT EXISTS (SELECT FROM ONLY %s WHERE %s)', default_part, in_range) INTO waiting;
            END IF;
            IF waiting THEN
                IF EXISTS (SELECT FROM pg_constraint c
                            WHERE c.contype = 'f'
                              AND c.confrelid IN (SELECT relid FROM pg_partition_tree(parent))) THEN
                    RAISE EXCEPTION 'crid_partition_create: foreign keys reference %, whose default partition % holds rows of %',
                                    parent, default_part, part
                        USING ERRCODE = '0A000',
                              HINT = 'Make the partitions of such rows before they are written, or move them yourself.';
                END IF;
                SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
                  FROM pg_attribute a
                 WHERE a.attrelid = parent AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
                IF to_regclass('pg_temp.crid_partition_moving') IS NOT NULL THEN
                    DROP TABLE pg_temp.crid_partition_moving;
                END IF;
                EXECUTE format('CREATE TEMP TABLE crid_partition_moving ON COMMIT DROP AS SELECT %s FROM ONLY %s WITH NO DATA',
                               cols, default_part);
                EXECUTE format('WITH m AS (DELETE FROM ONLY %s WHERE %s RETURNING %s) '
                               'INSERT INTO pg_temp.crid_partition_moving SELECT * FROM m',
                               default_part, in_range, cols);
                GET DIAGNOSTICS moved = ROW_COUNT;
            END IF;
            IF gene_bits = 0 THEN
                EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%s)',
                               nsp, part, parent, lo, coalesce(quote_literal(hi), 'MAXVALUE'));
            ELSE
                EXECUTE format('CREATE TABLE %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%s) PARTITION BY HASH (%I %s)',
                               nsp, part, parent, lo, coalesce(quote_literal(hi), 'MAXVALUE'), k.key_column,
                               CASE WHEN k.key_family = 'uuidv7' THEN '@extschema@.crid_gene_uuid_ops'
                                    ELSE '@extschema@.crid_gene_int8_ops' END);
                FOR g IN 0 .. modulus - 1 LOOP
                    EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
                                   nsp, part || '_g' || g, nsp, part, modulus, g);
                END LOOP;
            END IF;
            action := 'created';
            row_count := NULL;
            IF waiting THEN
                EXECUTE format('INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM pg_temp.crid_partition_moving',
                               parent, cols, cols);
                GET DIAGNOSTICS inserted = ROW_COUNT;
                IF inserted <> moved THEN
                    RAISE EXCEPTION 'crid_partition_create: % rows of % left the default partition of %, but % arrived',
                                    moved, part, parent, inserted
                        USING ERRCODE = '55000',
                              DETAIL = 'A trigger on the table skipped rows inserted into it; nothing was moved.',
                              HINT = 'Let the trigger pass rows of past times, or move these rows yourself.';
                END IF;
                DROP TABLE pg_temp.crid_partition_moving;
                action := 'moved';
                row_count := moved;
            END IF;
            partition_name := format('%I.%I', nsp, part);
            RETURN NEXT;
        END IF;
        start_at := stop_at;
    END LOOP;
END
$$;
-- Moves the rows of a table's default partition that have a time interval
-- of `step` into partitions of their own: for each interval that rows of the
-- default partition decode into, crid_partition_create makes its partition
-- and moves its rows there (foreign keys that reference the table: ERROR
-- 0A000). Ids the decoder refuses (negative ones, UUIDs of another version)
-- and ids beyond the layout stay where they are. Same lock as
-- crid_partition_create: safe from two sessions, and a second run finds
-- nothing to move. One row per interval moved.
CREATE FUNCTION crid_partition_move_default(parent regclass, step interval, gene_bits integer DEFAULT 0,
                                            family text DEFAULT NULL, layout text DEFAULT NULL,
                                            OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
    unit text;
    default_part regclass;
    decoded text;          -- the decoded time of the key, as SQL
    decodable text;        -- which keys the decoder takes, as SQL
    starts timestamp[];
    start_at timestamp;
BEGIN
    IF parent IS NULL OR step IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_move_default: parent, step and gene_bits must not be NULL' USING ERRCODE = '22004';
    END IF;
    unit := @extschema@.crid_partition_step_unit(step);
    k := @extschema@.crid_partition_key(parent, family, layout);
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    SELECT nullif(p.partdefid, 0)::regclass INTO default_part
      FROM pg_partitioned_table p WHERE p.partrelid = parent;
    IF default_part IS NULL THEN
        RETURN;
    END IF;

    CASE k.key_family
    WHEN 'uuidv7' THEN
        decoded := format('@extschema@.uuid_v7_to_timestamptz(%I)', k.key_column);
        decodable := format('substr(%1$I::text, 15, 1) = ''7'' AND substr(%1$I::text, 20, 1) IN (''8'', ''9'', ''a'', ''b'')',
                            k.key_column);
    WHEN 'snowflake' THEN
        decoded := format('@extschema@.snowflake_to_timestamptz(%I, %L)', k.key_column, k.key_layout);
        decodable := format('%I >= 0', k.key_column);
    ELSE
        decoded := format('@extschema@.crid_to_timestamptz(%I)', k.key_column);
        decodable := format('%I >= 0', k.key_column);
    END CASE;
    EXECUTE format('SELECT array_agg(DISTINCT date_trunc(%L, %s AT TIME ZONE ''UTC'')) FROM ONLY %s WHERE %s',
                   unit, decoded, default_part, decodable)
       INTO starts;
    IF starts IS NULL THEN
        RETURN;
    END IF;
    FOREACH start_at IN ARRAY starts LOOP
        RETURN QUERY SELECT * FROM @extschema@.crid_partition_create(parent, step, start_at AT TIME ZONE 'UTC',
                                                                     start_at AT TIME ZONE 'UTC', gene_bits,
                                                                     k.key_family, k.key_layout);
    END LOOP;
END
$$;
-- Detaches (detach => true) or drops the partitions of a table whose every
-- id decodes to a time before `before`: those whose upper bound is at most
-- the first id of the first time unit at or after it. The default partition
-- and a partition up to MAXVALUE are never retired. Same lock as
-- crid_partition_create; a second run finds nothing to do. One row per
-- partition detached or dropped.
CREATE FUNCTION crid_partition_retire(parent regclass, before timestamptz, detach boolean DEFAULT false,
                                      family text DEFAULT NULL, layout text DEFAULT NULL,
                                      OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
    cutoff text;  -- the first id at or after `before`; NULL: none is that late
    p record;
    old regclass[];
BEGIN
    IF parent IS NULL OR before IS NULL OR detach IS NULL THEN
        RAISE EXCEPTION 'crid_partition_retire: parent, before and detach must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT isfinite(before) THEN
        RAISE EXCEPTION 'crid_partition_retire: before must be a finite time' USING ERRCODE = '22008';
    END IF;
    k := @extschema@.crid_partition_key(parent, family, layout);
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    cutoff := CASE k.key_family
              WHEN 'uuidv7' THEN @extschema@.uuid_v7_time_bound(before, '>=')::text
              WHEN 'snowflake' THEN @extschema@.snowflake_time_bound(before, '>=', k.key_layout)::text
              ELSE @extschema@.crid_time_bound(before, '>=')::text END;
    IF k.key_family = 'uuidv7' THEN
        SELECT array_agg(b.partition_name ORDER BY b.to_id::uuid) INTO old
          FROM @extschema@.crid_partition_bounds(parent) b
         WHERE b.to_id IS NOT NULL AND (cutoff IS NULL OR b.to_id::uuid <= cutoff::uuid);
    ELSE
        SELECT array_agg(b.partition_name ORDER BY b.to_id::bigint) INTO old
          FROM @extschema@.crid_partition_bounds(parent) b
         WHERE b.to_id IS NOT NULL AND (cutoff IS NULL OR b.to_id::bigint <= cutoff::bigint);
    END IF;
    FOR i IN 1 .. coalesce(cardinality(old), 0) LOOP
        partition_name := old[i]::text;
        IF detach THEN
            EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, old[i]);
            action := 'detached';
        ELSE
            EXECUTE format('DROP TABLE %s', old[i]);
            action := 'dropped';
        END IF;
        row_count := NULL;
        RETURN NEXT;
    END LOOP;
END
$$;
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
CREATE FUNCTION crid_partition_maintain(parent regclass, step interval, ahead interval,
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
COMMENT ON FUNCTION crid_partition_step_unit(interval) IS
    'the unit of a partition interval (hour, day, week, month); ERROR 22023 for any other interval';
COMMENT ON FUNCTION crid_partition_key(regclass, text, text) IS
    'the partition key column, type, id family and snowflake layout crid''s partition functions see in a table; ERROR for a table they cannot partition by time';
COMMENT ON FUNCTION crid_partition_first_id(timestamptz, text, text) IS
    'the first id of the family (and layout) whose time unit begins at or after at, as a partition bound; ERROR 22023 when at does not begin a unit';
COMMENT ON FUNCTION crid_partition_bounds(regclass) IS
    'the partitions of a table with their bounds as text (NULL for MINVALUE and MAXVALUE)';
COMMENT ON FUNCTION crid_partition_create(regclass, interval, timestamptz, timestamptz, integer, text, text) IS
    'make the partitions of every interval of step from first''s to last''s, bounded by first ids; idempotent';
COMMENT ON FUNCTION crid_partition_move_default(regclass, interval, integer, text, text) IS
    'move the rows of the default partition into partitions of their intervals, made for them';
COMMENT ON FUNCTION crid_partition_retire(regclass, timestamptz, boolean, text, text) IS
    'detach or drop the partitions whose ids all decode to times before before';
COMMENT ON FUNCTION crid_partition_maintain(regclass, interval, interval, interval, boolean, integer, text, text) IS
    'for a scheduler: partitions up to now() + ahead, the default partition emptied, and those older than retention detached or dropped';

------------------------------------------------------------------------------
-- No role gains a right through crid (docs/security.md): what runs with
-- rights its caller lacks is a short reviewed list, and what PUBLIC does not
-- need is not PUBLIC's.
------------------------------------------------------------------------------

-- Called only by crid's SECURITY DEFINER functions (crid_allocate,
-- crid_reserve, crid_evict), which run as the extension's owner anyway:
-- they need no rights of their own.
ALTER FUNCTION @extschema@.crid_evicted_before(regclass) SECURITY INVOKER;
ALTER FUNCTION @extschema@.crid_record_eviction(regclass, bigint) SECURITY INVOKER;

-- snowflake_backfill_plan runs with its caller's rights, on the caller's
-- tables; its own statements resolve in pg_catalog only, so that no
-- function or operator planted in a schema on the caller's search_path
-- (public, where others may create) runs in their place. (crid_backfill,
-- a procedure that commits, cannot take a SET clause: it sets its
-- search_path itself for each of its transactions.)
ALTER FUNCTION @extschema@.snowflake_backfill_plan(regclass, name, name, text, integer, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.snowflake_backfill_plan(regclass, name, name, text) SET search_path = pg_catalog, pg_temp;

-- The registry's internals: the continuity check and what it reads, the
-- reservation, the checks of crid_allocate, crid_reserve and crid_evict,
-- the triggers of registry tables and of crid's own tables, and the node
-- leases' continuity and acquisition. A fleet's role gets EXECUTE on
-- crid_registry_check, crid_registry_reserve, crid_registry_upsert and
-- crid_node_lease_take (docs/security.md); the others only crid itself
-- calls.
REVOKE EXECUTE ON FUNCTION crid_registry_identity(regclass) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_newest(regclass) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_upsert(regclass, bigint, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_next_seq(regclass, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_evict(regclass, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_check(regclass) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_admit(regclass, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_guard() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_registry_reserve(regclass, bigint, bigint, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_local_only() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_check_allocation(bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_check_block_end(bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_check_not_evicted(text, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_check_reserved_end(bigint, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_reserve_ts(timestamptz, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_evict_horizon(timestamptz) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_node_lease_since(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_node_lease_guard() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer) FROM PUBLIC;

-- Where the registry is (host, port, database and user of crid.registry,
-- a setting only superusers may read) and what the worker last failed on:
-- for those who monitor the server.
REVOKE EXECUTE ON FUNCTION crid_registry_status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crid_registry_status() TO pg_monitor;
REVOKE EXECUTE ON FUNCTION crid_registry_clock() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crid_registry_clock() TO pg_monitor;

------------------------------------------------------------------------------
-- pg_partman 5 (docs/pg_partman.md): a time decoder for uuid partition sets.
-- pg_partman calls p_time_decoder with the control column cast to text
-- (5.2 and 5.5 alike: "decoder(id::text)"), which uuid_v7_to_timestamptz(uuid)
-- does not take; a text overload of that name would change which function an
-- untyped literal reaches, so the text form has a name of its own.
------------------------------------------------------------------------------

-- IMMUTABLE: the text is read as uuid_in reads it and the millisecond is the
-- UUID's own; a timestamptz does not depend on TimeZone. The body is bound
-- when created (SQL-standard body), so no search_path reaches it.
CREATE FUNCTION uuid_v7_text_to_timestamptz(id text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN @extschema@.uuid_v7_to_timestamptz(CAST(id AS pg_catalog.uuid));
COMMENT ON FUNCTION uuid_v7_text_to_timestamptz(text) IS
    'the millisecond of a UUID version 7 given as text (pg_partman''s p_time_decoder); an error for any other text';

------------------------------------------------------------------------------
-- uuid_v7_in(id, r) prunes partitions (docs/partitions.md): its support
-- function now simplifies the call, as snowflake_in's and crid_in's do, into
-- `id >= uuid_v7_range_first(r) AND id <= uuid_v7_range_last(r)`, which the
-- planner prunes by, and keeps the call beside them for the UUIDs of other
-- versions that sort in that range. That call is crid_uuid_v7_in_exact: the
-- same C function with no simplification of its own (it would repeat), and
-- crid_uuid_v7_check's support, which gives it selectivity 1 (the range's is
-- the estimate). PUBLIC, as uuid_v7_in is: whoever calls one runs the other.
------------------------------------------------------------------------------

CREATE FUNCTION crid_uuid_v7_in_exact(id uuid, r tstzrange) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_uuid_v7_in'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2 SUPPORT crid_uuid_v7_check_support;
COMMENT ON FUNCTION crid_uuid_v7_in_exact(uuid, tstzrange) IS
    'uuid_v7_in(id, r) without its planner support: what stays beside the id range uuid_v7_in is simplified into';

------------------------------------------------------------------------------
-- Public ids (docs/public-ids.md): faces of ids that hide their time and
-- volume, computed with keys kept server-side. crid_public_id_keys holds the
-- keys; nobody but its key administrators may read it (its owner grants
-- them), and the face functions read a key row themselves for the roles the
-- row names (src/pg/public_ids/public_id_keys.hpp says how).
------------------------------------------------------------------------------

-- 16 strong random bytes: a new key's secret, made without being typed.
CREATE FUNCTION crid_public_id_secret() RETURNS bytea
    AS 'MODULE_PATHNAME', 'crid_public_id_secret'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION crid_public_id_secret() IS
    '16 bytes from the operating system''s strong random source: the default secret of a new public id key';

-- Whether the key table holds this key id with this secret (NULL: retired):
-- its trigger skips such a row. Answers only a role that may read the table.
CREATE FUNCTION crid_public_id_key_held(key_id integer, secret bytea) RETURNS boolean
    AS 'MODULE_PATHNAME', 'crid_public_id_key_held'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

-- No CHECK and no NOT NULL: their errors print the failing row, key and
-- all; crid_public_id_keys_check raises them instead, naming the key id.
-- A retired key keeps its row, without its secret: its id is never made
-- again.
CREATE TABLE crid_public_id_keys (
    key_id integer PRIMARY KEY,
    secret bytea DEFAULT @extschema@.crid_public_id_secret(),
    usable_by regrole,
    created_at timestamptz DEFAULT pg_catalog.now(),
    retired_at timestamptz,
    note text
);
COMMENT ON TABLE crid_public_id_keys IS
    'keys of public ids (crid_mask, crid_unmask): readable only by key administrators; a key serves the members of its usable_by role';
REVOKE ALL ON TABLE crid_public_id_keys FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.crid_public_id_keys'::pg_catalog.regclass, ''::pg_catalog.text);

-- The trigger of crid_public_id_keys, BEFORE each row's INSERT, UPDATE and
-- DELETE and before a TRUNCATE. It raises the errors a bad key row
-- deserves before any constraint does: a CHECK or NOT NULL violation prints
-- the failing row, secret included, into the message and the server log;
-- these name only the key id.
--
-- A key id stands for one secret forever: faces made with it, stored in
-- generated columns and indexes (the functions are IMMUTABLE) or handed out,
-- must never decode with another. So the key id and the secret never
-- change, no row is deleted and the table is never truncated: a key is
-- retired instead (retired_at set), which wipes its secret and keeps its
-- row, so that its id is never made again. A retired row may be inserted
-- (a restore of a dump does), without its secret.
--
-- Only key administrators, who may read the table, write it: the predefined
-- role pg_write_all_data may write every table without reading it, and
-- could otherwise move every key to itself (UPDATE ... SET usable_by
-- needs no SELECT) or retire them all. And a row equal to a key the table
-- holds (key id, secret, retirement) is skipped: a dump's keys restored
-- twice must not fail on the primary key, whose error's COPY context
-- would quote the row, secret included, into the server log.
CREATE FUNCTION @extschema@.crid_public_id_keys_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'crid_public_id_keys: keys are retired, never deleted'
            USING ERRCODE = '55000',
                  HINT = 'UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = ... wipes the key''s secret and keeps its id from being made again.';
    END IF;
    IF NOT pg_catalog.has_table_privilege(TG_RELID, 'SELECT') THEN
        RAISE EXCEPTION 'crid_public_id_keys: permission denied: only key administrators change keys'
            USING ERRCODE = '42501',
                  HINT = 'Key administrators hold SELECT, INSERT and UPDATE on crid_public_id_keys, granted by its owner.';
    END IF;
    IF NEW.key_id IS NULL OR NEW.key_id <= 0 THEN
        RAISE EXCEPTION 'crid_public_id_keys: key_id must be a positive integer'
            USING ERRCODE = '22023';
    END IF;
    IF NEW.usable_by IS NULL THEN
        RAISE EXCEPTION 'crid_public_id_keys: key % needs a usable_by role', NEW.key_id
            USING ERRCODE = '22004',
                  HINT = 'The members of usable_by may compute faces with the key; nobody may read it.';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.key_id <> OLD.key_id OR NEW.secret IS DISTINCT FROM OLD.secret
           OR (OLD.retired_at IS NOT NULL AND NEW.retired_at IS DISTINCT FROM OLD.retired_at) THEN
            RAISE EXCEPTION 'crid_public_id_keys: the key id, secret and retirement of key % never change', OLD.key_id
                USING ERRCODE = '55000',
                      HINT = 'Faces made with a key decode only with it: rotate by making a new key id and keep the old one.';
        END IF;
        IF NEW.retired_at IS NOT NULL THEN
            NEW.secret := NULL; -- retired: the secret is gone, the id stays taken
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.retired_at IS NOT NULL THEN
        NEW.secret := NULL; -- a retired key's row, as pg_dump writes it: its id stays taken
    ELSIF NEW.secret IS NULL OR octet_length(NEW.secret) <> 16 THEN
        RAISE EXCEPTION 'crid_public_id_keys: the secret of key % must be 16 bytes', NEW.key_id
            USING ERRCODE = '22023',
                  HINT = 'Leave secret out: its default, crid_public_id_secret(), is 16 strong random bytes.';
    END IF;
    -- No query here: during a COPY, auto_explain would log a query this
    -- trigger runs with the COPY's context, the row and its secret.
    IF @extschema@.crid_public_id_key_held(NEW.key_id, NEW.secret) THEN
        RETURN NULL; -- this key, restored again
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER crid_public_id_keys_check BEFORE INSERT OR UPDATE OR DELETE ON crid_public_id_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_public_id_keys_check();
CREATE TRIGGER crid_public_id_keys_no_truncate BEFORE TRUNCATE ON crid_public_id_keys
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.crid_public_id_keys_check();
-- Like crid's other tables, the keys stay on their server: a row that
-- replication brings (a FOR ALL TABLES publication includes the table) is
-- skipped, before the check above (triggers fire in name order).
CREATE TRIGGER crid_local_only BEFORE INSERT OR UPDATE OR DELETE ON crid_public_id_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.crid_local_only();
ALTER TABLE crid_public_id_keys ENABLE ALWAYS TRIGGER crid_local_only;

-- Every backend forgets the keys it keeps once a statement changed the rows.
CREATE FUNCTION crid_public_id_keys_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'crid_public_id_keys_changed'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE TRIGGER crid_public_id_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON crid_public_id_keys
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.crid_public_id_keys_changed();
REVOKE EXECUTE ON FUNCTION crid_public_id_keys_check() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION crid_public_id_keys_changed() FROM PUBLIC;

-- A new key with a random secret, for the members of usable_by; with the
-- caller's rights (INSERT and SELECT on crid_public_id_keys). Returns its
-- key id: the given one, or one above the largest ever made (retired keys
-- keep theirs).
CREATE FUNCTION crid_public_id_key_create(usable_by regrole, key_id integer DEFAULT NULL, note text DEFAULT NULL)
    RETURNS integer
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
    INSERT INTO @extschema@.crid_public_id_keys (key_id, usable_by, note)
    SELECT coalesce($2, (SELECT coalesce(max(k.key_id), 0) + 1 FROM @extschema@.crid_public_id_keys k)), $1, $3
    RETURNING key_id
$$;
COMMENT ON FUNCTION crid_public_id_key_create(regrole, integer, text) IS
    'makes a public id key with a random secret for the members of usable_by, with the caller''s rights; returns its key id';

-- The faces. IMMUTABLE: a key id's secret never changes (the trigger above),
-- so a face depends on its arguments only, and a constant one folds at plan
-- time (WHERE id = crid_unmask(...) is an index condition). Not STRICT: a
-- NULL id has a NULL face, a NULL key id is an ERROR.
CREATE FUNCTION crid_mask(id bigint, key_id integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_mask_bigint'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION crid_unmask(face bigint, key_id integer) RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_unmask_bigint'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION crid_mask(id uuid, key_id integer) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_mask_uuid'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION crid_unmask(face uuid, key_id integer) RETURNS uuid
    AS 'MODULE_PATHNAME', 'crid_unmask_uuid'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION crid_mask(bigint, integer) IS
    'the opaque face of a snowflake or crid id: a keyed permutation of 0 .. 2^63 - 1';
COMMENT ON FUNCTION crid_unmask(bigint, integer) IS
    'the snowflake or crid id behind an opaque face made with the same key';
COMMENT ON FUNCTION crid_mask(uuid, integer) IS
    'the UUIDv47 face of a UUIDv7: its timestamp masked, version 4 on the wire';
COMMENT ON FUNCTION crid_unmask(uuid, integer) IS
    'the UUIDv7 behind a UUIDv47 face made with the same key';

-- The short text of a 63-bit face: Sqids (sqids.org) of its high 31 and
-- low 32 bits, after prefix_ when a prefix is given (id_encode's rules).
-- The defaults are Sqids' own alphabet and minimum length, and no blocklist
-- (crid ships none: pass the words, npm's default list among them, to keep
-- them out). The decoder takes only the spelling crid_mask_sqid makes with
-- the same options.
CREATE FUNCTION crid_mask_sqid(id bigint, key_id integer, prefix text DEFAULT '',
                               alphabet text DEFAULT 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
                               min_length integer DEFAULT 0, blocklist text[] DEFAULT '{}') RETURNS text
    AS 'MODULE_PATHNAME', 'crid_mask_sqid'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
CREATE FUNCTION crid_unmask_sqid(face text, key_id integer, prefix text DEFAULT '',
                                 alphabet text DEFAULT 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
                                 min_length integer DEFAULT 0, blocklist text[] DEFAULT '{}') RETURNS bigint
    AS 'MODULE_PATHNAME', 'crid_unmask_sqid'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION crid_mask_sqid(bigint, integer, text, text, integer, text[]) IS
    'the opaque face of a snowflake or crid id as Sqids text of its high 31 and low 32 bits, after prefix_';
COMMENT ON FUNCTION crid_unmask_sqid(text, integer, text, text, integer, text[]) IS
    'the snowflake or crid id behind Sqids text crid_mask_sqid made with the same key and options';
