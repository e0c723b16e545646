-- crid 0.1.0 -> 0.2.0. New and changed SQL objects of 0.2.0 go here; the
-- Makefile appends this file to crid--0.1.0.sql to build crid--0.2.0.sql, so
-- a fresh install and an upgrade run the same statements.
\echo Use "ALTER EXTENSION crid UPDATE TO '0.2.0'" to load this file. \quit

------------------------------------------------------------------------------
-- Hardening (issue 12): no generator turns a NULL argument into a NULL id.
------------------------------------------------------------------------------

-- 0.1.0 declared these STRICT, so a NULL node or gene silently gave a NULL
-- id; now they raise 22004 like every other generator.
ALTER FUNCTION snowflake_next(integer) CALLED ON NULL INPUT;
ALTER FUNCTION snowflake_next(integer, integer) CALLED ON NULL INPUT;

