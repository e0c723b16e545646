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
    -- @schema_guard
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
