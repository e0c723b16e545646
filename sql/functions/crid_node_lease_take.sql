-- A leasing server's acquisition (crid.node_id = 'lease'): takes one node of
-- the wanted ranges [first_nodes[i], last_nodes[i]] for the holder `token` (a random
-- token per postmaster start; `holder` names the server for people), and
-- returns it with the bound its previous holder wrote (raise_to: the new
-- holder's ids start above it; NULL when nobody held it), or node NULL
-- with how many nodes were probed and how many of those other live servers
-- hold. The block reserver runs exactly this, in the transaction that then
-- renews what the server holds; when it may mint on the node is the
-- trigger crid_node_lease_guard's word (mint_from).
--
-- The choice costs O(1) whatever the number of nodes and of leases held:
-- first the row this server holds already (its worker started again) by
-- the token index, then a lapsed row of its earlier start (same holder) by
-- the holder index, then at most `probes` nodes drawn at random, each one
-- primary key lookup, taking the first that has no row or a lapsed one.
-- With a fraction f of the wanted nodes free, a probe finds one with
-- probability f, so 1/f probes are expected (1.14 with 2,000 of 16,384
-- nodes leased), and the draws spread takers over the free nodes, which the
-- lowest free node would not. Wanted ranges of at most `probes` nodes are
-- all probed, in random order, so "every node is held" is exact there;
-- beyond that, a round that finds none is tried again by the worker.
--
-- Two servers never hold one node: a node without a row is taken by an
-- INSERT that the primary key lets only one transaction make (a concurrent
-- one waits for it and then inserts nothing); a lapsed row is taken by an
-- UPDATE under the row lock of SELECT ... FOR UPDATE, whose lapse condition
-- PostgreSQL checks again on the newest version of the row once it holds
-- the lock (SKIP LOCKED: a row another taker locked is left to it). Renewals
-- keep only rows with their holder's token.
--
-- Caller's rights: the caller needs SELECT, INSERT, UPDATE on
-- crid_node_leases and EXECUTE on this function (a fleet's role).
CREATE OR REPLACE FUNCTION crid_node_lease_take(first_nodes integer[], last_nodes integer[], holder text, token text,
                                     bound_ms bigint, ttl_ms bigint, delay_ms bigint, probes integer DEFAULT 16,
                                     OUT node integer, OUT raise_to bigint, OUT probed integer, OUT live integer)
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    nodes bigint;  -- how many nodes the ranges hold
    candidates integer[];
    n integer;
    at bigint;
    r record;
BEGIN
    -- @schema_guard
    IF first_nodes IS NULL OR last_nodes IS NULL OR holder IS NULL OR token IS NULL OR bound_ms IS NULL
       OR ttl_ms IS NULL OR delay_ms IS NULL OR probes IS NULL THEN
        RAISE EXCEPTION 'crid_node_lease_take: no argument may be NULL' USING ERRCODE = '22004';
    END IF;
    nodes := (SELECT sum(w.hi::bigint - w.lo + 1) FROM unnest(first_nodes, last_nodes) w(lo, hi)
               HAVING bool_and(w.lo BETWEEN 0 AND w.hi AND w.hi <= 65535));
    IF nodes IS NULL OR pg_catalog.cardinality(first_nodes) NOT BETWEEN 1 AND 64
       OR pg_catalog.cardinality(last_nodes) <> pg_catalog.cardinality(first_nodes)
       OR ttl_ms < 1 OR delay_ms < 0 OR probes NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION 'crid_node_lease_take: nodes % to %, ttl_ms %, delay_ms % or probes % out of range',
            first_nodes, last_nodes, ttl_ms, delay_ms, probes USING ERRCODE = '22023',
            HINT = 'Ranges are 1 to 64 pairs first_nodes[i] <= last_nodes[i] within 0 to 65535; ttl_ms is at '
                   'least 1, delay_ms at least 0, probes 1 to 1000.';
    END IF;
    probed := 0;
    live := 0;
    SELECT l.node INTO node FROM @extschema@.crid_node_leases l
     WHERE l.token = crid_node_lease_take.token
       AND EXISTS (SELECT FROM unnest(first_nodes, last_nodes) w(lo, hi) WHERE l.node BETWEEN w.lo AND w.hi) LIMIT 1;
    IF FOUND THEN
        RETURN;
    END IF;
    candidates := ARRAY(SELECT l.node FROM @extschema@.crid_node_leases l
                         WHERE l.holder = crid_node_lease_take.holder AND l.lease_until < pg_catalog.now()
                           AND EXISTS (SELECT FROM unnest(first_nodes, last_nodes) w(lo, hi)
                                        WHERE l.node BETWEEN w.lo AND w.hi)
                         ORDER BY l.lease_until DESC LIMIT 1);
    IF nodes <= probes THEN
        candidates := ARRAY(SELECT g FROM unnest(first_nodes, last_nodes) w(lo, hi), generate_series(w.lo, w.hi) g
                             ORDER BY g = ANY (candidates) DESC, pg_catalog.random());
    END IF;
    WHILE pg_catalog.cardinality(candidates) < least(probes, nodes) LOOP
        at := pg_catalog.floor(pg_catalog.random() * nodes)::bigint;  -- the at-th wanted node, across the ranges
        FOR i IN 1 .. pg_catalog.cardinality(first_nodes) LOOP
            n := first_nodes[i] + at;
            EXIT WHEN at <= last_nodes[i] - first_nodes[i];
            at := at - (last_nodes[i] - first_nodes[i] + 1);
        END LOOP;
        IF n <> ALL (candidates) THEN
            candidates := candidates || n;
        END IF;
    END LOOP;
    FOREACH n IN ARRAY candidates LOOP
        probed := probed + 1;
        SELECT l.lease_until < pg_catalog.now() AS lapsed INTO r FROM @extschema@.crid_node_leases l WHERE l.node = n;
        IF NOT FOUND THEN
            INSERT INTO @extschema@.crid_node_leases AS l
                (node, holder, token, kind, lease_until, renewed_at, high_water_ms, mint_from)
            VALUES (n, crid_node_lease_take.holder, crid_node_lease_take.token, 'lease',
                    pg_catalog.now() + ttl_ms * interval '1 millisecond', pg_catalog.now(), bound_ms,
                    pg_catalog.now() + delay_ms * interval '1 millisecond')
            ON CONFLICT (node) DO NOTHING RETURNING l.node INTO node;
            EXIT WHEN FOUND;
        ELSIF NOT r.lapsed THEN
            live := live + 1;
        ELSE
            SELECT l.high_water_ms INTO raise_to FROM @extschema@.crid_node_leases l
             WHERE l.node = n AND l.lease_until < pg_catalog.now() FOR UPDATE SKIP LOCKED;
            CONTINUE WHEN NOT FOUND;
            UPDATE @extschema@.crid_node_leases l
               SET holder = crid_node_lease_take.holder, token = crid_node_lease_take.token, kind = 'lease',
                   lease_until = pg_catalog.now() + ttl_ms * interval '1 millisecond', renewed_at = pg_catalog.now(),
                   high_water_ms = greatest(l.high_water_ms, bound_ms), released_at = NULL,
                   mint_from = pg_catalog.now() + delay_ms * interval '1 millisecond'
             WHERE l.node = n;
            node := n;
            EXIT;
        END IF;
    END LOOP;
END
$$;
