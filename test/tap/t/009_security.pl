# No role gains a right through crid (docs/security.md), tried as attackers
# would: an ordinary login and a database owner who is no superuser, in a
# database where crid is installed in public and everyone may create there
# (as in clusters upgraded from PostgreSQL 14 or older), whose registry
# table belongs to a Go services' role that planted code in it.
#
# Every function of crid the attacker may execute is called with arguments
# made to hurt: its own temporary view, tables and views with triggers,
# INSTEAD OF triggers, rules and row security policies calling its
# functions, functions and operators in public that shadow unqualified
# calls, crafted names. Every planted function is a trap: it says, in a
# WARNING that reaches the client and the server log even when its
# transaction rolls back, as whom it ran, and tries to make its role a
# superuser. After each call: the role is what it was, and no trap ran as
# anyone but the role that planted it. Then: nothing crid owns changed, its
# registry state holds registry tables only, and the worker, crid_allocate,
# crid_reserve and crid_evict ran the registry owner's code as that owner.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'crid'
crid.registry_database = 'app'
crid.registry_table = 'go.crid_allocations'
crid.node_id = 3
crid.block_size = 1000
crid.threshold = 400
crid.allocation_timeout = '10s'
log_min_messages = warning
});
$node->start;

my @roles = qw(sec_attacker sec_dbowner sec_go sec_fleet);
$node->safe_psql('postgres', join '', map { "CREATE ROLE $_ LOGIN;" } @roles);
$node->safe_psql('postgres', 'CREATE DATABASE app OWNER sec_dbowner');
my %as = map { $_ => [ extra_params => [ '-U', $_ ] ] } @roles;

# The trap every attacker plants: a WARNING naming the role it runs as, and
# an attempt to make its planter a superuser. IMMUTABLE, so it also fits an
# index expression.
sub trap_sql
{
	my ($schema, $planter) = @_;
	return qq{
CREATE FUNCTION $schema.trap(what text DEFAULT '') RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS \$t\$
BEGIN
    RAISE WARNING 'crid-trap % ran as %', what, current_user;
    BEGIN
        EXECUTE 'ALTER ROLE $planter SUPERUSER';
        EXECUTE 'GRANT pg_execute_server_program TO $planter';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN true;
END \$t\$;
CREATE FUNCTION $schema.trap_trigger() RETURNS trigger LANGUAGE plpgsql AS \$t\$
BEGIN
    PERFORM $schema.trap(TG_NAME);
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END \$t\$;
CREATE FUNCTION $schema.trap_bigint(bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS \$t\$
BEGIN
    PERFORM $schema.trap('bigint');
    RETURN \$1;
END \$t\$;
};
}

# --- the database: crid in public, a Go services' registry with traps ------
$node->safe_psql('app', 'GRANT CREATE ON SCHEMA public TO PUBLIC; CREATE EXTENSION crid');
$node->safe_psql('app', 'CREATE SCHEMA go AUTHORIZATION sec_go');
$node->safe_psql('app', trap_sql('go', 'sec_go') . q{
CREATE TABLE go.crid_allocations (ts bigint PRIMARY KEY, next_seq bigint NOT NULL,
                                  note boolean DEFAULT go.trap('a column default'));
CREATE INDEX ON go.crid_allocations (go.trap_bigint(ts));
CREATE TRIGGER planted BEFORE INSERT OR UPDATE OR DELETE ON go.crid_allocations
    FOR EACH ROW EXECUTE FUNCTION go.trap_trigger();
ALTER TABLE go.crid_allocations ENABLE ROW LEVEL SECURITY;
ALTER TABLE go.crid_allocations FORCE ROW LEVEL SECURITY;
CREATE POLICY planted ON go.crid_allocations USING (go.trap('a policy')) WITH CHECK (go.trap('a policy'));
GRANT USAGE ON SCHEMA go TO sec_fleet;
GRANT SELECT, INSERT, UPDATE ON go.crid_allocations TO sec_fleet;
}, @{ $as{sec_go} });
# The superuser makes it a registry table on the registry server's side as
# docs/security.md says: EXECUTE on the trigger function for its owner.
$node->safe_psql('app', 'GRANT EXECUTE ON FUNCTION crid_registry_guard() TO sec_go');
$node->safe_psql('app', 'CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON go.crid_allocations '
	  . 'FOR EACH ROW EXECUTE FUNCTION public.crid_registry_guard()', @{ $as{sec_go} });
# A fleet's role, with exactly its grants.
$node->safe_psql('app', q{
GRANT SELECT, INSERT, UPDATE ON crid_allocations, crid_node_leases TO sec_fleet;
GRANT EXECUTE ON FUNCTION crid_registry_check(regclass), crid_registry_reserve(regclass, bigint, bigint, bigint, bigint),
    crid_registry_upsert(regclass, bigint, bigint, bigint),
    crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer) TO sec_fleet;
});
registry_open($node, 'app', 'go.crid_allocations');

