-- Fills column_name with expression where it is NULL, batch_size rows at a
-- time in primary-key order, committing each batch and sleeping pause
-- between them. Interrupted, it resumes from its last committed batch; a
-- filled row is never written again. Everything is checked before the first
-- row changes.
--
-- It finishes or fails, never loops: a batch whose UPDATE leaves rows it
-- picked NULL (a BEFORE UPDATE trigger returned NULL for them, row-level
-- security hides them from UPDATE) stops the run with an ERROR that counts
-- them, names some and says why. Rows picked but changed or deleted by
-- another transaction meanwhile are not its to write.
--
-- "done" means: no row is NULL that was visible to the backfill when it
-- finished, nor one written by a transaction that was open when its final
-- pass began: once nothing is left, it waits for every transaction of the
-- database open at that moment to end (as CREATE INDEX CONCURRENTLY waits
-- for older snapshots), then makes one more pass from the start. Rows of
-- transactions that begin later are theirs: give the column a DEFAULT first.
--
-- The names it gives its own parts of the batch statement (the CTEs and
-- their columns) carry a random suffix and are checked against the table's
-- name, its columns and the expression's text: they never capture a name of
-- the user's.
--
-- It runs with its caller's rights. A procedure that commits cannot pin
-- its search_path with SET, so it sets it itself, for its transaction, to
-- pg_catalog and pg_temp: its own statements then resolve no function or
-- operator of any other schema, whatever the caller's search_path (an
-- operator planted in public with exact argument types, such as
-- =(oid, regclass), would otherwise win over pg_catalog's). Only the
-- caller's own parts resolve through the caller's search_path: the
-- expression, when it is checked and in the batch statement. The key
-- columns are compared and ordered with the operators of their primary
-- key's index, named with their schema (crid_key_operators), and every other
-- operator of the batch statement is named with its schema too.
--
-- Its run's row of crid_backfill_state, which no role may write or lock but
-- crid, is written through crid_backfill_state_write: for a caller who may
-- update the column, as the state table's owner. The advisory lock that
-- keeps two runs on one column apart can be taken by any session: a run
-- that finds it held by a backend that is not a crid_backfill run says
-- which backend holds it.
CREATE OR REPLACE PROCEDURE crid_backfill(rel regclass, column_name name, expression text,
                                          batch_size integer DEFAULT 5000, pause interval DEFAULT '50 ms')
    LANGUAGE plpgsql
AS $$
DECLARE
    col record;
    keys text[];       -- primary key columns, quoted
    key_types text[];  -- their types
    key_lt text[];     -- the operators of their primary key's index: <, = and >
    key_eq text[];
    key_gt text[];
    key_cursor text[]; -- the cursor's values, typed
    target text;       -- the table as UPDATE names it
    lock_key bigint;
    resume text[];
    cursor_key text[];
    after text;
    batch_sql text[] := '{}';  -- the batch from the start, and after a cursor
    picked bigint;
    filled bigint;
    last_picked text[];
    null_key text[];
    unwritten text[];  -- keys picked and not written (two dimensions: row, key column)
    stuck bigint;
    stuck_keys text;
    why text;
    more boolean;
    final_pass boolean := false;  -- the pass after waiting for older transactions
    waited_for text[];
    waiting_pids text;
    total bigint;
    done bigint := 0;
    batch_no bigint := 0;
    run_start timestamptz := pg_catalog.clock_timestamp();
    caller_path constant text := pg_catalog.current_setting('search_path');
    shown constant text := rel::text;  -- the table as the caller's search_path names it
    rate numeric;
    left_rows bigint;
    eta bigint;        -- seconds left at the current rate
    label text := pg_catalog.format('%s.%I', rel, column_name);
    suffix text;
    batch_cte text;    -- internal names, unlike any of the user's
    filled_cte text;
    key_alias text;
    key_match text;    -- the keys of the unwritten rows, typed, for IN
