-- Every misconfiguration crid can see from this server and database, one row
-- each: problem (a fixed word, for scripts), object (what it is about),
-- detail (what is wrong and what it breaks) and fix (the command that fixes
-- it; a comment after it says what else to do, such as a restart). No rows:
-- nothing crid can see is wrong.
CREATE OR REPLACE FUNCTION crid_check(OUT problem text, OUT object text, OUT detail text, OUT fix text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- One line per part (sql/functions/crid_check_<topic>.sql), each with
    -- these columns, each answering any role.
    RETURN QUERY SELECT * FROM @extschema@.crid_check_replication();
    RETURN QUERY SELECT * FROM @extschema@.crid_check_server();
    RETURN QUERY SELECT * FROM @extschema@.crid_check_public_ids();
    RETURN QUERY SELECT * FROM @extschema@.crid_check_keys();
    RETURN QUERY SELECT * FROM @extschema@.crid_check_json_keys();
    RETURN QUERY SELECT * FROM @extschema@.crid_check_sequences();
END
$$;