# What must not change: every object crid owns (definition, owner, grants,
# settings), its eviction horizons, the registry tables it keeps state for,
# and triggers, rules and policies on its tables; and each role's rights.
my $crid_objects = q{
SELECT md5(string_agg(x, ',' ORDER BY x)) FROM (
  SELECT format('%s|%s|%s|%s|%s|%s', p.oid::regprocedure, p.proowner, p.proacl, p.proconfig, p.prosecdef,
                md5(coalesce(p.prosrc, ''))) AS x
    FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
   WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'crid')
  UNION ALL
  SELECT format('%s|%s|%s|%s', c.oid::regclass, c.relowner, c.relacl, c.relrowsecurity)
    FROM pg_class c JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype = 'e'
   WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'crid')
  UNION ALL
  SELECT format('trigger %s %s %s', t.tgrelid::regclass, t.tgname, t.tgenabled) FROM pg_trigger t
   WHERE t.tgrelid = ANY (crid_own_tables())
  UNION ALL
  SELECT format('rule %s %s', r.ev_class::regclass, r.rulename) FROM pg_rewrite r WHERE r.ev_class = ANY (crid_own_tables())
  UNION ALL
  SELECT format('policy %s %s', p.polrelid::regclass, p.polname) FROM pg_policy p WHERE p.polrelid = ANY (crid_own_tables())
  UNION ALL
  SELECT format('evicted %s %s', registry, evicted_before) FROM crid_evictions
  UNION ALL
  SELECT format('state %s %s', registry, identity) FROM crid_registry_state
) s};
my $rights = q{
SELECT string_agg(format('%s:%s%s%s%s%s%s members of {%s}', r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb,
                         r.rolreplication, r.rolbypassrls, r.rolinherit,
                         (SELECT string_agg(m.roleid::regrole::text, ',' ORDER BY m.roleid::regrole::text)
                            FROM pg_auth_members m WHERE m.member = r.oid)), '; ' ORDER BY r.rolname)
  FROM pg_roles r WHERE r.rolname LIKE 'sec\_%'};
my $objects_before = $node->safe_psql('app', $crid_objects);
my $rights_before = $node->safe_psql('app', $rights);
like($rights_before, qr/sec_attacker:ffffft members of \{\}/, 'the attacker starts as an ordinary role');

# The SQLSTATE of the error a statement ends with ('' when none), as a
# role: the code, never the wording, which differs between majors.
sub sqlstate_of
{
	my ($sql, $role) = @_;
	my ($r, $o, $e) = $node->psql('app', "\\set VERBOSITY verbose\n$sql", $role ? @{ $as{$role} } : ());
	return $e =~ /ERROR:\s+([0-9A-Z]{5}):/ ? $1 : '';
}

# Traps in the server log that ran as a role other than their planter.
my $log_offset = -s $node->logfile;
sub escaped_traps
{
	my $log = slurp_file($node->logfile, $log_offset);
	my @bad;
	for my $line ($log =~ /WARNING:\s+(crid-trap .* ran as \S+)$/mg)
	{
		push @bad, $line unless $line =~ /ran as (sec_attacker|sec_dbowner|sec_go|sec_fleet)$/;
	}
	return @bad;
}

