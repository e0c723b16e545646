-- The command that takes crid's own tables out of a publication and keeps
-- every other table it publishes; NULL when it publishes none of them.
--   FOR ALL TABLES: such a publication cannot leave a table out, so it is
--     made again in one transaction, with its name, options and owner, for
--     the tables it publishes now but crid's (partitioned tables by their
--     root, so their new partitions keep being published).
--   TABLES IN SCHEMA of a schema crid's tables are in: that schema is
--     dropped from it and its other tables are added by name.
--   crid's tables named in it: they are dropped from it.
-- Subscribers keep their subscription: it names the publication, which
-- exists again when the transaction commits.
CREATE FUNCTION crid_publication_fix(publication oid) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    own regclass[] := @extschema@.crid_own_tables();
    p record;
    options text;
    tables text;
    steps text[] := '{}';
    s record;
BEGIN
    IF publication IS NULL THEN
        RAISE EXCEPTION 'crid_publication_fix: publication must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT x.oid, x.pubname, x.pubowner, x.puballtables, x.pubinsert, x.pubupdate, x.pubdelete, x.pubtruncate,
           x.pubviaroot, to_jsonb(x) ->> 'pubgencols' AS pubgencols
      INTO p FROM pg_catalog.pg_publication x WHERE x.oid = publication;
    IF NOT FOUND OR NOT EXISTS (
        SELECT FROM pg_catalog.pg_publication_tables t
        JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
        JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
        WHERE t.pubname = p.pubname AND c.oid = ANY (own)) THEN
        RETURN NULL;
    END IF;

    IF p.puballtables THEN
        SELECT string_agg(r::text, ', ' ORDER BY r::text) INTO tables
        FROM (SELECT DISTINCT coalesce(pg_catalog.pg_partition_root(c.oid), c.oid)::regclass AS r
              FROM pg_catalog.pg_publication_tables t
              JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname
              JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename
              WHERE t.pubname = p.pubname AND c.oid <> ALL (own)) kept;
        options := format('publish = %L, publish_via_partition_root = %s',
                          array_to_string(ARRAY[CASE WHEN p.pubinsert THEN 'insert' END,
                                                CASE WHEN p.pubupdate THEN 'update' END,
                                                CASE WHEN p.pubdelete THEN 'delete' END,
                                                CASE WHEN p.pubtruncate THEN 'truncate' END], ', '),
                          CASE WHEN p.pubviaroot THEN 'true' ELSE 'false' END);
        -- PostgreSQL 18 can publish stored generated columns.
        IF p.pubgencols IN ('s', 'true') THEN
            options := options || ', publish_generated_columns = stored';
        END IF;
        RETURN format('BEGIN; DROP PUBLICATION %1$I; CREATE PUBLICATION %1$I%2$s WITH (%3$s); '
                      'ALTER PUBLICATION %1$I OWNER TO %4$s; COMMIT;',
                      p.pubname, ' FOR TABLE ' || tables, options, p.pubowner::regrole);
    END IF;

    -- Schemas published whole that hold crid's tables: the schema out, its
    -- other tables in by name (those not named in the publication already).
    FOR s IN
        SELECT pn.pnnspid::regnamespace AS schema,
               (SELECT string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid::regclass::text)
                FROM pg_catalog.pg_class c
                WHERE c.relnamespace = pn.pnnspid AND c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
                  AND NOT c.relispartition AND c.oid <> ALL (own)
                  AND NOT EXISTS (SELECT FROM pg_catalog.pg_publication_rel pr
                                  WHERE pr.prpubid = p.oid AND pr.prrelid = c.oid)) AS others
        FROM pg_catalog.pg_publication_namespace pn
        WHERE pn.pnpubid = p.oid
          AND EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.relnamespace = pn.pnnspid AND c.oid = ANY (own))
        ORDER BY 1::text
    LOOP
        steps := steps || format('ALTER PUBLICATION %I DROP TABLES IN SCHEMA %s;', p.pubname, s.schema);
        IF s.others IS NOT NULL THEN
            steps := steps || format('ALTER PUBLICATION %I ADD TABLE %s;', p.pubname, s.others);
        END IF;
    END LOOP;
    SELECT string_agg(pr.prrelid::regclass::text, ', ' ORDER BY pr.prrelid::regclass::text) INTO tables
    FROM pg_catalog.pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = ANY (own);
    IF tables IS NOT NULL THEN
        steps := steps || format('ALTER PUBLICATION %I DROP TABLE %s;', p.pubname, tables);
    END IF;
    IF cardinality(steps) = 1 THEN
        RETURN steps[1];
    END IF;
    RETURN 'BEGIN; ' || array_to_string(steps, ' ') || ' COMMIT;';
END
$$;
