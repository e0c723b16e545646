-- What crid's partition functions see in a table: its partition key column,
-- the key's type, the family of ids it holds and, for snowflake keys, the
-- canonical layout. Every partition function starts here, so a table crid
-- cannot partition by time is refused before anything is read or made:
--
--   42809  not a partitioned table, or not partitioned by RANGE on one plain
--          column in the type's default B-tree order (then the order of the
--          partitions would not be the order of the ids)
--   42804  a key of another type than uuid or bigint, or of another family
--          than the one asked for (a uuid key for snowflake, a DEFAULT that
--          mints crid ids for snowflake, ...)
--   22023  an unknown family, a layout for a family other than snowflake, a
--          bigint key whose family neither its DEFAULT nor the caller names,
--          a layout whose time may use the sign bit (bigint order is not time
--          order there)
--
-- The family of a bigint key comes from its DEFAULT: snowflake_next or
-- crid_next of crid's schema (read from the DEFAULT's dependencies, not its
-- text). A layout given makes the family snowflake.
CREATE OR REPLACE FUNCTION crid_partition_key(parent regclass, family text DEFAULT NULL, layout text DEFAULT NULL,
                                   OUT key_column name, OUT key_type regtype, OUT key_family text,
                                   OUT key_layout text)
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel record;
    minted text[];   -- crid's generators the key's DEFAULT calls
    asked text := pg_catalog.lower(family);
