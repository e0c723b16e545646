-- The trigger of crid_public_id_keys, BEFORE each row's INSERT, UPDATE and
-- DELETE and before a TRUNCATE. It raises the errors a bad key row
-- deserves before any constraint does: a CHECK or NOT NULL violation prints
-- the failing row, secret included, into the message and the server log;
-- these name only the key id.
--
-- A key id stands for one secret forever: faces made with it, stored in
-- generated columns and indexes (the functions are IMMUTABLE) or handed out,
-- must never decode with another. So the key id and the secret never
-- change, no row is deleted and the table is never truncated: a key is
-- retired instead (retired_at set), which wipes its secret and keeps its
-- row, so that its id is never made again. A retired row may be inserted
-- (a restore of a dump does), without its secret.
--
-- Only key administrators, who may read the table, write it: the predefined
-- role pg_write_all_data may write every table without reading it, and
-- could otherwise move every key to itself (UPDATE ... SET usable_by
-- needs no SELECT) or retire them all. A row equal to a key the table
-- holds (key id, secret, retirement) is skipped after this, by the C
-- trigger crid_public_id_keys_restored: a dump's keys restored twice must
-- not fail on the primary key, whose error's COPY context would quote the
-- row, secret included, into the server log. This body calls no function
-- of crid's: PostgreSQL finds a function by its name as the body runs, and
-- a function someone else made under that name would get the secret.
CREATE OR REPLACE FUNCTION @extschema@.crid_public_id_keys_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') THEN
        RAISE EXCEPTION 'crid_public_id_keys: keys are retired, never deleted'
            USING ERRCODE = '55000',
                  HINT = 'UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = ... wipes the key''s secret and keeps its id from being made again.';
    END IF;
    IF NOT pg_catalog.has_table_privilege(TG_RELID, 'SELECT') THEN
        RAISE EXCEPTION 'crid_public_id_keys: permission denied: only key administrators change keys'
            USING ERRCODE = '42501',
                  HINT = 'Key administrators hold SELECT, INSERT and UPDATE on crid_public_id_keys, granted by its owner.';
    END IF;
    IF NEW.key_id IS NULL OR NEW.key_id <= 0 THEN
        RAISE EXCEPTION 'crid_public_id_keys: key_id must be a positive integer'
            USING ERRCODE = '22023';
    END IF;
    IF NEW.usable_by IS NULL THEN
        RAISE EXCEPTION 'crid_public_id_keys: key % needs a usable_by role', NEW.key_id
            USING ERRCODE = '22004',
                  HINT = 'The members of usable_by may compute faces with the key; nobody may read it.';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.key_id <> OLD.key_id OR NEW.secret IS DISTINCT FROM OLD.secret
           OR (OLD.retired_at IS NOT NULL AND NEW.retired_at IS DISTINCT FROM OLD.retired_at) THEN
            RAISE EXCEPTION 'crid_public_id_keys: the key id, secret and retirement of key % never change', OLD.key_id
                USING ERRCODE = '55000',
                      HINT = 'Faces made with a key decode only with it: rotate by making a new key id and keep the old one.';
        END IF;
        IF NEW.retired_at IS NOT NULL THEN
            NEW.secret := NULL; -- retired: the secret is gone, the id stays taken
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.retired_at IS NOT NULL THEN
        NEW.secret := NULL; -- a retired key's row, as pg_dump writes it: its id stays taken
    ELSIF NEW.secret IS NULL OR octet_length(NEW.secret) <> 16 THEN
        RAISE EXCEPTION 'crid_public_id_keys: the secret of key % must be 16 bytes', NEW.key_id
            USING ERRCODE = '22023',
                  HINT = 'Leave secret out: its default, crid_public_id_secret(), is 16 strong random bytes.';
    END IF;
    -- No query here: during a COPY, auto_explain would log a query this
    -- trigger runs with the COPY's context, the row and its secret.
    RETURN NEW;
END
$$;
