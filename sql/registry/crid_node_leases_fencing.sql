-- Fencing of the lease statements (docs/fleet.md, "Registry messages late,
-- twice or unanswered"): every renewal and release of a holder carries a
-- generation, a number that only grows across the worker processes of one
-- postmaster (its monotonic clock when the worker started, or last took a
-- node), and claims the row only for a generation no smaller than the
-- row's; a release counts only for the generation that claimed the row. So
-- a renewal or release sent by an earlier worker, or an earlier attempt of
-- the same one, that arrives late or twice changes nothing a later one did.
-- taken_above_ms is the bound the previous holder had written when this
-- holder took the row over (crid_node_lease_guard sets it, and clears the
-- generation, whenever the token changes): the holder's first renewal of a
-- generation returns it, so a take whose answer was lost still raises the
-- node above it. Shared by the extension and crid_registry_server.sql.
ALTER TABLE @extschema@.crid_node_leases ADD COLUMN IF NOT EXISTS generation bigint;
COMMENT ON COLUMN @extschema@.crid_node_leases.generation IS
    'the generation of its holder''s worker that last claimed the row; renewals and releases of earlier ones change nothing';
ALTER TABLE @extschema@.crid_node_leases ADD COLUMN IF NOT EXISTS taken_above_ms bigint;
COMMENT ON COLUMN @extschema@.crid_node_leases.taken_above_ms IS
    'the bound its previous holder wrote when this holder took the node over; its ids start above it';