BEGIN
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    IF rel IS NULL OR column_name IS NULL OR expression IS NULL OR batch_size IS NULL OR pause IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    IF batch_size < 1 THEN
        RAISE EXCEPTION 'crid_backfill: batch_size % is below 1', batch_size USING ERRCODE = '22023';
    END IF;
    IF pause < interval '0' THEN
        RAISE EXCEPTION 'crid_backfill: pause % is negative', pause USING ERRCODE = '22023';
    END IF;
    IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = rel) NOT IN ('r', 'p') THEN
        RAISE EXCEPTION 'crid_backfill: % is not a table', shown USING ERRCODE = '42809';
    END IF;
    SELECT a.attnum, a.attgenerated, a.attidentity INTO col
    FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = rel AND a.attname = crid_backfill.column_name AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of relation % does not exist', column_name, shown
            USING ERRCODE = '42703';
    END IF;
    IF col.attgenerated <> '' THEN
        RAISE EXCEPTION 'crid_backfill: column "%" of % is a generated column', column_name, shown
            USING ERRCODE = '42809';
    END IF;
    SELECT pg_catalog.array_agg(pg_catalog.quote_ident(a.attname) ORDER BY k.ord),
           pg_catalog.array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) ORDER BY k.ord)
    INTO keys, key_types
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL pg_catalog.unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = rel AND i.indisprimary;
    IF keys IS NULL THEN
        RAISE EXCEPTION 'crid_backfill: % has no primary key', shown USING ERRCODE = '55000',
            HINT = 'Batches walk the table in primary-key order; add a primary key (or backfill with UPDATE).';
    END IF;
    IF pg_catalog.quote_ident(column_name) = ANY (keys) THEN
        RAISE EXCEPTION 'crid_backfill: column "%" is part of the primary key of %, which is never NULL',
            column_name, shown USING ERRCODE = '22023';
    END IF;
    IF NOT pg_catalog.has_column_privilege(rel, col.attnum, 'UPDATE') THEN
        RAISE EXCEPTION 'crid_backfill: permission denied to update column "%" of %', column_name, shown
            USING ERRCODE = '42501';
    END IF;
    SELECT pg_catalog.array_agg(o.lt ORDER BY o.ord), pg_catalog.array_agg(o.eq ORDER BY o.ord),
           pg_catalog.array_agg(o.gt ORDER BY o.ord)
    INTO key_lt, key_eq, key_gt
    FROM @extschema@.crid_key_operators(rel) o;
    IF pg_catalog.cardinality(key_eq) IS DISTINCT FROM pg_catalog.cardinality(keys)
       OR pg_catalog.array_position(key_lt, NULL) IS NOT NULL OR pg_catalog.array_position(key_eq, NULL) IS NOT NULL
       OR pg_catalog.array_position(key_gt, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'crid_backfill: the primary key of % is not ordered by B-tree operators crid can name', shown
            USING ERRCODE = '55000';
    END IF;
    -- The expression is the caller's: checked as the caller's session reads it.
    PERFORM pg_catalog.set_config('search_path', caller_path, true);
    PERFORM @extschema@.crid_backfill_check_expression(rel, column_name, expression);
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

    target := pg_catalog.quote_ident((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel));
    lock_key := @extschema@.crid_backfill_lock_key(rel, col.attnum);
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        PERFORM @extschema@.crid_backfill_lock_refused(rel, col.attnum, lock_key, label, false);
    END IF;

    -- The names of the batch statement's own parts: a CTE name is seen by
    -- every subquery of the statement, the expression's too, and the batch's
    -- columns by its unqualified column names. So none may be the table's
    -- name, one of its columns, or occur in the expression.
    LOOP
        suffix := pg_catalog.substr(pg_catalog.md5(pg_catalog.random()::text || pg_catalog.clock_timestamp()::text), 1, 8);
        batch_cte := 'crid_backfill_batch_' || suffix;
        filled_cte := 'crid_backfill_filled_' || suffix;
        key_alias := 'crid_backfill_key_' || suffix || '_';
        EXIT WHEN pg_catalog.strpos(pg_catalog.lower(expression), suffix) = 0
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                              WHERE a.attrelid = rel AND pg_catalog.strpos(pg_catalog.lower(a.attname), suffix) > 0)
              AND pg_catalog.strpos(pg_catalog.lower((SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = rel)), suffix) = 0;
    END LOOP;

    -- One batch: pick the next batch_size NULL rows (after the cursor: $1,
    -- the last key of the previous batch), fill those still NULL, report how
    -- many were picked and filled, the last key picked, the key of a row the
    -- expression left NULL, and the keys of rows picked and not written. The
    -- expression sits between parentheses on lines of its own (it was
    -- checked to be one expression).
    -- After the cursor: the keys in their index's order past the cursor's,
    -- as one row comparison when one operator serves every key column,
    -- spelled out key by key otherwise.
    key_cursor := ARRAY(SELECT pg_catalog.format('($1)[%s]::%s', n, key_types[n])
                        FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n ORDER BY n);
    IF (SELECT pg_catalog.count(DISTINCT g) FROM pg_catalog.unnest(key_gt) g) OPERATOR(pg_catalog.=) 1 THEN
        after := pg_catalog.format('(%s) %s (%s)', pg_catalog.array_to_string(keys, ', '), key_gt[1],
                                   pg_catalog.array_to_string(key_cursor, ', '));
    ELSE
        after := pg_catalog.format('%s %s %s', keys[pg_catalog.cardinality(keys)], key_gt[pg_catalog.cardinality(keys)],
                                   key_cursor[pg_catalog.cardinality(keys)]);
        FOR n IN REVERSE pg_catalog.cardinality(keys) - 1 .. 1 LOOP
            after := pg_catalog.format('(%1$s %2$s %3$s OR (%1$s %4$s %3$s AND %5$s))', keys[n], key_gt[n],
                                       key_cursor[n], key_eq[n], after);
        END LOOP;
    END IF;
    FOREACH after IN ARRAY ARRAY['', 'AND ' || after] LOOP
        batch_sql := batch_sql || pg_catalog.format(
            'WITH %14$I AS (SELECT %1$s FROM %2$s WHERE %3$I IS NULL %4$s ORDER BY %5$s LIMIT %6$s), '
            '%15$I AS (UPDATE %2$s SET %3$I = (' || E'\n' || '%7$s' || E'\n' || ') '
            'FROM %14$I WHERE %8$s AND %10$s.%3$I IS NULL '
            'RETURNING %10$s.%3$I IS NULL, ARRAY[%11$s]::text[]) '
            'SELECT (SELECT pg_catalog.count(*) FROM %14$I), '
            '(SELECT pg_catalog.count(*) FROM %15$I), '
            '(SELECT ARRAY[%12$s]::text[] FROM %14$I ORDER BY %13$s LIMIT 1), '
            '(SELECT f.k FROM %15$I f(n, k) WHERE f.n LIMIT 1), '
            '(SELECT pg_catalog.array_agg(ARRAY[%12$s]::text[]) FROM %14$I '
            'WHERE NOT ARRAY[%12$s]::text[] OPERATOR(pg_catalog.=) ANY (SELECT f.k FROM %15$I f(n, k)))',
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s AS %I', k, key_alias || n), ', ') FROM pg_catalog.unnest(keys) WITH ORDINALITY u(k, n)),
            rel, column_name, after,
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s USING %s', keys[n], key_lt[n]), ', ' ORDER BY n)
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            batch_size, expression,
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s.%s %s %I.%I', target, keys[n], key_eq[n], batch_cte,
                                                            key_alias || n), ' AND ' ORDER BY n)
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            NULL,
            target,
            (SELECT pg_catalog.string_agg(pg_catalog.format('%s.%s::text', target, k), ', ') FROM pg_catalog.unnest(keys) k),
            (SELECT pg_catalog.string_agg(pg_catalog.format('%I::text', key_alias || n), ', ')
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            (SELECT pg_catalog.string_agg(pg_catalog.format('%I USING %s', key_alias || n, key_gt[n]), ', ' ORDER BY n)
             FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n),
            batch_cte, filled_cte);
    END LOOP;
    -- The unwritten keys ($1, rows of key texts) as typed rows, for a match.
    key_match := pg_catalog.format('EXISTS (SELECT FROM pg_catalog.generate_subscripts($1, 1) i WHERE %s)',
                        (SELECT pg_catalog.string_agg(pg_catalog.format('%s %s ($1)[i][%s]::%s', keys[n], key_eq[n], n,
                                                                        key_types[n]), ' AND ' ORDER BY n)
                         FROM pg_catalog.generate_series(1, pg_catalog.cardinality(keys)) n));

    SELECT s.last_key INTO resume FROM @extschema@.crid_backfill_state s
    WHERE s.relid = rel AND s.attnum = col.attnum AND s.finished_at IS NULL;
    cursor_key := resume;
    EXECUTE pg_catalog.format('SELECT pg_catalog.count(*) FROM %s WHERE %I IS NULL', rel, column_name) INTO total;
    PERFORM @extschema@.crid_backfill_state_write(rel, col.attnum, column_name, expression, batch_size, run_start,
                                                  0, total, 0, NULL, cursor_key, false);
    IF resume IS NOT NULL THEN
        RAISE NOTICE 'crid_backfill %: resuming after primary key (%), % rows to fill', label,
            pg_catalog.array_to_string(resume, ', '), total;
    END IF;
    COMMIT;
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    -- Committing released the lock: take it again in each transaction.
    IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
        PERFORM @extschema@.crid_backfill_lock_refused(rel, col.attnum, lock_key, label, true);
    END IF;

    LOOP
        PERFORM pg_catalog.set_config('search_path', caller_path, true);
        EXECUTE batch_sql[CASE WHEN cursor_key IS NULL THEN 1 ELSE 2 END]
            INTO picked, filled, last_picked, null_key, unwritten
            USING cursor_key;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        IF null_key IS NOT NULL THEN
            RAISE EXCEPTION 'crid_backfill %: the expression gave NULL for the row with primary key (%)', label,
                pg_catalog.array_to_string(null_key, ', ') USING ERRCODE = '22004',
                HINT = 'Such a row would stay NULL and be picked again forever; fix it or the expression, then CALL again.';
        END IF;
        IF unwritten IS NOT NULL THEN
            -- Picked and not written: those another transaction changed or
            -- deleted meanwhile are not NULL any more; the rest would be
            -- picked again forever.
            PERFORM pg_catalog.set_config('search_path', caller_path, true);
            EXECUTE pg_catalog.format('SELECT pg_catalog.count(*), pg_catalog.string_agg(k, ''), ('' ORDER BY n) '
                           'FILTER (WHERE n OPERATOR(pg_catalog.<=) 5) '
                           'FROM (SELECT pg_catalog.array_to_string(ARRAY[%s]::text[], '', '') AS k, '
                           'pg_catalog.row_number() OVER (ORDER BY %s) AS n FROM %s WHERE %I IS NULL AND %s) s',
                           (SELECT pg_catalog.string_agg(pg_catalog.format('%s::text', k), ', ') FROM pg_catalog.unnest(keys) k),
                           pg_catalog.array_to_string(keys, ', '), rel, column_name, key_match)
                INTO stuck, stuck_keys USING unwritten;
            PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            IF stuck > 0 THEN
                why := nullif(pg_catalog.concat_ws('; ',
                    (SELECT 'BEFORE UPDATE trigger ' || pg_catalog.string_agg(DISTINCT pg_catalog.format('%I', t.tgname), ', ')
                            || ' may return NULL for them'
                     FROM pg_catalog.pg_trigger t
                     WHERE (t.tgrelid = rel OR t.tgrelid IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(rel) p))
                       AND NOT t.tgisinternal AND t.tgenabled <> 'D'
                       AND t.tgtype::integer & (1 | 2 | 16) = (1 | 2 | 16)),
                    CASE WHEN pg_catalog.row_security_active(rel)
                         THEN pg_catalog.format('row-level security may hide them from UPDATE by %I', current_user) END,
                    (SELECT 'rule ' || pg_catalog.string_agg(pg_catalog.format('%I', r.rulename), ', ') || ' may rewrite the UPDATE'
                     FROM pg_catalog.pg_rewrite r WHERE r.ev_class = rel AND r.ev_type = '2')), '');
                RAISE EXCEPTION 'crid_backfill %: % rows of a batch are still NULL after its UPDATE, such as primary key (%)',
                    label, stuck, stuck_keys USING ERRCODE = '55000',
                    DETAIL = 'The UPDATE did not write them: '
                             || coalesce(why, 'a trigger, a row-level security policy or a rule kept it from them')
                             || '. The rows of this batch are rolled back; the batches before it stay.',
                    HINT = 'Such rows would be picked again forever. Let the UPDATE write them (or fill them yourself), '
                           'then CALL again.';
            END IF;
        END IF;
        IF picked = 0 THEN
            -- The end of a pass. Rows inserted behind the cursor meanwhile
            -- are found by one more pass from the start.
            IF cursor_key IS NOT NULL AND NOT final_pass THEN
                EXECUTE pg_catalog.format('SELECT EXISTS (SELECT FROM %s WHERE %I IS NULL)', rel, column_name) INTO STRICT more;
                IF more THEN
                    cursor_key := NULL;
                    CONTINUE;
                END IF;
            END IF;
            EXIT WHEN final_pass;
            -- Nothing is left that this snapshot sees, but a transaction open
            -- now may still commit rows with a NULL here: wait until every
            -- transaction of this database open now has ended (committing
            -- between looks, so that runs waiting alike never wait on each
            -- other), then make a final pass from the start. A prepared
            -- transaction holding a lock on the table is waited for too.
            SELECT pg_catalog.array_agg(l.virtualxid), pg_catalog.string_agg(l.pid::text, ', ' ORDER BY l.pid) INTO waited_for, waiting_pids
            FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'virtualxid' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()
              AND a.datid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
              AND a.backend_type <> 'autovacuum worker';
            waited_for := waited_for || ARRAY(
                SELECT DISTINCT 'prepared ' || l.virtualtransaction FROM pg_catalog.pg_locks l
                WHERE l.locktype = 'relation' AND l.pid IS NULL
                  AND (l.relation = rel OR l.relation IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(rel) p)));
            IF pg_catalog.cardinality(waited_for) > 0 THEN
                RAISE NOTICE 'crid_backfill %: nothing left; waiting for % open now to end before a final pass',
                    label, CASE pg_catalog.cardinality(waited_for) WHEN 1 THEN 'the transaction'
                                ELSE pg_catalog.cardinality(waited_for) || ' transactions' END
                    USING DETAIL = pg_catalog.concat_ws('; ', 'backends ' || waiting_pids,
                                             CASE WHEN EXISTS (SELECT FROM pg_catalog.unnest(waited_for) w WHERE w LIKE 'prepared %')
                                                  THEN 'prepared transactions holding a lock on ' || shown END);
            END IF;
            WHILE EXISTS (SELECT FROM pg_catalog.pg_locks l
                          WHERE (l.locktype = 'virtualxid' AND l.virtualxid = ANY (waited_for))
                             OR (l.locktype = 'relation' AND l.pid IS NULL
                                 AND 'prepared ' || l.virtualtransaction = ANY (waited_for))) LOOP
                COMMIT;
                PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
                IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
                    PERFORM @extschema@.crid_backfill_lock_refused(rel, col.attnum, lock_key, label, true);
                END IF;
                PERFORM pg_catalog.pg_sleep(0.05);
            END LOOP;
            final_pass := true;
            cursor_key := NULL;
            CONTINUE;
        END IF;
        cursor_key := last_picked;
        done := done + filled;
        batch_no := batch_no + 1;
        rate := pg_catalog.round(done / greatest(extract(epoch FROM pg_catalog.clock_timestamp() - run_start), 0.001));
        left_rows := greatest(total - done, 0);
        PERFORM @extschema@.crid_backfill_state_write(rel, col.attnum, column_name, expression, batch_size, run_start,
                                                      done, total, batch_no, rate, cursor_key, false);
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        IF NOT pg_catalog.pg_try_advisory_xact_lock(lock_key) THEN
            PERFORM @extschema@.crid_backfill_lock_refused(rel, col.attnum, lock_key, label, true);
        END IF;
        eta := CASE WHEN rate > 0 THEN pg_catalog.round(left_rows / rate)::bigint END;
        RAISE NOTICE 'crid_backfill %: batch %, % rows done, % left, % rows/s, about % left', label, batch_no, done,
            left_rows, rate, coalesce(pg_catalog.format('%s:%s:%s', eta / 3600, pg_catalog.lpad((eta / 60 % 60)::text, 2, '0'),
                                             pg_catalog.lpad((eta % 60)::text, 2, '0')), 'unknown time');
        IF pause > interval '0' THEN
            PERFORM pg_catalog.pg_sleep(extract(epoch FROM pause)::double precision);
        END IF;
    END LOOP;

    PERFORM @extschema@.crid_backfill_state_write(rel, col.attnum, column_name, expression, batch_size, run_start,
                                                  done, total, batch_no, rate, NULL, true);
    RAISE NOTICE 'crid_backfill %: done, % rows filled in % batches', label, done, batch_no;
END
$$;
