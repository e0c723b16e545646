-- crid_check()'s rows about keys JSON would round (docs/javascript.md): a
-- bigint column that is a table's primary key (or single-column unique
-- key) and whose DEFAULT calls crid's snowflake_next or crid_next, whose
-- ids already pass 2^53 - 1 (Number.MAX_SAFE_INTEGER) or will within a
-- year by this server's layout. to_json and friends write such a key as a
-- bare number, which JavaScript, and many JSON parsers, round. Keys of type
-- bigid are written as strings and are never named; keys of other tables
-- (filled by the application) crid cannot judge and does not name.
--
-- Runs with the caller's rights and reads only what the caller may: the
-- largest id of a key from its index by crid_key_largest, which plans no
-- query and so runs no code of the table's owner, in plain or partitioned tables without row-level
-- security or foreign partitions. A table it may not or will not read gets
-- a row 'json_key_unread' saying why, when its ids would pass 2^53 - 1
-- within a year anyway it is still named (by the layout alone). A table
-- locked for longer than the lock_timeout is one it will not read: its
-- owner could otherwise hold a superuser's crid_check() (and the CREATE
-- PUBLICATION whose event trigger runs it) for as long as it liked.
CREATE FUNCTION crid_check_json_keys(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER
    SET search_path = pg_catalog, pg_temp
    SET lock_timeout = '2s'
AS $$
DECLARE
    max_safe constant bigint := 9007199254740991;
    r record;
    within_year bigint;  -- the smallest id of the family's layout a year from now
    largest bigint;
    readable boolean;
    why_not text;
    ext text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'crid');
BEGIN
    FOR r IN
        SELECT DISTINCT c.oid::regclass AS rel, c.relkind, c.relrowsecurity, a.attnum, a.attname,
               CASE pr.proname WHEN 'snowflake_next' THEN 'snowflake' ELSE 'crid' END AS family
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
        JOIN pg_catalog.pg_depend dep
          ON dep.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND dep.objid = ad.oid
         AND dep.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
        JOIN pg_catalog.pg_proc pr
          ON pr.oid = dep.refobjid AND pr.pronamespace = '@extschema@'::pg_catalog.regnamespace
         AND pr.proname = ANY (ARRAY['snowflake_next', 'crid_next']::name[])
        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND a.atttypid = 'pg_catalog.int8'::pg_catalog.regtype
          AND EXISTS (SELECT FROM pg_catalog.pg_constraint k
                      WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u') AND k.conkey = ARRAY[a.attnum])
        ORDER BY 1, 5
    LOOP
        BEGIN
            within_year := CASE r.family
                WHEN 'snowflake' THEN @extschema@.snowflake_floor(pg_catalog.now() + interval '1 year')
                ELSE @extschema@.crid_floor(pg_catalog.now() + interval '1 year') END;
        EXCEPTION WHEN datetime_field_overflow OR invalid_parameter_value OR object_not_in_prerequisite_state THEN
            within_year := NULL;  -- the layout ends within a year: its ids stop, not pass 2^53
        END;
        readable := pg_catalog.has_column_privilege(r.rel, r.attname, 'SELECT');
        why_not := CASE
            WHEN NOT readable THEN 'the caller may not read it'
            WHEN r.relrowsecurity THEN 'it has row-level security, whose policies crid does not run'
            WHEN r.relkind = 'p' AND EXISTS (SELECT FROM pg_catalog.pg_partition_tree(r.rel) t
                                             JOIN pg_catalog.pg_class p ON p.oid = t.relid
                                             WHERE p.relkind = 'f')
                THEN 'it has foreign partitions, which crid does not query'
            END;
        largest := NULL;
        IF why_not IS NULL THEN
            -- Read without planning a query on the table: a plan would fold
            -- its indexes' predicates and expressions, its owner's code.
            BEGIN
                largest := @extschema@.crid_key_largest(r.rel, r.attnum::pg_catalog.int2)::pg_catalog.int8;
            EXCEPTION WHEN insufficient_privilege OR object_not_in_prerequisite_state OR datatype_mismatch
                           OR lock_not_available THEN
                why_not := SQLERRM;
            END;
        END IF;
        IF largest > max_safe OR within_year > max_safe THEN
            problem := 'json_key_unsafe';
            object := pg_catalog.format('%s.%I', r.rel, r.attname);
            detail := pg_catalog.format(
                '%s is a bigint key of %s ids, %s; to_json, row_to_json, json_build_object and json_agg write it '
                'as a number, which JavaScript (JSON.parse) and many JSON parsers round above 2^53 - 1 = %s',
                object, r.family,
                CASE WHEN largest > max_safe THEN pg_catalog.format('whose largest id %s already passes 2^53 - 1', largest)
                     ELSE pg_catalog.format('whose ids pass 2^53 - 1 within a year (the %s layout''s first id a year '
                                            'from now is %s)', r.family, within_year) END
                || CASE WHEN why_not IS NOT NULL THEN pg_catalog.format(' (not read: %s)', why_not) ELSE '' END,
                max_safe);
            fix := pg_catalog.format('ALTER TABLE %s ALTER COLUMN %I TYPE %s.bigid; -- JSON then writes it as a '
                                     'string, the column stays 8 bytes and its index is kept; or mint ids of a '
                                     'layout below 2^53 (docs/javascript.md)', r.rel, r.attname, ext);
            RETURN NEXT;
        ELSIF why_not IS NOT NULL THEN
            problem := 'json_key_unread';
            object := pg_catalog.format('%s.%I', r.rel, r.attname);
            detail := pg_catalog.format('%s is a bigint key of %s ids that crid did not read: %s; its ids may '
                                        'already pass 2^53 - 1, which JSON read by JavaScript rounds',
                                        object, r.family, why_not);
            fix := pg_catalog.format('SELECT pg_catalog.max(%I) > 9007199254740991 FROM %s; -- as a role that may '
                                     'read it', r.attname, r.rel);
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;
