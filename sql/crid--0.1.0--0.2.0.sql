-- crid 0.1.0 -> 0.2.0. New and changed SQL objects of 0.2.0 go here; the
-- Makefile appends this file to crid--0.1.0.sql to build crid--0.2.0.sql, so
-- a fresh install and an upgrade run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.2.0'" to load this file. \quit

------------------------------------------------------------------------------
-- Hardening (issue 12): no generator turns a NULL argument into a NULL id.
------------------------------------------------------------------------------

-- 0.1.0 declared these STRICT, so a NULL node or gene silently gave a NULL
-- id; now they raise 22004 like every other generator.
ALTER FUNCTION snowflake_next(integer) CALLED ON NULL INPUT;
ALTER FUNCTION snowflake_next(integer, integer) CALLED ON NULL INPUT;

------------------------------------------------------------------------------
-- Availability (issue 15): history on disk stops only the minting that
-- depends on it; these superuser functions resolve it on a running server.
------------------------------------------------------------------------------

-- After the crid.snowflake_* settings changed: moves the high-water mark so
-- every new snowflake id is greater than every id minted under the old
-- layout, when the new layout makes that possible (force: accept anyway).
CREATE FUNCTION crid_accept_layout(force boolean DEFAULT false) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'crid_accept_layout'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
REVOKE EXECUTE ON FUNCTION crid_accept_layout(boolean) FROM PUBLIC;
COMMENT ON FUNCTION crid_accept_layout(boolean) IS
    'accept a changed snowflake layout; returns the time from which new snowflake ids are minted (superuser)';

-- Replaces the high-water mark and the registry mark with `at` (e.g. after
-- crid_high_water was damaged); refuses a time before the clock minus
-- crid.clock_borrow_ms, or before an intact mark, unless forced.
CREATE FUNCTION crid_reset_high_water(at timestamptz, force boolean DEFAULT false) RETURNS void
    AS 'MODULE_PATHNAME', 'crid_reset_high_water'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
REVOKE EXECUTE ON FUNCTION crid_reset_high_water(timestamptz, boolean) FROM PUBLIC;
COMMENT ON FUNCTION crid_reset_high_water(timestamptz, boolean) IS
    'set the high-water marks of snowflake, UUIDv7 and crid to at, repairing a damaged file (superuser)';
