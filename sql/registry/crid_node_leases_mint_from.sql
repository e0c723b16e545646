ALTER TABLE crid_node_leases ADD COLUMN IF NOT EXISTS mint_from timestamptz;
COMMENT ON COLUMN crid_node_leases.mint_from IS
    'when the holder may mint on the node: after a takeover delay when its earlier holder could not be shown to have stopped';
