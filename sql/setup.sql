-- Runs first in the preloaded suite: the extension, and helpers the other
-- tests use to list the SQLSTATE (and message) of each bad input in one table.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS crid;
RESET client_min_messages;
CREATE SCHEMA regress;
CREATE FUNCTION regress.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;
-- SQLSTATE and message of a statement's error.
CREATE FUNCTION regress.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT regress.sqlstate_of('SELECT 1') AS ok, regress.sqlstate_of('SELECT 1/0') AS division_by_zero,
       regress.error_of('SELECT 1/0') AS with_message;
