-- The trigger of crid's state tables (crid_backfill_state,
-- crid_registry_state, crid_node_lease_state, crid_node_lease_ledger,
-- crid_evictions): crid writes them as their owner (its SECURITY DEFINER
-- functions and triggers, crid_backfill_state_write) or as a superuser (the
-- block reserver); a write by any other role is refused with ERROR 42501.
-- Grants keep ordinary roles out already; this keeps out the members of
-- pg_write_all_data, whom no grant stops, and who could otherwise lower the
-- refused seconds of a registry, forget a node's lease history or move a
-- backfill's resume point. It runs as the role that writes (not SECURITY
-- DEFINER), which is what it checks.
CREATE FUNCTION crid_state_writes_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles r
                   WHERE r.rolname OPERATOR(pg_catalog.=) current_user
                     AND (r.rolsuper OR r.oid OPERATOR(pg_catalog.=)
                                        (SELECT c.relowner FROM pg_catalog.pg_class c
                                         WHERE c.oid OPERATOR(pg_catalog.=) TG_RELID))) THEN
        RAISE EXCEPTION '%: % is crid''s own state: only crid writes it', TG_TABLE_NAME, TG_OP
            USING ERRCODE = '42501',
                  DETAIL = pg_catalog.format('Role %I may not write it, though it may write every table '
                                             '(pg_write_all_data).', current_user);
    END IF;
    RETURN CASE WHEN TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN OLD ELSE NEW END;
END
$$;
