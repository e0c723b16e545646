-- Deletes registry rows of seconds before `before`; refuses a horizon newer
-- than now - crid.evict_min_age, since a clock stepped back into a deleted
-- second would start its sequences from 0 again. SECURITY DEFINER, for the
-- roles granted EXECUTE (never PUBLIC): it records the horizon in
-- crid_evictions, which they may not write, and deletes from the table
-- crid_registry_table() names as its owner (crid_registry_evict).
CREATE OR REPLACE FUNCTION crid_evict(before timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    horizon bigint;
    registry regclass;
BEGIN
    -- @schema_guard
    horizon := @extschema@.crid_evict_horizon(before);
    registry := @extschema@.crid_registry_table();
    PERFORM @extschema@.crid_record_eviction(registry, horizon);
    RETURN @extschema@.crid_registry_evict(registry, horizon);
END
$$;
