-- The layout a family's ids are read by, as one line: 'uuidv7', 'snowflake '
-- followed by the canonical layout, or 'crid epoch=...,timestamp_bits=...'
-- from this server's crid.epoch and crid.timestamp_bits. crid_partition_create
-- records it in the comment of each partition it makes ('crid: ' and this),
-- so that the partition functions can tell the layout a table's partitions
-- were made under from the one they would read them by now.
CREATE FUNCTION crid_partition_layout_name(family text, layout text DEFAULT NULL) RETURNS text
    LANGUAGE plpgsql STABLE SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF family IS NULL THEN
        RAISE EXCEPTION 'crid_partition_layout_name: family must not be NULL' USING ERRCODE = '22004';
    END IF;
    CASE family
    WHEN 'uuidv7' THEN
        RETURN 'uuidv7';
    WHEN 'snowflake' THEN
        RETURN 'snowflake ' OPERATOR(pg_catalog.||)
               CASE WHEN layout IS NULL THEN @extschema@.snowflake_layout() ELSE @extschema@.snowflake_layout(layout) END;
    WHEN 'crid' THEN
        RETURN pg_catalog.format('crid epoch=%s,timestamp_bits=%s',
                                 pg_catalog.to_char(pg_catalog.timezone('UTC',
                                     coalesce(pg_catalog.current_setting('crid.epoch', true),
                                              '2026-01-01 00:00:00+00')::timestamptz),
                                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                 coalesce(pg_catalog.current_setting('crid.timestamp_bits', true), '31'));
    ELSE
        RAISE EXCEPTION 'crid_partition_layout_name: unknown family "%"', family
            USING ERRCODE = '22023', HINT = 'The families are uuidv7, snowflake and crid.';
    END CASE;
END
$$;
