-- The plan of a snowflake backfill: a table of the rows of `rel` whose
-- `column_name` is NULL, by primary key, with the id each gets on `node`:
-- its time_column's unit, and as sequence its rank in that unit by
-- (time_column, primary key). Returns the expression that reads a row's id
-- from the plan, for crid_backfill:
--   CALL crid_backfill('orders', 'new_id',
--                      snowflake_backfill_plan('orders', 'new_id', 'created_at', 'orders_new_id_plan'));
-- The ranks are fixed once, in one snapshot, and kept: ranks computed again
-- after rows were deleted would give a row the sequence of a row already
-- filled. So an existing plan of the same backfill is used again (that is how
-- a CALL resumes), and a table of that name that is not one is refused.
--
-- The plan chooses the ids written, and crid_backfill reads it as its
-- caller: so a relation of the plan's name is taken as the plan only when
-- it is one this function made for its caller: an ordinary table the
-- current role owns (whose code, if any, is the caller's own), with the
-- plan's columns, its comment naming this backfill, and no trigger, rule or
-- row security. Anything else of that name (another role's table or view in
-- a schema others may create in, with the comment copied) is refused with
-- ERROR 42501 or 42P07 before it is read. The expression it returns
-- compares keys with the operators of the primary key's index, named with
-- their schema (crid_key_operators), never found through a search_path.
CREATE OR REPLACE FUNCTION snowflake_backfill_plan(rel regclass, column_name name, time_column name, plan_table text,
                                        node integer, layout text) RETURNS text
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'snowflake_backfill_plan';
    relkind "char";
    keys text[];       -- primary key columns, quoted
    column_type regtype;
    time_type regtype;
    parts text[];
    plan_schema name;
    plan_name name;
    plan text;         -- the plan table, qualified and quoted
    marker text;       -- the plan table's comment: which backfill it plans
    found_marker text;
    existing record;   -- the relation of the plan's name, if any
    canonical text;    -- the layout as snowflake_layout() spells it
    capacity bigint;   -- sequences of one node in one time unit
    unit_ms bigint;
    burst record;
    rows_planned bigint;
BEGIN
    IF rel IS NULL OR column_name IS NULL OR time_column IS NULL OR plan_table IS NULL OR node IS NULL
       OR layout IS NULL THEN
        RAISE EXCEPTION '%: no argument may be NULL', fn USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind INTO relkind FROM pg_catalog.pg_class c WHERE c.oid = rel;
    IF relkind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '%: % is not a table', fn, rel USING ERRCODE = '42809';
    END IF;
    SELECT array_agg(pg_catalog.quote_ident(a.attname) ORDER BY k.ord) INTO keys
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = rel AND i.indisprimary;
    IF keys IS NULL THEN
        RAISE EXCEPTION '%: % has no primary key', fn, rel USING ERRCODE = '55000',
            HINT = 'The plan keys each row by its primary key, and ranks rows of one time by it.';
    END IF;
    SELECT a.atttypid INTO column_type FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = snowflake_backfill_plan.column_name AND a.attnum > 0 AND NOT a.attisdropped;
    IF column_type IS NULL THEN
        RAISE EXCEPTION '%: column "%" of relation % does not exist', fn, column_name, rel USING ERRCODE = '42703';
    END IF;
    IF column_type <> 'bigint'::regtype THEN
        RAISE EXCEPTION '%: column "%" of % is %, not bigint', fn, column_name, rel, column_type
            USING ERRCODE = '42804';
    END IF;
    IF pg_catalog.quote_ident(column_name) = ANY (keys) THEN
        RAISE EXCEPTION '%: column "%" is part of the primary key of %', fn, column_name, rel
            USING ERRCODE = '22023';
    END IF;
    SELECT a.atttypid INTO time_type FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = time_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF time_type IS NULL THEN
        RAISE EXCEPTION '%: column "%" of relation % does not exist', fn, time_column, rel USING ERRCODE = '42703';
    END IF;
    IF time_type <> 'timestamptz'::regtype THEN
        -- timestamp and date convert through the session's TimeZone: another
        -- session would plan other ids.
        RAISE EXCEPTION '%: column "%" of % is %, not timestamp with time zone', fn, time_column, rel, time_type
            USING ERRCODE = '42804',
                  HINT = 'Plan from an expression that says the zone, e.g. a column added as created_at AT TIME ZONE ''UTC''.';
    END IF;
    -- The node and the layout, checked once rather than at the first row.
    PERFORM @extschema@.snowflake_pack(@extschema@.snowflake_to_timestamptz(0, layout), node, 0, layout);

    parts := pg_catalog.parse_ident(plan_table);
    IF cardinality(parts) > 2 THEN
        RAISE EXCEPTION '%: plan table "%" is not a table name', fn, plan_table USING ERRCODE = '42602';
    END IF;
    plan_name := parts[cardinality(parts)];
    plan_schema := CASE WHEN cardinality(parts) = 2 THEN parts[1]
                        ELSE (SELECT n.nspname FROM pg_catalog.pg_class c
                              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel) END;
    plan := format('%I.%I', plan_schema, plan_name);
    -- The table always qualified: the text of rel depends on the search_path.
    marker := format('crid snowflake_backfill_plan of %s.%I from %I: node %s, layout %s',
                     (SELECT format('%I.%I', n.nspname, c.relname) FROM pg_catalog.pg_class c
                      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel),
                     column_name, time_column, node, @extschema@.snowflake_layout(layout));

    SELECT c.oid, c.relkind, c.relowner, c.relhastriggers, c.relhasrules, c.relrowsecurity,
           pg_catalog.obj_description(c.oid, 'pg_class') AS marker,
           ARRAY(SELECT pg_catalog.quote_ident(a.attname) FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0
                   AND NOT a.attisdropped ORDER BY a.attnum) AS columns
      INTO existing
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
     WHERE n.nspname OPERATOR(pg_catalog.=) plan_schema AND c.relname OPERATOR(pg_catalog.=) plan_name;
    IF FOUND THEN
        found_marker := existing.marker;
        IF existing.relowner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                                   WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
            RAISE EXCEPTION '%: % belongs to another role and is not a plan of this backfill', fn, plan
                USING ERRCODE = '42501',
                DETAIL = 'A plan chooses the ids the backfill writes: only a table of the role that runs the backfill '
                         'is taken for one.',
                HINT = 'Name another plan table (in a schema only trusted roles may create in).';
        END IF;
        IF existing.relkind OPERATOR(pg_catalog.<>) 'r' OR existing.relhastriggers OR existing.relhasrules
           OR existing.relrowsecurity
           OR existing.columns IS DISTINCT FROM keys OPERATOR(pg_catalog.||) pg_catalog.quote_ident(column_name) THEN
            RAISE EXCEPTION '%: % exists and is not the plan of this backfill', fn, plan USING ERRCODE = '42P07',
                DETAIL = 'A plan is an ordinary table with the primary key columns and the column planned, and no '
                         'trigger, rule or row security.',
                HINT = 'Name another plan table, or drop this one if it is no longer needed.';
        END IF;
        IF found_marker IS DISTINCT FROM marker THEN
            RAISE EXCEPTION '%: % exists and is not the plan of this backfill', fn, plan USING ERRCODE = '42P07',
                DETAIL = format('Its comment is %L; the plan would say %L.', found_marker, marker),
                HINT = 'Name another plan table, or drop this one if it is no longer needed.';
        END IF;
        RAISE NOTICE '%: using the existing plan %', fn, plan;
    ELSE
        BEGIN
            EXECUTE format(
                'CREATE TABLE %1$s AS '
                'SELECT %2$s, @extschema@.snowflake_pack(%3$I, %4$s, (row_number() OVER w - 1)::integer, %5$L) AS %6$I '
                'FROM %7$s WHERE %6$I IS NULL '
                'WINDOW w AS (PARTITION BY @extschema@.snowflake_floor(%3$I, %5$L) ORDER BY %3$I, %2$s)',
                plan, array_to_string(keys, ', '), time_column, node, layout, column_name, rel);
            GET DIAGNOSTICS rows_planned = ROW_COUNT;
        EXCEPTION
            WHEN numeric_value_out_of_range THEN
                -- A rank past the sequence field: a unit holds more rows
                -- than one node has sequences. Name the first such unit.
                canonical := @extschema@.snowflake_layout(layout);
                capacity := 2::bigint ^ substring(canonical FROM ',sequence=([0-9]+)')::integer;
                unit_ms := substring(canonical FROM ',unit=([0-9]+)ms')::bigint;
                EXECUTE format('SELECT u, n, count(*) OVER () AS overfull FROM '
                               '(SELECT @extschema@.snowflake_floor(%1$I, %2$L) u, count(*) n FROM %3$s '
                               'WHERE %4$I IS NULL GROUP BY 1 HAVING count(*) > $1) s ORDER BY u LIMIT 1',
                               time_column, layout, rel, column_name) INTO burst USING capacity;
                IF burst.u IS NULL THEN
                    RAISE; -- not a full unit after all
                END IF;
                RAISE EXCEPTION '%: % rows of % fall in the % %, more than the % sequences one snowflake node has in it',
                    fn, burst.n, rel, CASE WHEN unit_ms = 1 THEN 'millisecond' ELSE unit_ms || ' ms unit starting at' END,
                    to_char(@extschema@.snowflake_to_timestamptz(burst.u, layout) AT TIME ZONE 'UTC',
                            'YYYY-MM-DD HH24:MI:SS.MS+00'), capacity
                    USING ERRCODE = '22003',
                    DETAIL = format('%s time units hold more than %s rows to plan; this is the first.',
                                    burst.overfull, capacity),
                    HINT = 'Ids of one node and time differ only in their sequence. Rows stamped with one time in '
                           'bulk (an import that set the time to now()) need times that tell them apart.';
            WHEN null_value_not_allowed THEN
                EXECUTE format('SELECT ARRAY[%1$s]::text[] FROM %2$s WHERE %3$I IS NULL AND %4$I IS NULL LIMIT 1',
                               (SELECT string_agg(format('%s::text', k), ', ') FROM unnest(keys) k),
                               rel, column_name, time_column) INTO parts;
                IF parts IS NULL THEN
                    RAISE;
                END IF;
                RAISE EXCEPTION '%: % is NULL in the row of % with primary key (%)', fn, time_column, rel,
                    array_to_string(parts, ', ') USING ERRCODE = '22004',
                    HINT = 'A row without a time has no place in time order; give it one, or fill it apart.';
        END;
        EXECUTE format('ALTER TABLE %s ADD PRIMARY KEY (%s), ALTER COLUMN %I SET NOT NULL', plan,
                       array_to_string(keys, ', '), column_name);
        EXECUTE format('COMMENT ON TABLE %s IS %L', plan, marker);
        RAISE NOTICE '%: % rows of % planned in %', fn, rows_planned, rel, plan;
    END IF;
    RETURN format('(SELECT p.%I FROM %s p WHERE %s)', column_name, plan,
                  (SELECT string_agg(format('p.%s %s %I.%s', o.key_column_q, o.eq,
                                            (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel),
                                            o.key_column_q), ' AND ' ORDER BY o.ord)
                   FROM (SELECT k.ord, pg_catalog.quote_ident(k.key_column) AS key_column_q, k.eq
                         FROM @extschema@.crid_key_operators(rel) k) o));
END
$$;
COMMENT ON FUNCTION snowflake_backfill_plan(regclass, name, name, text, integer, text) IS
    'plan the snowflake ids of a backfill on a node of a layout; returns the expression for crid_backfill';

