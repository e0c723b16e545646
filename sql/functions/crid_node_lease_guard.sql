-- Row trigger of crid_node_leases (BEFORE INSERT OR UPDATE OF token): the
-- registry's word on when a node's new holder may mint on it, mint_from
-- (NULL: at once). The taker proposes now() plus its takeover delay (a lease
-- TTL and a fifth), which stands where an earlier holder may still mint;
-- the guard lowers it where the registry can show that none does. With
-- `since` from crid_node_lease_since (-infinity while the registry has seen
-- the lease table whole since it was made):
--
-- - a new row of a node the ledger never saw: the node had no row since
--   `since`, so at once once `since` is a takeover delay old, and from
--   `since` plus the delay before that (a table that changed may have lost
--   the row of a holder that still mints until then);
-- - a new row of a node the ledger saw: its row vanished (a DELETE, or a
--   change that lost it) and its holder may mint until its lease could
--   have lapsed: the proposal stands (counted from `since` when this take
--   is what saw the table change);
-- - a row taken over (a new token: its holder released it at a planned
--   exit, or its lease lapsed, so it mints no more): at once, but not before
--   the row's own mint_from (the reason its holder waited holds for the
--   next), nor, when the row was first seen no later than `since` (it may
--   be a stale copy of a row the table lost renewals of), before `since`
--   plus the delay.
--
-- A row taken over (its token changes) loses its generation and keeps its
-- previous holder's bound in taken_above_ms (sql/registry/
-- crid_node_leases_fencing.sql says why).
--
-- A row that no take wrote (a take sets renewed_at to its transaction's
-- now()) came from elsewhere, a restore: it keeps its values, enters the
-- ledger and moves `since` (once a transaction). A row taken over that the
-- ledger never saw was loaded with this trigger disabled: it moves `since`.
--
-- SECURITY DEFINER, so the roles that take leases (a fleet's) need no right
-- on the continuity state and the ledger, which no caller may write: one
-- that could would make a node look never leased. It reads NEW, OLD and
-- crid's own tables, every name qualified.
CREATE OR REPLACE FUNCTION crid_node_lease_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    delay interval := coalesce(NEW.mint_from OPERATOR(pg_catalog.-) pg_catalog.now(),
                               (NEW.lease_until OPERATOR(pg_catalog.-) NEW.renewed_at) OPERATOR(pg_catalog.*) 1.2);
    since timestamptz;
    seen timestamptz;
    at timestamptz;
BEGIN
    -- @schema_guard
    -- Crid's own lease table only: on another table (a role with EXECUTE on
    -- this function could attach it to one of its own) NEW's columns are
    -- whatever that role made them.
    IF TG_RELID OPERATOR(pg_catalog.<>) '@extschema@.crid_node_leases'::pg_catalog.regclass::pg_catalog.oid
       OR TG_WHEN OPERATOR(pg_catalog.<>) 'BEFORE' OR TG_LEVEL OPERATOR(pg_catalog.<>) 'ROW' THEN
        RAISE EXCEPTION 'crid_node_lease_guard: a BEFORE ROW trigger of crid_node_leases only, not of %',
            TG_RELID::pg_catalog.regclass USING ERRCODE = '42809';
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.token = NEW.token THEN
        RETURN NEW;  -- its holder's own row
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- Taken over: the new holder's first renewal claims the row with its
        -- generation (the old holder's means nothing to it), and returns the
        -- bound its ids start above, even when the take's answer was lost.
        NEW.generation := NULL;
        NEW.taken_above_ms := OLD.high_water_ms;
    END IF;
    IF TG_OP = 'INSERT' AND EXISTS (SELECT FROM @extschema@.crid_node_leases l WHERE l.node = NEW.node) THEN
        RETURN NEW;  -- an upsert's insert that updates the row: ruled on as an update
    END IF;
    since := @extschema@.crid_node_lease_since(NULL::pg_catalog.text);
    IF TG_OP = 'INSERT' AND NEW.renewed_at IS DISTINCT FROM pg_catalog.now() THEN
        IF since < pg_catalog.now() THEN
            since := @extschema@.crid_node_lease_since(pg_catalog.format(
                'rows came from elsewhere, a restore (node %s, renewed at %s)', NEW.node, NEW.renewed_at));
        END IF;
        INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen)
        VALUES (NEW.node, least(NEW.renewed_at, since)) ON CONFLICT (node) DO NOTHING;
        RETURN NEW;
    END IF;
    SELECT g.first_seen INTO seen FROM @extschema@.crid_node_lease_ledger g WHERE g.node = NEW.node;
    IF TG_OP = 'INSERT' AND FOUND THEN
        NEW.mint_from := greatest(pg_catalog.now(), since) OPERATOR(pg_catalog.+) delay;
        RETURN NEW;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen) VALUES (NEW.node, pg_catalog.now())
            ON CONFLICT (node) DO NOTHING;
        at := since OPERATOR(pg_catalog.+) delay;
    ELSE
        IF NOT FOUND THEN
            since := @extschema@.crid_node_lease_since(pg_catalog.format(
                'a row of node %s that crid never saw (loaded with crid_node_lease_guard disabled)', NEW.node));
            INSERT INTO @extschema@.crid_node_lease_ledger (node, first_seen)
            VALUES (NEW.node, least(OLD.renewed_at, since)) ON CONFLICT (node) DO NOTHING;
            seen := since;
        END IF;
        at := greatest(OLD.mint_from, CASE WHEN seen <= since THEN since OPERATOR(pg_catalog.+) delay END);
        NEW.released_at := NULL;
    END IF;
    NEW.mint_from := CASE WHEN at > pg_catalog.now() THEN at END;
    RETURN NEW;
END
$$;
