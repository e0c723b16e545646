# A fleet on one registry: three crid servers reserve their blocks
# over libpq in a fourth server's crid_allocations, beside an outside client
# running the Go library's upsert in plain SQL, and no id is issued twice.
# The registry stopped: each server serves its reserve, then fails clearly,
# and resumes when the registry is back without reissuing. The registry
# hanging (SIGSTOP) does not keep the worker from ending. Bad settings stop
# the server start, naming the setting, and the connection string's password
# is never shown.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $ids = id_tally();    # every id minted in this test, by anyone

# --- bad settings stop the start, naming the setting --------------------------
my $bad = PostgreSQL::Test::Cluster->new('fleet_bad');
$bad->init;
$bad->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\n");
my %bad_settings = (
	q{crid.registry = 'host=localhost password=hunter2 port'} => qr/crid\.registry is not a valid libpq connection string/,
	q{crid.registry = 'postgresql://[oops'}                   => qr/crid\.registry is not a valid libpq connection string/,
	q{crid.registry_timeout = 0}                               => qr/crid\.registry_timeout[^\n]*\b100\b/);
for my $setting (sort keys %bad_settings)
{
	my $offset = -s $bad->logfile || 0;
	$bad->append_conf('postgresql.conf', "$setting\n");
	ok(!$bad->start(fail_ok => 1), "$setting stops the server start");
	my $log = substr(slurp_file($bad->logfile), $offset);
	like($log, $bad_settings{$setting}, '... naming the setting');
	unlike($log, qr/hunter2/, '... without showing the connection string');
	$bad->append_conf('postgresql.conf', "crid.registry = ''\ncrid.registry_timeout = '10s'\n");
}

# --- the registry server: crid installed, a role with only the grants
# docs/fleet.md lists ----------------------------------------------------------
my $registry = crid_node('registry');
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
} . fleet_grants('crid_fleet') . q{
CREATE TABLE go_ids (id bigint);
});
my $conninfo = sprintf('host=%s port=%d dbname=postgres user=crid_fleet', $registry->host, $registry->port);

my @servers;
for my $name ('fleet_a', 'fleet_b', 'fleet_c')
{
	# The password is never used (trust); it must never be shown either.
	push @servers, crid_node($name,
		conf => "crid.registry = '$conninfo password=hunter2'\ncrid.block_size = 2000\ncrid.threshold = 1000\n");
}
my ($a, $b, $c) = @servers;

is($a->safe_psql('postgres', 'SELECT remote, registry FROM crid_registry_status()'),
	't|the registry at host=' . $registry->host . ' port=' . $registry->port . ' dbname=postgres user=crid_fleet',
	'crid_registry_status() names the remote registry, without its password');
$a->safe_psql('postgres', 'CREATE ROLE nobody LOGIN');
my ($ret, $out, $err) = $a->psql('postgres', 'SHOW crid.registry', extra_params => [ '-U', 'nobody' ]);
like($err, qr/permission denied|must be superuser|privileges/, 'an ordinary role cannot read crid.registry');

# --- three servers and a Go client on one registry ----------------------------
my $go_client = go_client_sql(table => 'crid_allocations', into => 'go_ids', rounds => 300);
my @mint = map {
	psql_start($_->connstr('postgres'),
		'SET crid.allocation_timeout = 60000', 'SELECT crid_next() FROM generate_series(1, 100000)')
} @servers;
my $go = psql_start($registry->connstr('postgres'), $go_client);
$ids->add(psql_finish($_, 'a crid server')) for @mint;
psql_finish($go, 'the Go client');
$ids->add($registry->safe_psql('postgres', 'SELECT id FROM go_ids'));
is($ids->distinct, 330000, 'three crid servers and a Go client minted 330,000 ids');
is($ids->repeats, 0, '... none of them twice');
# One connection per crid server (the registry's own worker is a background
# worker, not a client backend).
ok( $registry->poll_query_until(
		'postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'crid block reserver' AND backend_type = 'client backend'",
		'3'),
	'the three workers reserve on the registry server, each over one connection named "crid block reserver"');
is($a->safe_psql('postgres', 'SELECT state, connected, connects >= 1, detail IS NULL FROM crid_registry_status()'),
	'serving|t|t|t', 'crid_registry_status(): serving, connected, no error');
cmp_ok($a->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE metric = 'registry_connected'"), '==', 1,
	'crid_stats() shows the connection');
is($a->safe_psql('postgres', 'SELECT count(*) FROM crid_allocations'), '0',
	'the crid server\'s own crid_allocations stays empty');
($ret, $out, $err) = $a->psql('postgres', "SELECT crid_reserve(now() - interval '1 day', 10)");
like($err, qr/crid_reserve: this server reserves its crid blocks in the registry at host=\S+ port=\d+/,
	'crid_reserve on a fleet member is refused, naming the registry to call it on');
