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
