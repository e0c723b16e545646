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
    max_skew_ms integer NOT NULL CHECK (max_skew_ms BETWEEN 0 AND 60000),
    refused_from_ts bigint,              -- reservations in refused_from_ts .. floor_ts are refused
    floor_ts bigint NOT NULL,            -- (NULL refused_from_ts: none below floor_ts is)
    changed_at timestamptz NOT NULL,     -- when the identity last changed (or the row was made)
    reason text NOT NULL                 -- why, for people
);
COMMENT ON TABLE crid_registry_state IS
    'crid registry continuity: the table identity each registry table was last seen with, and the seconds reservations must avoid';
REVOKE ALL ON crid_registry_state FROM PUBLIC;
