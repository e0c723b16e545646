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
