-- The bound of a partition that begins at `at`: the first id of the family
-- (and layout) whose time unit begins at or after `at`, as text (the
-- partition bound's literal). From the same exact bound functions the
-- planner hook writes for `decoder(id) >= at`, so a partition holds exactly
-- the ids whose decoded time lies in its interval, and a query by decoded
-- time prunes to exactly the partitions of its interval.
--
-- `at` must begin a time unit (ERROR 22023 otherwise): a partition boundary
-- inside a unit would put ids of one decoded time into two intervals. A time
-- before the family's first unit gives its first id; a time after its last
-- unit, NULL (no id is that late: the partition ends at MAXVALUE).
CREATE FUNCTION crid_partition_first_id(at timestamptz, family text, layout text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    first_id text;
    first_time timestamptz;  -- the time of first_id's unit
    earlier boolean;         -- an id of a unit before `at` exists
BEGIN
    IF at IS NULL OR family IS NULL THEN
        RAISE EXCEPTION 'crid_partition_first_id: at and family must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT pg_catalog.isfinite(at) THEN
        RAISE EXCEPTION 'crid_partition_first_id: % is not a finite time', at USING ERRCODE = '22008';
    END IF;
    IF layout IS NOT NULL AND family OPERATOR(pg_catalog.<>) 'snowflake' THEN
        RAISE EXCEPTION 'crid_partition_first_id: a layout is for snowflake keys, not %', family USING ERRCODE = '22023';
    END IF;
    CASE family
    WHEN 'uuidv7' THEN
        first_id := @extschema@.uuid_v7_time_bound(at, '>=')::text;
        first_time := @extschema@.uuid_v7_to_timestamptz(first_id::uuid);
        earlier := @extschema@.uuid_v7_time_bound(at, '<') IS NOT NULL;
    WHEN 'snowflake' THEN
        layout := coalesce(layout, @extschema@.snowflake_layout());
        first_id := @extschema@.snowflake_time_bound(at, '>=', layout)::text;
        first_time := @extschema@.snowflake_to_timestamptz(first_id::bigint, layout);
        earlier := @extschema@.snowflake_time_bound(at, '<', layout) IS NOT NULL;
    WHEN 'crid' THEN
        first_id := @extschema@.crid_time_bound(at, '>=')::text;
        first_time := @extschema@.crid_to_timestamptz(first_id::bigint);
        earlier := @extschema@.crid_time_bound(at, '<') IS NOT NULL;
    ELSE
        RAISE EXCEPTION 'crid_partition_first_id: unknown family "%"', family
            USING ERRCODE = '22023', HINT = 'The families are uuidv7, snowflake and crid.';
    END CASE;
    IF first_id IS NOT NULL AND earlier AND first_time OPERATOR(pg_catalog.<>) at THEN
        RAISE EXCEPTION 'crid_partition_first_id: % does not begin a time unit of the % ids', at,
                        coalesce(layout, family)
            USING ERRCODE = '22023',
                  DETAIL = pg_catalog.format('The unit holding it begins before it; the next begins at %s.', first_time),
                  HINT = 'Choose a partition interval whose boundaries are a whole number of the layout''s units from its epoch.';
    END IF;
    RETURN first_id;
END
$$;
