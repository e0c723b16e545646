-- The trigger of crid_allocations that keeps every second's next_seq from
-- going back when a role other than crid writes it: such an UPDATE may
-- raise next_seq, never lower it nor move a row to another second, and
-- such a DELETE is refused (crid_evict deletes as the table's owner; a
-- superuser, the block reserver among them, is not checked). Roles that
-- write the registry (a fleet's role, Go services, members of
-- pg_write_all_data, who need no grant) can then reserve blocks, but never
-- make crid_allocate or the block reserver hand out a block of ids again.
-- ERROR 42501 otherwise. It runs as the role that writes (not SECURITY
-- DEFINER), which is what it checks.
CREATE FUNCTION crid_registry_forward_only() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_roles r
               WHERE r.rolname OPERATOR(pg_catalog.=) current_user
                 AND (r.rolsuper OR r.oid OPERATOR(pg_catalog.=)
                                    (SELECT c.relowner FROM pg_catalog.pg_class c
                                     WHERE c.oid OPERATOR(pg_catalog.=) TG_RELID))) THEN
        RETURN CASE WHEN TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
        RAISE EXCEPTION '%: only crid_evict deletes registry rows', TG_TABLE_NAME
            USING ERRCODE = '42501',
                  DETAIL = 'A deleted second starts again at sequence 0: its ids would be handed out again.',
                  HINT = 'Call crid_evict(before), which deletes only rows behind a safe horizon.';
    END IF;
    IF NEW.ts IS DISTINCT FROM OLD.ts OR NEW.next_seq IS NULL OR NEW.next_seq OPERATOR(pg_catalog.<) OLD.next_seq THEN
        RAISE EXCEPTION '%: the registry row of second % may not go back (next_seq % to %, second % to %)',
            TG_TABLE_NAME, OLD.ts, OLD.next_seq, NEW.next_seq, OLD.ts, NEW.ts
            USING ERRCODE = '42501',
                  DETAIL = 'Lowering next_seq, or moving a row to another second, would hand out ids again.';
    END IF;
    RETURN NEW;
END
$$;
