-- Row trigger of a registry table: every insert or update of a row is a
-- reservation, and passes crid_registry_admit, whoever makes it (crid
-- servers, crid_allocate, crid_reserve, the plain upsert of Go services).
-- Rows carried in from elsewhere (a copy of another registry table, a
-- restore) are history, not reservations: load them with
-- session_replication_role = replica, under which this trigger does not
-- fire.
CREATE FUNCTION crid_registry_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, @extschema@, pg_temp
AS $$
BEGIN
    PERFORM crid_registry_admit(TG_RELID::regclass, NEW.ts);
    RETURN NEW;
END
$$;
