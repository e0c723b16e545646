-- The partitions of a table that were not made under the layout the
-- partition functions would read them by now (the key's family, and for
-- snowflake keys its layout: the server's, or the one given), one row each
-- with the layout they were made under when it is known (made_under) and
-- why they do not fit (detail). No row: every partition fits.
--
-- A partition crid_partition_create made since 0.4.0 carries its layout in
-- its comment ('crid: snowflake epoch=...'): it fits when that is the layout
-- of now. A partition without that record (made by hand, by crid 0.3.0, or
-- its comment replaced) fits when each of its bounds is the first id of a
-- whole hour in UTC under the layout (or the layout's first id), which every
-- interval crid makes begins with, and, when its name is one crid gives
-- (<parent>_p20261204, _p2026120413, _p202612, with a _N suffix), when its
-- lower bound decodes to the time its name says. Two layouts whose epochs
-- differ by whole days give the same bounds to different days: only the
-- record or the name tells them apart.
--
-- UUIDv7 keys have one layout: none of their partitions is returned.
-- Nothing is locked or changed; it reads the catalog only.
CREATE FUNCTION crid_partition_misfits(parent regclass, family text DEFAULT NULL, layout text DEFAULT NULL,
                                       OUT partition_name regclass, OUT made_under text, OUT detail text)
    RETURNS SETOF record
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
    expected text;
    p record;
    recorded text;
    b text;
    t timestamptz;
    first_id text;
    earlier boolean;
    stamp text;
    said text;
    bad text;
BEGIN
    k := @extschema@.crid_partition_key(parent, family, layout);
    -- UUIDv7 has one layout: its partitions are read alike everywhere.
    IF k.key_family OPERATOR(pg_catalog.=) 'uuidv7' THEN
        RETURN;
    END IF;
    expected := @extschema@.crid_partition_layout_name(k.key_family, k.key_layout);
    FOR p IN SELECT bd.partition_name AS part, bd.from_id, bd.to_id, c.relname::text AS relname,
                    pg_catalog.obj_description(bd.partition_name::oid, 'pg_class') AS note
               FROM @extschema@.crid_partition_bounds(parent) bd
               JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) bd.partition_name::oid
              WHERE NOT bd.is_default
    LOOP
        recorded := pg_catalog.substring(p.note, '^crid: ([^\n]*)');
        IF recorded IS NOT NULL THEN
            IF recorded OPERATOR(pg_catalog.<>) expected THEN
                partition_name := p.part;
                made_under := recorded;
                detail := pg_catalog.format('%s was made under %s, not %s', p.part, recorded, expected);
                RETURN NEXT;
            END IF;
            CONTINUE;
        END IF;

        bad := NULL;
        FOREACH b IN ARRAY ARRAY[p.from_id, p.to_id] LOOP
            CONTINUE WHEN b IS NULL OR bad IS NOT NULL;
            BEGIN
                CASE k.key_family
                WHEN 'uuidv7' THEN
                    t := @extschema@.uuid_v7_to_timestamptz(b::uuid);
                    first_id := @extschema@.uuid_v7_time_bound(t, '>=')::text;
                    earlier := @extschema@.uuid_v7_time_bound(t, '<') IS NOT NULL;
                WHEN 'snowflake' THEN
                    t := @extschema@.snowflake_to_timestamptz(b::bigint, k.key_layout);
                    first_id := @extschema@.snowflake_time_bound(t, '>=', k.key_layout)::text;
                    earlier := @extschema@.snowflake_time_bound(t, '<', k.key_layout) IS NOT NULL;
                ELSE
                    t := @extschema@.crid_to_timestamptz(b::bigint);
                    first_id := @extschema@.crid_time_bound(t, '>=')::text;
                    earlier := @extschema@.crid_time_bound(t, '<') IS NOT NULL;
                END CASE;
            EXCEPTION WHEN OTHERS THEN
                t := NULL;
            END;
            IF t IS NULL OR first_id IS DISTINCT FROM b
               OR (earlier AND pg_catalog.date_trunc('hour', pg_catalog.timezone('UTC', t))
                               OPERATOR(pg_catalog.<>) pg_catalog.timezone('UTC', t)) THEN
                bad := pg_catalog.format('its bound %s is not the first id of an hour under %s', b, expected);
            END IF;
        END LOOP;

        stamp := pg_catalog.substring(p.relname, '_p([0-9]{6}|[0-9]{8}|[0-9]{10})(_[0-9]+)?$');
        IF bad IS NULL AND stamp IS NOT NULL AND p.from_id IS NOT NULL THEN
            BEGIN
                t := CASE k.key_family
                     WHEN 'uuidv7' THEN @extschema@.uuid_v7_to_timestamptz(p.from_id::uuid)
                     WHEN 'snowflake' THEN @extschema@.snowflake_to_timestamptz(p.from_id::bigint, k.key_layout)
                     ELSE @extschema@.crid_to_timestamptz(p.from_id::bigint) END;
                said := pg_catalog.to_char(pg_catalog.timezone('UTC', t),
                                           CASE pg_catalog.length(stamp) WHEN 6 THEN 'YYYYMM' WHEN 8 THEN 'YYYYMMDD'
                                                ELSE 'YYYYMMDDHH24' END);
            EXCEPTION WHEN OTHERS THEN
                said := NULL;
            END;
            -- The layout's first id begins the interval that holds the
            -- epoch, which may begin before it.
            IF said IS DISTINCT FROM stamp AND p.from_id NOT IN ('0', '00000000-0000-0000-0000-000000000000') THEN
                bad := pg_catalog.format('its name says its interval begins at %s, its bounds begin at %s under %s',
                                         stamp, coalesce(said, 'no time'), expected);
            END IF;
        END IF;
        IF bad IS NOT NULL THEN
            partition_name := p.part;
            made_under := NULL;
            detail := pg_catalog.format('%s: %s', p.part, bad);
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;

-- ERROR 22023 (nothing done) when a partition of the table does not fit the
-- layout the partition functions would read it by now: they would drop,
-- detach or move rows by the wrong times. Called by each function that
-- changes a table, before it changes anything.
CREATE FUNCTION crid_partition_layout_guard(parent regclass, caller text, family text, layout text) RETURNS void
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m record;
    n bigint;
    expected text;
BEGIN
    IF parent IS NULL OR caller IS NULL OR family IS NULL THEN
        RAISE EXCEPTION 'crid_partition_layout_guard: parent, caller and family must not be NULL' USING ERRCODE = '22004';
    END IF;
    expected := @extschema@.crid_partition_layout_name(family, layout);
    SELECT pg_catalog.count(*) OVER () AS n, f.* INTO m
      FROM @extschema@.crid_partition_misfits(parent, family, layout) f
     ORDER BY f.made_under IS NULL, f.partition_name::text LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF m.made_under IS NOT NULL THEN
        RAISE EXCEPTION '%: the partitions of % were made under the layout "%", not "%"', caller, parent,
                        m.made_under, expected
            USING ERRCODE = '22023',
                  DETAIL = pg_catalog.format('%s of its partitions do not fit; %s. Nothing was changed: read by '
                                             'another layout, their rows would be dropped, detached or moved by '
                                             'wrong times.', m.n, m.detail),
                  HINT = CASE WHEN m.made_under OPERATOR(pg_catalog.~) '^snowflake '
                              THEN pg_catalog.format('Give layout => %L to every partition function on this table, '
                                                     'or set this server''s layout to it (crid_check() names the '
                                                     'settings).', pg_catalog.substr(m.made_under, 11))
                              ELSE 'Set this server''s layout settings to the ones the partitions were made under '
                                   '(crid_check() names them).' END;
    END IF;
    RAISE EXCEPTION '%: the partitions of % were not made under the layout "%"', caller, parent, expected
        USING ERRCODE = '22023',
              DETAIL = pg_catalog.format('%s of its partitions do not fit; %s. Nothing was changed: read by another '
                                         'layout, their rows would be dropped, detached or moved by wrong times.',
                                         m.n, m.detail),
              HINT = 'Give layout => ... the layout they were made under (the source server''s snowflake_layout(), '
                     'for a restore), or set this server''s layout settings to it.';
END
$$;
