-- One call for a scheduler (pg_cron): the partitions of every interval of
-- `step` from now's through now() + ahead's (crid_partition_create), the
-- rows of the default partition moved into theirs
-- (crid_partition_move_default), and with a retention, the partitions whose
-- ids all decode to times before now() - retention detached or dropped
-- (crid_partition_retire). Each step takes the parent's SHARE UPDATE
-- EXCLUSIVE lock, so runs that overlap wait for each other; a run with
-- nothing to do returns no row.
CREATE FUNCTION crid_partition_maintain(parent regclass, step interval, ahead interval,
                                        retention interval DEFAULT NULL, detach boolean DEFAULT false,
                                        gene_bits integer DEFAULT 0, family text DEFAULT NULL,
                                        layout text DEFAULT NULL,
                                        OUT action text, OUT partition_name text, OUT row_count bigint)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE SECURITY INVOKER PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF parent IS NULL OR step IS NULL OR ahead IS NULL OR detach IS NULL OR gene_bits IS NULL THEN
        RAISE EXCEPTION 'crid_partition_maintain: parent, step, ahead, detach and gene_bits must not be NULL'
            USING ERRCODE = '22004';
    END IF;
    IF ahead < interval '0' OR retention < interval '0' THEN
        RAISE EXCEPTION 'crid_partition_maintain: ahead and retention must not be negative' USING ERRCODE = '22023';
    END IF;
    RETURN QUERY SELECT * FROM @extschema@.crid_partition_create(parent, step, now(), now() + ahead, gene_bits, family, layout);
    RETURN QUERY SELECT * FROM @extschema@.crid_partition_move_default(parent, step, gene_bits, family, layout);
    IF retention IS NOT NULL THEN
        RETURN QUERY SELECT * FROM @extschema@.crid_partition_retire(parent, now() - retention, detach, family, layout);
    END IF;
END
$$;