is($a->safe_psql('postgres', 'SELECT count(*) FROM crid_allocations'), '0', '... and reserves nothing here');
for my $node (@servers)
{
	unlike(slurp_file($node->logfile), qr/hunter2/, $node->name . ': the password is not in the log');
}

# --- the registry stopped: the reserve, then a clear error, then resumption ----
$a->safe_psql('postgres', 'CREATE TABLE served (id bigint)');
my $until_refused = q{
SET crid.allocation_timeout = '2s';
DO $$
DECLARE
    got bigint[] := '{}';
BEGIN
    BEGIN
        LOOP
            got := got || crid_next();
        END LOOP;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        INSERT INTO served SELECT unnest(got);
        RAISE NOTICE 'refused after % ids: %', cardinality(got), SQLERRM;
    END;
END $$};
$registry->stop('fast');
($ret, $out, $err) = $a->psql('postgres', $until_refused);
like($err, qr/refused after [1-9]\d* ids/, 'the registry stopped: crid_next() serves the reserve first');
like($err, qr/no block within crid\.allocation_timeout \(2000 ms\)/, '... then refuses within crid.allocation_timeout');
ok($a->poll_query_until('postgres', 'SELECT state FROM crid_registry_status()', 'unreachable'),
	'crid_registry_status() says the registry cannot be reached');
like($a->safe_psql('postgres', 'SELECT detail FROM crid_registry_status()'),
	qr/cannot connect to the registry at host=/, '... and why');
($ret, $out, $err) = $a->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT crid_next()");
like($err, qr/the crid background worker cannot reach the registry at host=\S+ port=\d+ dbname=postgres user=crid_fleet/,
	'crid_next() names the registry it cannot reach');
unlike($err, qr/hunter2/, '... without the password');

$registry->start;
ok($a->poll_query_until('postgres', 'SELECT crid_next() > 0'), 'the registry back: crid_next() works again');
$a->safe_psql('postgres', 'INSERT INTO served SELECT crid_next() FROM generate_series(1, 20000)');
$ids->add($a->safe_psql('postgres', 'SELECT id FROM served'));
is($ids->repeats, 0, 'nothing was reissued across the outage');

# --- the registry hanging: the worker still ends at once -----------------------
# Stop every process of the registry server (SIGSTOP): connections stay open
# and nothing answers. A worker waiting on it must still end on SIGTERM,
# pg_terminate_backend() and a shutdown.
$a->safe_psql('postgres', "ALTER SYSTEM SET crid.registry_timeout = '1h'; SELECT pg_reload_conf()");
my $postmaster = $registry->{_pid};
my @registry_pids = ($postmaster, split ' ', `ps -o pid= --ppid $postmaster`);
kill 'STOP', reverse @registry_pids;
$a->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT count(crid_next()) FROM generate_series(1, 1000000)");
my $waiting = q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'crid block reserver'
                AND state = 'active' AND query = 'reserving in the remote crid registry'};
ok($a->poll_query_until('postgres', $waiting), 'the worker waits on the hung registry');
my $worker = $a->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver'");
$a->safe_psql('postgres', "SELECT pg_terminate_backend($worker)");
ok( $a->poll_query_until(
		'postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $worker"),
	'pg_terminate_backend() ends the waiting worker');
# The next worker process connects to the hung registry and waits there too.
ok( $a->poll_query_until(
		'postgres', $waiting =~ s/backend_type/pid <> $worker AND backend_type/r),
	'a new worker waits on the hung registry');
# pg_ctl waits at most 60 s for the shutdown; the worker waits on a 1 h timeout.
{
	local $ENV{PGCTLTIMEOUT} = 60;
	ok($a->stop('fast', fail_ok => 1), 'a server whose worker waits on the hung registry shuts down within 60 s');
}
kill 'CONT', @registry_pids;
$a->start;
ok($a->poll_query_until('postgres', 'SELECT crid_next() > 0'), 'the registry answering again: minting resumes');
$ids->add($a->safe_psql('postgres', 'SELECT crid_next() FROM generate_series(1, 20000)'));
is($ids->repeats, 0, 'still no id twice');

# --- a registry server without crid: the error says so -------------------------
$registry->safe_psql('postgres', 'CREATE DATABASE empty');
$c->append_conf('postgresql.conf',
	sprintf("crid.registry = 'host=%s port=%d dbname=empty'\n", $registry->host, $registry->port));
$c->restart;
ok($c->poll_query_until('postgres', "SELECT state = 'no_extension' FROM crid_registry_status()"),
	'a registry without crid: crid_registry_status() says so');
($ret, $out, $err) = $c->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT count(crid_next()) FROM generate_series(1, 1000000)");
like($err, qr/the registry does not have the crid extension/, '... as does crid_next()');

$_->stop for $a, $b, $c;
$registry->stop;
done_testing();
