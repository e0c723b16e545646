-- Reserves [start, start + block_size) of second ts and returns start, as
-- the extension's crid_allocate does. The layout's limits (a block end past
-- 2^sequence_bits) are the caller's to check: this server does not know the
-- fleet's crid.timestamp_bits. SECURITY DEFINER, owned by the owner of
-- crid_allocations, for the outside nodes granted EXECUTE: they need no
-- right on the table. Every name is qualified and search_path holds only
-- pg_catalog and pg_temp, so neither a caller's search_path nor an object
-- planted elsewhere changes what it does.
CREATE FUNCTION crid_allocate(ts bigint, block_size bigint) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    block_end bigint;
BEGIN
    -- @schema_guard
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
    PERFORM @extschema@.crid_registry_admit('@extschema@.crid_allocations'::pg_catalog.regclass, crid_allocate.ts);
    block_end := @extschema@.crid_registry_reserve('@extschema@.crid_allocations'::pg_catalog.regclass,
                                                   crid_allocate.ts, crid_allocate.block_size);
    RETURN block_end - crid_allocate.block_size;
END
$$;
