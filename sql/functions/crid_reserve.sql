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
    ts bigint;
    registry regclass;
    block_end bigint;
BEGIN
    -- @schema_guard
    ts := @extschema@.crid_reserve_ts(at, n);
    registry := @extschema@.crid_registry_table();
    PERFORM @extschema@.crid_check_not_evicted('crid_reserve', ts, @extschema@.crid_evicted_before(registry));
    PERFORM @extschema@.crid_registry_admit(registry, ts);
    block_end := @extschema@.crid_registry_reserve(registry, ts, n);
    PERFORM @extschema@.crid_check_reserved_end(ts, n, block_end);
    RETURN block_end - n;
END
$$;
