# Attacks on what issue 39's review left: a database owner, no superuser,
# against the planner hooks and the block reserver of a library newer than
# its database's crid.
#
# A server runs one crid library for every database, but each database's
# crid is at the version its last ALTER EXTENSION crid UPDATE left: between
# a package upgrade and that update (which many never run), the library's
# planner hooks look in crid's schema for functions and tables the older
# version does not have. crid's schema is often public, where the database
# owner may create: a function of the right name and arguments planted
# there must not be what the hooks add to every role's statements (the
# converted sequences' nextval(), currval(), lastval()), nor a table of the
# right name what decides which sequences are converted. Each planted function is a trap that says as whom it ran and
# tries to make its planter a superuser.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('attacks', open => 0, conf => "crid.node_id = 3\nlog_min_messages = warning");
$node->safe_psql('postgres', 'CREATE ROLE atk_owner LOGIN');

my $trap = q{
CREATE FUNCTION public.atk_trap() RETURNS bigint LANGUAGE plpgsql AS $t$
BEGIN
    RAISE WARNING 'crid-trap ran as %', current_user;
    BEGIN
        EXECUTE 'ALTER ROLE atk_owner SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN 42;
END $t$;
};

sub superuser_gained
{
	return $node->safe_psql('postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'atk_owner'") eq 't';
}

# --- converted sequences, in a database whose crid is 0.3.0 ----------------
$node->safe_psql('postgres', 'CREATE DATABASE old3 OWNER atk_owner');
$node->safe_psql('old3', q{CREATE EXTENSION crid VERSION '0.3.0';
CREATE TABLE public.victim (id bigserial PRIMARY KEY, v integer)});
$node->safe_psql('old3', $trap . q{
CREATE TABLE public.crid_sequences (seq regclass, family text, plain_last bigint);
INSERT INTO public.crid_sequences VALUES ('public.victim_id_seq', 'snowflake', 0);
CREATE FUNCTION public.crid_sequence_nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_identity(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_currval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_lastval() RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
}, extra_params => [ '-U', 'atk_owner' ]);

my ($ret, $out, $err) = $node->psql('old3', q{INSERT INTO public.victim (v) VALUES (1) RETURNING id});
is($out, '1', "a superuser's INSERT takes the serial's own nextval(), not a planted function");
unlike($err, qr/crid-trap/, 'no planted nextval() ran');
($ret, $out, $err) = $node->psql('old3',
	q{SELECT nextval('public.victim_id_seq'); SELECT lastval(), currval('public.victim_id_seq')});
is($out, "2\n2|2", "nextval(), lastval() and currval() are PostgreSQL's");
unlike($err, qr/crid-trap/, 'no planted lastval() or currval() ran');
ok(!superuser_gained(), 'the database owner is no superuser');

# --- and once updated, the hooks serve crid's own objects ------------------
$node->safe_psql('old3', q{DROP TABLE public.crid_sequences;
DROP FUNCTION public.crid_sequence_nextval(regclass), public.crid_sequence_identity(regclass),
              public.crid_sequence_currval(regclass), public.crid_sequence_lastval()});
$node->safe_psql('old3', q{ALTER EXTENSION crid UPDATE;
SELECT crid_sequence_convert('public.victim_id_seq')});
($ret, $out, $err) = $node->psql('old3', q{INSERT INTO public.victim (v) VALUES (2) RETURNING id > 1000000});
is($out, 't', 'after the update, the converted serial hands out snowflake ids');
ok(!superuser_gained(), 'the database owner is no superuser');

# --- crid_check() behind a table its owner keeps locked --------------------
# crid_check()'s key parts read each crid-keyed table's largest id; an owner
# who holds an ACCESS EXCLUSIVE lock on its table must not make a
# superuser's crid_check() (or the CREATE PUBLICATION whose event trigger
# runs it) wait for as long as it likes: the table is skipped and named.
$node->safe_psql('old3', 'CREATE TABLE public.held (id bigint PRIMARY KEY DEFAULT snowflake_next())',
	extra_params => [ '-U', 'atk_owner' ]);
my $holder = psql_start($node->connstr('old3') . ' user=atk_owner application_name=holder',
	'BEGIN', 'LOCK TABLE public.held IN ACCESS EXCLUSIVE MODE', 'SELECT pg_sleep(60)');
$node->poll_query_until('old3',
	q{SELECT count(*) > 0 FROM pg_locks WHERE relation = 'public.held'::regclass AND mode = 'AccessExclusiveLock' AND granted})
  or die 'the holder never took its lock';
($ret, $out, $err) = $node->psql('old3',
	q{SET statement_timeout = '30s'; SELECT string_agg(problem, ',') FROM crid_check() WHERE object LIKE '%held%'});
is($ret, 0, "a superuser's crid_check() finishes while a table's owner holds it locked");
like($err, qr/public\.held.*skipped/, 'it names the locked table as skipped');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'});
$holder->{run}->kill_kill;

# --- the block reserver, in a registry database whose crid is 0.1.0 -------
# The worker, the bootstrap superuser, calls crid_registry_check,
# crid_registry_reserve and crid_node_lease_take in crid's schema once it
# finds them there (with crid_node_leases.generation): 0.1.0 has none, and
# the database owner may create them in public. They must not be taken for
# crid's: the registry is outdated, and says so.
my $server = crid_node('reserver', open => 0, conf => qq{crid.registry_database = 'reg'
crid.allocation_timeout = '2s'
log_min_messages = warning});
$server->safe_psql('postgres', 'CREATE ROLE atk_owner LOGIN');
$server->safe_psql('postgres', 'CREATE DATABASE reg OWNER atk_owner');
$server->safe_psql('reg', q{CREATE EXTENSION crid VERSION '0.1.0'});
$server->safe_psql('reg', $trap . q{
CREATE TABLE public.crid_node_leases (node integer, generation bigint);
CREATE FUNCTION public.crid_registry_check(regclass, OUT refused_from_ts bigint, OUT floor_ts bigint,
    OUT live_max_ts bigint, OUT now_unix_ms bigint, OUT epoch timestamptz, OUT max_skew_ms bigint,
    OUT changed boolean, OUT identity text, OUT reason text)
    LANGUAGE plpgsql AS $t$ BEGIN PERFORM public.atk_trap(); END $t$;
CREATE FUNCTION public.crid_registry_reserve(regclass, bigint, bigint, bigint, bigint) RETURNS bigint
    LANGUAGE plpgsql AS $t$ BEGIN RETURN public.atk_trap(); END $t$;
CREATE FUNCTION public.crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)
    RETURNS TABLE (node integer) LANGUAGE plpgsql AS $t$ BEGIN PERFORM public.atk_trap(); END $t$;
}, extra_params => [ '-U', 'atk_owner' ]);
my $log_offset = -s $server->logfile;
$server->restart;
($ret, $out, $err) = $server->psql('reg', 'SELECT crid_next()');
isnt($ret, 0, 'crid_next() fails: the registry has no crid_registry_check of crid');
my $log = slurp_file($server->logfile, $log_offset);
unlike($log, qr/crid-trap/, 'the worker ran no planted function');
like($log, qr/lacks crid_registry_check/, 'the worker says the registry is outdated');
is($server->safe_psql('postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'atk_owner'"), 'f',
	'the registry database owner is no superuser');

# --- and in a registry database without crid, beside crid.registry_table --
# The same functions, planted beside the table crid.registry_table names in
# a database where crid is not installed: the worker of this server must
# not take them for a registry server's.
$server->safe_psql('postgres', "ALTER ROLE atk_owner NOSUPERUSER");
$server->safe_psql('postgres', 'CREATE DATABASE reg2 OWNER atk_owner');
$server->safe_psql('reg2', $trap . q{
CREATE TABLE public.crid_allocations (ts bigint PRIMARY KEY, next_seq bigint NOT NULL);
CREATE TABLE public.crid_node_leases (node integer, generation bigint);
CREATE FUNCTION public.crid_registry_check(regclass, OUT refused_from_ts bigint, OUT floor_ts bigint,
    OUT live_max_ts bigint, OUT now_unix_ms bigint, OUT epoch timestamptz, OUT max_skew_ms bigint,
    OUT changed boolean, OUT identity text, OUT reason text)
    LANGUAGE plpgsql AS $t$ BEGIN PERFORM public.atk_trap(); END $t$;
CREATE FUNCTION public.crid_registry_reserve(regclass, bigint, bigint, bigint, bigint) RETURNS bigint
    LANGUAGE plpgsql AS $t$ BEGIN RETURN public.atk_trap(); END $t$;
CREATE FUNCTION public.crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer)
    RETURNS TABLE (node integer) LANGUAGE plpgsql AS $t$ BEGIN PERFORM public.atk_trap(); END $t$;
}, extra_params => [ '-U', 'atk_owner' ]);
$server->append_conf('postgresql.conf', qq{crid.registry_database = 'reg2'
crid.registry_table = 'public.crid_allocations'});
$log_offset = -s $server->logfile;
$server->restart;
($ret, $out, $err) = $server->psql('postgres', 'SELECT crid_next()');
isnt($ret, 0, 'crid_next() fails: the registry database has no crid');
$log = slurp_file($server->logfile, $log_offset);
unlike($log, qr/crid-trap/, 'the worker ran no planted function beside the registry table');
like($log, qr/extension "crid" is not installed in/, 'the worker says crid is missing there');
is($server->safe_psql('postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'atk_owner'"), 'f',
	'the registry database owner is no superuser');

done_testing();
