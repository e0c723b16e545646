-- The interval of one partition, as date_trunc names it: 1 hour, 1 day,
-- 1 week (7 days, from Monday) or 1 month, each from its start in UTC; any
-- other is ERROR 22023. Only these exact fields are taken: '24 hours' and
-- '30 days' are refused rather than guessed at (PostgreSQL compares them equal
-- to 1 day and 1 month).
CREATE FUNCTION crid_partition_step_unit(step interval) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT SECURITY INVOKER PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    months numeric := extract(year FROM step) * 12 + extract(month FROM step);
    days numeric := extract(day FROM step);
    seconds numeric := extract(hour FROM step) * 3600 + extract(minute FROM step) * 60 + extract(second FROM step);
BEGIN
    IF months = 0 AND days = 0 AND seconds = 3600 THEN
        RETURN 'hour';
    ELSIF months = 0 AND days = 1 AND seconds = 0 THEN
        RETURN 'day';
    ELSIF months = 0 AND days = 7 AND seconds = 0 THEN
        RETURN 'week';
    ELSIF months = 1 AND days = 0 AND seconds = 0 THEN
        RETURN 'month';
    END IF;
    RAISE EXCEPTION 'crid partitions: a partition''s interval is 1 hour, 1 day, 1 week or 1 month, not %', step
        USING ERRCODE = '22023';
END
$$;