# --- the issue's attack, as it was reported --------------------------------
is( sqlstate_of(q{
CREATE FUNCTION pg_temp.evil() RETURNS bigint LANGUAGE sql
    AS $$ ALTER ROLE sec_attacker SUPERUSER; SELECT 1::bigint $$;
CREATE TEMP VIEW v AS SELECT pg_temp.evil() AS ts, 0::bigint AS next_seq;
SELECT * FROM crid_registry_check('pg_temp.v');
}, 'sec_attacker'),
	'42501', 'crid_registry_check on a temporary view of the attacker: 42501, not its to call');
my ($ret, $out, $err) = $node->psql('app', q{
\set VERBOSITY verbose
CREATE FUNCTION pg_temp.evil() RETURNS bigint LANGUAGE plpgsql
    AS $$ BEGIN RAISE WARNING 'crid-trap evil ran as %', current_user; RETURN 1; END $$;
CREATE TEMP VIEW v AS SELECT pg_temp.evil() AS ts, 0::bigint AS next_seq;
SELECT * FROM crid_registry_check('pg_temp.v');
}, @{ $as{sec_fleet} }, on_error_stop => 1);
like($err, qr/ERROR:\s+42809:/, 'a fleet\'s role, which may call it, is refused the view too: 42809');
unlike($err, qr/WARNING:\s+crid-trap/, '... before anything read the view');
is(sqlstate_of('SELECT crid_registry_check(\'pg_class\')'), '42809',
	'a superuser\'s call on a system catalog is refused: 42809');

# Shadows of unqualified calls, in public: functions of exact argument types
# and operators, each calling the trap of `schema`.
sub shadows_sql
{
	my ($role, $schema) = @_;
	return qq{
CREATE FUNCTION public.format(text, regclass) RETURNS text LANGUAGE sql AS \$\$ SELECT $schema.trap('format')::text \$\$;
CREATE FUNCTION public.floor(numeric) RETURNS numeric LANGUAGE sql AS \$\$ SELECT $schema.trap('floor')::int::numeric \$\$;
CREATE FUNCTION public.quote_ident(name) RETURNS text LANGUAGE sql AS \$\$ SELECT $schema.trap('quote_ident')::text \$\$;
CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE sql
    AS \$\$ SELECT now() WHERE $schema.trap('clock_timestamp') \$\$;
CREATE FUNCTION public.${role}_eq(oid, regclass) RETURNS boolean LANGUAGE sql AS \$\$ SELECT $schema.trap('=') \$\$;
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = public.${role}_eq);
CREATE FUNCTION public.${role}_plus(bigint, bigint) RETURNS bigint LANGUAGE sql
    AS \$\$ SELECT $schema.trap_bigint(\$1) \$\$;
CREATE OPERATOR public.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.${role}_plus);
};
}

# --- plant everything an attacker can, as each attacker --------------------
# What lives as long as the attacker's session: the traps, a temporary view
# and a temporary table with a trigger.
sub plant_temporary
{
	my ($role) = @_;
	return trap_sql("pg_temp", $role) . qq{
CREATE TEMP VIEW tv AS SELECT pg_temp.trap('temporary view')::int::bigint AS ts, 0::bigint AS next_seq;
CREATE TEMP TABLE tt (ts bigint PRIMARY KEY, next_seq bigint NOT NULL);
CREATE TRIGGER planted BEFORE INSERT OR UPDATE OR DELETE ON tt FOR EACH ROW EXECUTE FUNCTION pg_temp.trap_trigger();
SET search_path = public, pg_catalog, pg_temp;
};
}

