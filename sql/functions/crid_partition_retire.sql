-- Detaches (detach => true) or drops the partitions of a table whose every
-- id decodes to a time before `before`: those whose upper bound is at most
-- the first id of the first time unit at or after it. The default partition
-- and a partition up to MAXVALUE are never retired. Same lock as
-- crid_partition_create; a second run finds nothing to do. One row per
-- partition detached or dropped.
CREATE OR REPLACE FUNCTION crid_partition_retire(parent regclass, before timestamptz, detach boolean DEFAULT false,
                                      family text DEFAULT NULL, layout text DEFAULT NULL,
                                      OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
    cutoff text;  -- the first id at or after `before`; NULL: none is that late
    p record;
    old regclass[];
BEGIN
    IF parent IS NULL OR before IS NULL OR detach IS NULL THEN
        RAISE EXCEPTION 'crid_partition_retire: parent, before and detach must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF NOT isfinite(before) THEN
        RAISE EXCEPTION 'crid_partition_retire: before must be a finite time' USING ERRCODE = '22008';
    END IF;
    k := @extschema@.crid_partition_key(parent, family, layout);
    EXECUTE format('LOCK TABLE ONLY %s IN SHARE UPDATE EXCLUSIVE MODE', parent);
    PERFORM @extschema@.crid_partition_layout_guard(parent, 'crid_partition_retire', k.key_family, k.key_layout);
    cutoff := CASE k.key_family
              WHEN 'uuidv7' THEN @extschema@.uuid_v7_time_bound(before, '>=')::text
              WHEN 'snowflake' THEN @extschema@.snowflake_time_bound(before, '>=', k.key_layout)::text
              ELSE @extschema@.crid_time_bound(before, '>=')::text END;
    IF k.key_family = 'uuidv7' THEN
        SELECT array_agg(b.partition_name ORDER BY b.to_id::uuid) INTO old
          FROM @extschema@.crid_partition_bounds(parent) b
         WHERE b.to_id IS NOT NULL AND (cutoff IS NULL OR b.to_id::uuid <= cutoff::uuid);
    ELSE
        SELECT array_agg(b.partition_name ORDER BY b.to_id::bigint) INTO old
          FROM @extschema@.crid_partition_bounds(parent) b
         WHERE b.to_id IS NOT NULL AND (cutoff IS NULL OR b.to_id::bigint <= cutoff::bigint);
    END IF;
    FOR i IN 1 .. coalesce(cardinality(old), 0) LOOP
        partition_name := old[i]::text;
        IF detach THEN
            EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, old[i]);
            action := 'detached';
        ELSE
            EXECUTE format('DROP TABLE %s', old[i]);
            action := 'dropped';
        END IF;
        row_count := NULL;
        RETURN NEXT;
    END LOOP;
END
$$;
