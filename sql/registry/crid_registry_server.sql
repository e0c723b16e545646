-- A crid registry on a PostgreSQL server without the crid extension (a
-- managed database, another major version, a server nobody may add a C
-- library to): the two tables a fleet of crid servers writes, in the shapes
-- CREATE EXTENSION crid gives them, and the registry primitive crid_allocate
-- for outside nodes that call a function rather than run the upsert.
--
-- Run it with psql, as the role that is to own the tables (a superuser, or
-- the owner of tables it finds already there: it comments on them and
-- revokes PUBLIC's rights):
--
--   psql -X -v ON_ERROR_STOP=1 -d ids -v schema=crid_registry -v fleet_role=crid_fleet \
--        -f "$(pg_config --sharedir)/extension/crid_registry_server.sql"
--
--   schema      where the tables go (created if missing); default public
--   fleet_role  an existing role the crid servers log in as; given, it gets
--               exactly the grants the fleet needs (the README lists them)
--
-- crid_allocate is for outside nodes that call a function: grant each of
-- their roles EXECUTE on it (the fleet does not need it):
--
--   GRANT EXECUTE ON FUNCTION crid_registry.crid_allocate(bigint, bigint) TO outside_node;
--
-- and give each crid server
--
--   crid.registry       = 'host=... dbname=ids user=crid_fleet'
--   crid.registry_table = 'crid_registry.crid_allocations'
--
-- With crid.registry_table set and no crid extension on the registry, the
-- servers keep their snowflake node leases in crid_node_leases of the same
-- schema. The script runs in one transaction and may be run again: it
-- creates what is missing and never drops or changes data. Tables it finds
-- are kept as they are: a crid_allocations of the wrong shape is refused by
-- the crid servers at start (naming crid.registry_table), a crid_node_leases
-- of the wrong shape fails each lease round with the registry's error.

\if :{?schema}
\else
\set schema public
\endif

BEGIN;

CREATE SCHEMA IF NOT EXISTS :"schema";
SET LOCAL search_path = :"schema";

-- One row per second (since the servers' crid.epoch) in which blocks were
-- reserved; next_seq is the exclusive end of the last block handed out.
CREATE TABLE IF NOT EXISTS crid_allocations (
    ts bigint PRIMARY KEY,
    next_seq bigint NOT NULL
);
COMMENT ON TABLE crid_allocations IS
    'crid registry: ts = seconds since crid.epoch, next_seq = exclusive end of the last block reserved in that second';
REVOKE ALL ON crid_allocations FROM PUBLIC;

-- One row per snowflake node a server of the fleet holds; high_water_ms
-- bounds every id its holder may have minted, and the next holder starts
-- above it.
CREATE TABLE IF NOT EXISTS crid_node_leases (
    node integer PRIMARY KEY CHECK (node BETWEEN 0 AND 65535),
    holder text NOT NULL,
    token text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('lease', 'static')),
    lease_until timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    high_water_ms bigint NOT NULL
);
COMMENT ON TABLE crid_node_leases IS
    'snowflake nodes held by the servers of a fleet: holder, lease expiry, and the bound of the holder''s ids';
REVOKE ALL ON crid_node_leases FROM PUBLIC;

-- Reserves [start, start + block_size) of second ts and returns start, as
-- the extension's crid_allocate does. The layout's limits (a block end past
-- 2^sequence_bits) are the caller's to check: this server does not know the
-- fleet's crid.timestamp_bits. The body names the table unqualified and the
-- function pins search_path to pg_catalog and this schema, so neither a
-- caller's search_path nor an object planted elsewhere changes what it does.
CREATE OR REPLACE FUNCTION crid_allocate(ts bigint, block_size bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, :"schema", pg_temp
AS $$
#variable_conflict use_column
DECLARE
    block_end bigint;
BEGIN
    IF crid_allocate.ts IS NULL OR crid_allocate.block_size IS NULL THEN
        RAISE EXCEPTION 'crid_allocate: ts and block_size must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF crid_allocate.ts < 0 THEN
        RAISE EXCEPTION 'crid_allocate: ts % is negative', crid_allocate.ts USING ERRCODE = '22023';
    END IF;
    IF crid_allocate.block_size < 1 THEN
        RAISE EXCEPTION 'crid_allocate: block_size % is not positive', crid_allocate.block_size
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO crid_allocations AS a (ts, next_seq)
        VALUES (crid_allocate.ts, crid_allocate.block_size)
        ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq
        RETURNING a.next_seq INTO block_end;
    RETURN block_end - crid_allocate.block_size;
END
$$;
REVOKE EXECUTE ON FUNCTION crid_allocate(bigint, bigint) FROM PUBLIC;
COMMENT ON FUNCTION crid_allocate(bigint, bigint) IS
    'reserve a block of block_size sequences in second ts of the registry and return its start';

\if :{?fleet_role}
GRANT USAGE ON SCHEMA :"schema" TO :"fleet_role";
GRANT SELECT, INSERT, UPDATE ON crid_allocations, crid_node_leases TO :"fleet_role";
\endif

COMMIT;