# And in public, which everyone may create in here.
sub plant
{
	my ($role) = @_;
	my $s = "public";
	return plant_temporary($role) . qq{
CREATE TABLE $s.${role}_t (ts bigint PRIMARY KEY, next_seq bigint NOT NULL, id bigint, v bigint);
CREATE TRIGGER planted BEFORE INSERT OR UPDATE OR DELETE ON $s.${role}_t
    FOR EACH ROW EXECUTE FUNCTION pg_temp.trap_trigger();
ALTER TABLE $s.${role}_t ENABLE ROW LEVEL SECURITY;
ALTER TABLE $s.${role}_t FORCE ROW LEVEL SECURITY;
CREATE POLICY planted ON $s.${role}_t USING (pg_temp.trap('a policy')) WITH CHECK (pg_temp.trap('a policy'));
CREATE TABLE $s.${role}_r (ts bigint PRIMARY KEY, next_seq bigint NOT NULL);
CREATE RULE planted AS ON INSERT TO $s.${role}_r DO ALSO SELECT pg_temp.trap('a rule');
CREATE VIEW $s.${role}_v AS SELECT ts, next_seq FROM $s.${role}_t;
CREATE TRIGGER planted INSTEAD OF INSERT OR UPDATE OR DELETE ON $s.${role}_v
    FOR EACH ROW EXECUTE FUNCTION pg_temp.trap_trigger();
CREATE TABLE $s."${role}_x""); ALTER ROLE $role SUPERUSER; --" (ts bigint, next_seq bigint);
INSERT INTO $s.${role}_t VALUES (1, 1, 1, NULL);
} . shadows_sql($role, 'pg_temp');
}

# Calls every function of crid the role may execute with arguments from a
# pool per type, each call in a subtransaction; after each, compares the
# role's rights with what they were. Reports the calls made, every call
# after which the role had more rights, and every refusal that was not a
# clear ERROR (an internal error, class XX).
sub attack_sql
{
	my ($role) = @_;
	return qq{
DO \$attack\$
DECLARE
    pool jsonb := jsonb_build_object(
        'regclass', jsonb_build_array('pg_temp.tv', 'pg_temp.tt', 'public.${role}_t', 'public.${role}_r',
                                      'public.${role}_v', 'public."${role}_x""); ALTER ROLE $role SUPERUSER; --"',
                                      'pg_catalog.pg_class', 'public.crid_allocations', 'go.crid_allocations'),
        'text', jsonb_build_array('', 'twitter', \$q\$'); ALTER ROLE $role SUPERUSER; --\$q\$, 'pg_temp.trap()',
                                  'ord', '>=', 'public.${role}_t'),
        'name', jsonb_build_array('ts', 'v', 'id', '"x"; ALTER ROLE $role SUPERUSER; --'),
        'integer', jsonb_build_array('1', '0', '-1', '2147483647'),
        'bigint', jsonb_build_array('1', '0', '-1', '9223372036854775807'),
        'smallint', jsonb_build_array('1', '-1'),
        'timestamp with time zone', jsonb_build_array('2026-06-01 00:00:00+00', 'infinity'),
        'timestamp without time zone', jsonb_build_array('2026-06-01 00:00:00'),
        'date', jsonb_build_array('2026-06-01'),
        'uuid', jsonb_build_array('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', '00000000-0000-0000-0000-000000000000'),
        'tstzrange', jsonb_build_array('[2026-01-01,2026-02-01)'),
        'interval', jsonb_build_array('1 ms', '-1 s'),
        'boolean', jsonb_build_array('false', 'true'),
        'bytea', jsonb_build_array('\\x01'),
        'oid', jsonb_build_array('0', '1259'));
    f record;
    i integer;
    calls integer;
    arg text;
    args text[];
    call text;
    rights_before text;
    rights_after text;
    made integer := 0;
    gained text[] := '{}';
    unclear text[] := '{}';
    state text;
BEGIN
    SELECT format('%s%s%s%s%s', rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls)
      INTO rights_before FROM pg_roles WHERE rolname = current_user;
    FOR f IN
        SELECT p.oid, format('%I.%I', n.nspname, p.proname) AS name,
               array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t) AS types
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
         WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'crid')
           AND p.prokind = 'f' AND has_function_privilege(p.oid, 'EXECUTE')
           AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype, 'internal'::regtype)
           AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[])
         ORDER BY 2, 3
    LOOP
        calls := 1;
        FOR i IN 1 .. coalesce(array_length(f.types, 1), 0) LOOP
            calls := greatest(calls, coalesce(jsonb_array_length(pool -> f.types[i]), 1) + 1);
        END LOOP;
        FOR c IN 0 .. calls - 1 LOOP
            args := '{}';
            FOR i IN 1 .. coalesce(array_length(f.types, 1), 0) LOOP
                -- Each position walks its pool, with NULL after the last value.
                arg := CASE WHEN pool ? f.types[i] AND (c + i) % (jsonb_array_length(pool -> f.types[i]) + 1)
                                     < jsonb_array_length(pool -> f.types[i])
                            THEN quote_literal(pool -> f.types[i] ->> ((c + i) % (jsonb_array_length(pool -> f.types[i]) + 1)))
                            ELSE 'NULL' END;
                args := args || format('%s::%s', arg, f.types[i]);
            END LOOP;
            call := format('SELECT * FROM %s(%s)', f.name, array_to_string(args, ', '));
            made := made + 1;
            BEGIN
                EXECUTE call;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
                IF state LIKE 'XX%' THEN
                    unclear := unclear || format('%s: %s', call, state);
                END IF;
            END;
            SELECT format('%s%s%s%s%s', rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls)
              INTO rights_after FROM pg_roles WHERE rolname = current_user;
            IF rights_after <> rights_before THEN
                gained := gained || call;
            END IF;
        END LOOP;
    END LOOP;
    RAISE NOTICE 'crid-attack calls=% gained=% unclear=%', made, gained, unclear;