BEGIN
    IF parent IS NULL THEN
        RAISE EXCEPTION 'crid_partition_key: parent must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind, p.partstrat, p.partnatts, p.partattrs[0] AS attnum, p.partclass[0] AS opclass
      INTO rel
      FROM pg_catalog.pg_class c
      LEFT JOIN pg_catalog.pg_partitioned_table p ON p.partrelid OPERATOR(pg_catalog.=) c.oid
     WHERE c.oid OPERATOR(pg_catalog.=) parent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crid_partition_key: no relation with OID %', parent::oid USING ERRCODE = '42P01';
    END IF;
    IF rel.relkind OPERATOR(pg_catalog.<>) 'p' THEN
        RAISE EXCEPTION 'crid_partition_key: % is not a partitioned table', parent
            USING ERRCODE = '42809',
                  HINT = 'crid makes the partitions of a table created with PARTITION BY RANGE (id), id its uuid or bigint key.';
    END IF;
    IF rel.partstrat OPERATOR(pg_catalog.<>) 'r' OR rel.partnatts OPERATOR(pg_catalog.<>) 1
       OR rel.attnum OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'crid_partition_key: % is partitioned by %, not by RANGE on one column', parent,
                        pg_catalog.pg_get_partkeydef(parent)
            USING ERRCODE = '42809',
                  HINT = 'crid makes the partitions of a table created with PARTITION BY RANGE (id), id its uuid or bigint key.';
    END IF;
    SELECT a.attname, a.atttypid::regtype,
           pg_catalog.array_agg(DISTINCT pr.proname::text) FILTER (WHERE pr.proname IS NOT NULL)
      INTO key_column, key_type, minted
      FROM pg_catalog.pg_attribute a
      LEFT JOIN pg_catalog.pg_attrdef ad
             ON ad.adrelid OPERATOR(pg_catalog.=) a.attrelid AND ad.adnum OPERATOR(pg_catalog.=) a.attnum
      LEFT JOIN pg_catalog.pg_depend dep
             ON dep.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_attrdef'::pg_catalog.regclass
            AND dep.objid OPERATOR(pg_catalog.=) ad.oid
            AND dep.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
      LEFT JOIN pg_catalog.pg_proc pr
             ON pr.oid OPERATOR(pg_catalog.=) dep.refobjid
            AND pr.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
            AND pr.proname OPERATOR(pg_catalog.=) ANY (ARRAY['snowflake_next', 'crid_next']::name[])
     WHERE a.attrelid OPERATOR(pg_catalog.=) parent AND a.attnum OPERATOR(pg_catalog.=) rel.attnum
     GROUP BY a.attname, a.atttypid;
    IF key_type NOT IN ('pg_catalog.uuid'::pg_catalog.regtype, 'pg_catalog.int8'::pg_catalog.regtype,
                        '@extschema@.bigid'::pg_catalog.regtype) THEN
        RAISE EXCEPTION 'crid_partition_key: the partition key %.% is %, not uuid or bigint', parent,
                        pg_catalog.quote_ident(key_column), key_type
            USING ERRCODE = '42804',
                  HINT = 'Partition by the id itself: uuid for UUIDv7 keys, bigint for snowflake and crid keys.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_opclass o
                    WHERE o.oid OPERATOR(pg_catalog.=) rel.opclass AND o.opcdefault
                      AND o.opcmethod OPERATOR(pg_catalog.=) (SELECT am.oid FROM pg_catalog.pg_am am
                                                               WHERE am.amname OPERATOR(pg_catalog.=) 'btree')) THEN
        RAISE EXCEPTION 'crid_partition_key: % is partitioned by %, not in the default order of %', parent,
                        pg_catalog.pg_get_partkeydef(parent), key_type
            USING ERRCODE = '42809';
    END IF;

    IF asked IS NOT NULL AND asked NOT IN ('uuidv7', 'snowflake', 'crid') THEN
        RAISE EXCEPTION 'crid_partition_key: unknown family "%"', family
            USING ERRCODE = '22023', HINT = 'The families are uuidv7, snowflake and crid.';
    END IF;
    IF layout IS NOT NULL AND asked IS DISTINCT FROM 'snowflake' THEN
        IF asked IS NOT NULL THEN
            RAISE EXCEPTION 'crid_partition_key: a layout is for snowflake keys, not %', asked USING ERRCODE = '22023';
        END IF;
        asked := 'snowflake';
    END IF;

    IF key_type OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype THEN
        IF asked IS DISTINCT FROM 'uuidv7' AND asked IS NOT NULL THEN
            RAISE EXCEPTION 'crid_partition_key: the key %.% is a uuid, not a % id', parent,
                            pg_catalog.quote_ident(key_column), asked
                USING ERRCODE = '42804';
        END IF;
        key_family := 'uuidv7';
    ELSE
        IF asked OPERATOR(pg_catalog.=) 'uuidv7' THEN
            RAISE EXCEPTION 'crid_partition_key: the key %.% is a bigint, not a UUIDv7', parent,
                            pg_catalog.quote_ident(key_column)
                USING ERRCODE = '42804';
        END IF;
        IF pg_catalog.cardinality(minted) OPERATOR(pg_catalog.=) 1 THEN
            key_family := CASE minted[1] WHEN 'snowflake_next' THEN 'snowflake' ELSE 'crid' END;
            IF asked IS NOT NULL AND asked OPERATOR(pg_catalog.<>) key_family THEN
                RAISE EXCEPTION 'crid_partition_key: the DEFAULT of %.% mints % ids, not % ids', parent,
                                pg_catalog.quote_ident(key_column), key_family, asked
                    USING ERRCODE = '42804';
            END IF;
        ELSIF asked IS NULL THEN
            RAISE EXCEPTION 'crid_partition_key: cannot tell which ids %.% holds', parent,
                            pg_catalog.quote_ident(key_column)
                USING ERRCODE = '22023',
                      DETAIL = 'Its DEFAULT calls neither snowflake_next nor crid_next of crid.',
                      HINT = 'Name the family: family => ''snowflake'' (with layout => ... for another layout than the server''s) or family => ''crid''.';
        ELSE
            key_family := asked;
        END IF;
    END IF;

    IF key_family OPERATOR(pg_catalog.=) 'snowflake' THEN
        key_layout := CASE WHEN layout IS NULL THEN @extschema@.snowflake_layout()
                           ELSE @extschema@.snowflake_layout(layout) END;
        IF key_layout OPERATOR(pg_catalog.~) '(^|,)sign=true(,|$)' THEN
            RAISE EXCEPTION 'crid_partition_key: layout "%" lets the time field use the sign bit', key_layout
                USING ERRCODE = '22023',
                      DETAIL = 'Once its time reaches bit 63 its ids are negative: bigint order is not time order, and no id range holds one time interval.',
                      HINT = 'Partition such keys by a time column, or by snowflake_to_timestamptz(id, layout) stored in a generated column.';
        END IF;
    END IF;
END
$$;
