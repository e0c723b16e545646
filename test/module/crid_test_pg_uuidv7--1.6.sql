-- test-only stand-in for pg_uuidv7 1.6 (see crid_test_pg_uuidv7.control).
\echo Use "CREATE EXTENSION crid_test_pg_uuidv7" to load this file. \quit

CREATE FUNCTION uuid_timestamptz_to_v7(timestamptz, zero bool = false) RETURNS uuid
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog
AS $$
DECLARE
    ms bigint := floor(extract(epoch FROM $1) * 1000)::bigint;
    b bytea := CASE WHEN $2 THEN '\x00000000000000000000000000000000'::bytea ELSE uuid_send(gen_random_uuid()) END;
BEGIN
    b := overlay(b PLACING substring(int8send(ms) FROM 3) FROM 1 FOR 6);
    b := set_byte(b, 6, (get_byte(b, 6) & 15) | 112);
    b := set_byte(b, 8, (get_byte(b, 8) & 63) | 128);
    RETURN encode(b, 'hex')::uuid;
END
$$;

CREATE FUNCTION uuid_generate_v7() RETURNS uuid
    LANGUAGE plpgsql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog
AS $$
DECLARE
    ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    b bytea := CASE WHEN false THEN '\x00000000000000000000000000000000'::bytea ELSE uuid_send(gen_random_uuid()) END;
BEGIN
    b := overlay(b PLACING substring(int8send(ms) FROM 3) FROM 1 FOR 6);
    b := set_byte(b, 6, (get_byte(b, 6) & 15) | 112);
    b := set_byte(b, 8, (get_byte(b, 8) & 63) | 128);
    RETURN encode(b, 'hex')::uuid;
END
$$;

CREATE FUNCTION uuid_v7_to_timestamptz(uuid) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog
AS $$
    SELECT to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond'
    FROM (SELECT ('x' || substr(replace($1::text, '-', ''), 1, 12))::bit(48)::bigint AS ms) m
$$;

CREATE FUNCTION uuid_timestamp_to_v7(timestamp, zero bool = false) RETURNS uuid
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog
AS $$
DECLARE
    ms bigint := floor(extract(epoch FROM ($1 AT TIME ZONE 'UTC')) * 1000)::bigint;
    b bytea := CASE WHEN $2 THEN '\x00000000000000000000000000000000'::bytea ELSE uuid_send(gen_random_uuid()) END;
BEGIN
    b := overlay(b PLACING substring(int8send(ms) FROM 3) FROM 1 FOR 6);
    b := set_byte(b, 6, (get_byte(b, 6) & 15) | 112);
    b := set_byte(b, 8, (get_byte(b, 8) & 63) | 128);
    RETURN encode(b, 'hex')::uuid;
END
$$;

CREATE FUNCTION uuid_v7_to_timestamp(uuid) RETURNS timestamp
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog
AS $$
    SELECT (to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond') AT TIME ZONE 'UTC'
    FROM (SELECT ('x' || substr(replace($1::text, '-', ''), 1, 12))::bit(48)::bigint AS ms) m
$$;
