-- Row trigger of a registry table: every insert or update of a row is a
-- reservation, and passes crid_registry_admit, whoever makes it (crid
-- servers, crid_allocate, crid_reserve, the plain upsert of Go services).
-- Rows carried in from elsewhere (a copy of another registry table, a
-- restore) are history, not reservations: load them with
-- session_replication_role = replica, under which this trigger does not
-- fire.
--
-- SECURITY DEFINER, so the roles that write a registry need no right on
-- crid's state. It reads nothing of NEW but ts, and admits the table the
-- trigger fired on, which crid_registry_check accepts only as a registry
-- table. Giving a table this trigger makes it a registry table, so EXECUTE
-- (which CREATE TRIGGER needs) is not PUBLIC's: a superuser grants it to
-- the owner of a table that is to be one.
CREATE OR REPLACE FUNCTION crid_registry_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- @schema_guard
    PERFORM @extschema@.crid_registry_admit(TG_RELID::regclass, NEW.ts);
    RETURN NEW;
END
$$;