END \$attack\$;
};
}

for my $role (qw(sec_attacker sec_dbowner))
{
	($ret, $out, $err) = $node->psql('app', plant($role) . attack_sql($role), @{ $as{$role} }, on_error_stop => 1);
	is($ret, 0, "$role: planted its traps and called every function of crid it may") or diag($err);
	my ($calls, $gained, $unclear) = $err =~ /crid-attack calls=(\d+) gained=(\S+) unclear=(.*)$/m;
	cmp_ok($calls // 0, '>', 300, "$role: made a call with each argument pool of each function (" . ($calls // 0) . ')');
	is($gained, '{}', "$role: no call left it with more rights");
	is($unclear, '{}', "$role: every refusal was an ERROR with a SQLSTATE of its kind, none internal");
	my @ran_as = $err =~ /crid-trap .* ran as (\S+)/g;
	is_deeply([ grep { $_ ne $role } @ran_as ], [], "$role: no trap of its ran as another role");
	# Procedures, outside a transaction block: crid_backfill with crafted
	# names, and an expression that is a trap, which runs as the caller.
	($ret, $out, $err) = $node->psql('app',
		plant_temporary($role) . "CALL crid_backfill('public.${role}_t', 'v', 'pg_temp.trap()::int::bigint', 10, '0')",
		@{ $as{$role} });
	is($ret, 0, "$role: crid_backfill with its own expression ran") or diag($err);
	my @ran = $err =~ /WARNING:\s+crid-trap .* ran as (\S+)/g;
	ok(@ran && !grep({ $_ ne $role } @ran), "$role: ... the expression and the table's code ran as $role only");
	for my $refused (
		[ "CALL crid_backfill('public.${role}_v', 'v', '1', 10, '0')", '42809' ],
		[ "CALL crid_backfill('pg_temp.tv', 'ts', '1', 10, '0')", '42809' ],
		[ qq{CALL crid_backfill('public.${role}_t', '"x"; ALTER ROLE $role SUPERUSER; --', '1', 10, '0')}, '42703' ],
		[ "CALL crid_backfill('public.${role}_t', 'v', '1); ALTER ROLE $role SUPERUSER; SELECT (1', 10, '0')", '42601' ])
	{
		is(sqlstate_of(plant_temporary($role) . $refused->[0], $role), $refused->[1], "$role: $refused->[0]: $refused->[1]");
	}
	is($node->safe_psql('app', $rights), $rights_before, "$role: every role's rights are what they were");
	$node->safe_psql('app', "DROP OWNED BY $role");
}

# --- the guard and a fleet's role ------------------------------------------
$node->safe_psql('app', 'CREATE TABLE public.own (ts bigint PRIMARY KEY, next_seq bigint NOT NULL)', @{ $as{sec_attacker} });
is( sqlstate_of(
		'CREATE TRIGGER g BEFORE INSERT ON public.own FOR EACH ROW EXECUTE FUNCTION public.crid_registry_guard()',
		'sec_attacker'),
	'42501', 'an ordinary role cannot make its table a registry table: no EXECUTE on crid_registry_guard (42501)');
$node->safe_psql('app', 'GRANT INSERT, UPDATE, SELECT ON public.own TO sec_fleet', @{ $as{sec_attacker} });
for my $call ('crid_registry_check(\'public.own\')', 'crid_registry_reserve(\'public.own\', 1, 1)',
	'crid_registry_upsert(\'public.own\', 1, 1, NULL)')
{
	is(sqlstate_of("SELECT * FROM $call", 'sec_fleet'), '42809',
		"a fleet's role: $call on a table it may write that is no registry: 42809");
}
is(sqlstate_of('SELECT crid_registry_upsert(\'crid_allocations\', 1, 1, NULL)', 'sec_attacker'),
	'42501', 'an ordinary role cannot call the upsert: 42501');
$node->safe_psql('app', 'REVOKE INSERT ON crid_allocations FROM sec_fleet');
is(sqlstate_of('SELECT crid_registry_upsert(\'crid_allocations\', 1, 1, NULL)', 'sec_fleet'),
	'42501', 'the upsert runs as the table\'s owner only for a role that may write the table itself: 42501');
$node->safe_psql('app', 'GRANT INSERT ON crid_allocations TO sec_fleet');
is($node->safe_psql('app', 'SELECT crid_registry_reserve(\'crid_allocations\', 1, 5) IS NOT NULL', @{ $as{sec_fleet} }),
	't', 'a fleet\'s role reserves with exactly its grants');

is($node->safe_psql('app', $crid_objects), $objects_before,
	'after every attack: crid\'s objects, grants, settings, triggers, rules, policies, eviction horizons and '
	  . 'registry state are what they were');

# --- the worker and the SECURITY DEFINER functions on the Go registry -------
# The database owner points every session's search_path at public, where the
# attacker's shadows are; the worker pins its own.
$node->safe_psql('app', trap_sql('public', 'sec_attacker') . shadows_sql('sec_attacker', 'public'),
	@{ $as{sec_attacker} });
$node->safe_psql('app', 'ALTER DATABASE app SET search_path = public, pg_catalog', @{ $as{sec_dbowner} });
my $minted = $node->safe_psql('app', 'SELECT count(DISTINCT crid_next()) FROM generate_series(1, 20000)',
	@{ $as{sec_attacker} });
is($minted, '20000', 'the attacker mints while the worker reserves blocks in the Go registry');
cmp_ok($node->safe_psql('app', 'SELECT count(*) FROM go.crid_allocations WHERE note'), '>', 0,
	'the worker reserved in the Go registry (its column default ran)');
$node->safe_psql('app', q{
SELECT crid_allocate(1, 100);
SELECT crid_reserve('2026-03-01 00:00:00+00', 10);
SELECT crid_evict('2026-01-01 00:00:02+00');
});
my $log = slurp_file($node->logfile, $log_offset);
like($log, qr/crid-trap .* ran as sec_go/, 'the Go owner\'s planted code ran (as the Go owner)');
is_deeply([ escaped_traps() ], [], 'no planted code ran as a superuser: not the worker\'s, nor crid_allocate\'s, '
	  . 'crid_reserve\'s or crid_evict\'s');

# --- what crid owns and remembers -------------------------------------------
is( $node->safe_psql('app', 'SELECT string_agg(registry, \', \' ORDER BY registry) FROM crid_registry_state'),
	'go.crid_allocations, public.crid_allocations', 'crid keeps state for registry tables only');
is($node->safe_psql('app', $rights), $rights_before, 'every role\'s rights are what they were');
is( $node->safe_psql('app',
		q{SELECT count(*) FROM pg_depend d, pg_roles r
		   WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'crid') AND d.deptype = 'e'
		     AND r.rolname LIKE 'sec\_%'
		     AND r.oid IN (SELECT proowner FROM pg_proc WHERE oid = d.objid
		                   UNION ALL SELECT relowner FROM pg_class WHERE oid = d.objid)}),
	'0', 'no role of the test owns an object of crid');

done_testing();
