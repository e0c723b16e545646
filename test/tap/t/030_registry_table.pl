# A database where Go services created the registry first (the exact DDL of
# the crid library's EnsureSchema): crid installs in a schema of its own
# beside it, crid.registry_table points the worker and crid_allocate at the
# Go table, two sessions and an outside client running the Go upsert in plain
# SQL never collide, crid_evict, crid_stats and the decoders work with it,
# pg_dump keeps working, and a misnamed or wrongly shaped table is a clear
# error naming the setting. Then the other way in: the Go table's rows moved
# into the extension's table in one transaction.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('registry_table');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'crid'\ncrid.registry_database = 'app'\ncrid.block_size = 1000\n"
	  . "crid.threshold = 400\ncrid.allocation_timeout = '2s'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE ROLE go_service LOGIN; CREATE DATABASE app');
$node->safe_psql('app', 'GRANT CREATE ON SCHEMA public TO go_service; CREATE SCHEMA ids AUTHORIZATION go_service');
my @as_go = (extra_params => [ '-U', 'go_service' ]);

# What the Go library runs, as the Go services' role: postgres.New(pool)
# then reg.EnsureSchema(ctx) (registry/postgres/postgres.go), and the same
# with postgres.WithTable("Ids.Crid_Registry").
$node->safe_psql('app', 'CREATE TABLE IF NOT EXISTS crid_allocations (ts BIGINT PRIMARY KEY, next_seq BIGINT NOT NULL)', @as_go);
$node->safe_psql('app', 'CREATE TABLE IF NOT EXISTS Ids.Crid_Registry (ts BIGINT PRIMARY KEY, next_seq BIGINT NOT NULL)', @as_go);
# The Go services have reserved a few seconds already.
$node->safe_psql('app', 'INSERT INTO crid_allocations VALUES (1, 30000), (2, 10000)', @as_go);

my ($ret, $out, $err) = $node->psql('app', 'CREATE EXTENSION crid');
isnt($ret, 0, 'CREATE EXTENSION crid into public fails beside the Go table');
like($err, qr/relation "crid_allocations" already exists/, 'because its table has the same name');
$node->safe_psql('app', 'CREATE SCHEMA crid; CREATE EXTENSION crid SCHEMA crid');
is( $node->safe_psql('app',
		"SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'crid'")
	  . ' ' . $node->safe_psql('app', "SELECT to_regclass('crid.crid_allocations') IS NOT NULL"),
	'crid t', 'CREATE EXTENSION crid SCHEMA crid succeeds beside public.crid_allocations, its table in schema crid');

# Without the setting the worker reserves in the extension's own table.
is($node->safe_psql('app', 'SELECT crid.crid_registry_table()'), 'crid.crid_allocations',
	'without crid.registry_table the registry is the extension\'s table');

$node->append_conf('postgresql.conf', "crid.registry_table = 'crid_allocations'\n");
$node->restart;
is($node->safe_psql('app', 'SELECT crid.crid_registry_table()'), 'crid_allocations',
	'crid.registry_table = crid_allocations names public.crid_allocations');

# The Go services' table gets the trigger that checks every reservation
# against the registry's continuity state, from its owner, whom a superuser
# granted EXECUTE on the trigger function (docs/fleet.md: way 1 of joining a
# registry Go services already use; docs/security.md).
$node->safe_psql('app', 'GRANT USAGE ON SCHEMA crid TO go_service');
$node->safe_psql('app', 'GRANT EXECUTE ON FUNCTION crid.crid_registry_guard() TO go_service');
$node->safe_psql('app', 'CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON public.crid_allocations '
	  . 'FOR EACH ROW EXECUTE FUNCTION crid.crid_registry_guard()', @as_go);
registry_open($node, 'app', 'public.crid_allocations');

# Two sessions minting while an outside client runs the Go upsert on the
# same table in plain SQL (the statement of registry/postgres/postgres.go).
$node->safe_psql('app', q{CREATE TABLE ids (id bigint, source text DEFAULT 'go'); GRANT INSERT ON ids TO go_service});
my $go_client = go_client_sql(table => 'crid_allocations', into => 'ids', rounds => 300);
my $session = sub { "INSERT INTO ids SELECT crid.crid_next(), 'session $_[0]' FROM generate_series(1, 100000)" };
my @clients = map { psql_start($node->connstr('app'), $_) } ($session->(1), $session->(2));
my $go = psql_start($node->connstr('app'), [ '-U', 'go_service' ], $go_client);
psql_finish($_, 'a session') for @clients;
psql_finish($go, 'the Go client');
is($node->safe_psql('app', 'SELECT count(*), count(DISTINCT id) FROM ids'), '230000|230000',
	'two sessions and a Go client on the Go table: 230,000 ids, all distinct');
is($node->safe_psql('app', 'SELECT count(*) FROM crid.crid_allocations'), '0',
	'the extension\'s own table stayed empty');
cmp_ok($node->safe_psql('app', 'SELECT count(*) FROM public.crid_allocations WHERE ts > 2'), '>', 0,
	'the worker reserved in the Go table');
is( $node->safe_psql('app',
		q{SELECT bool_and(crid.crid_to_timestamptz(id) BETWEEN now() - interval '10 min' AND now() + interval '1 min')
		  FROM ids}),
	't', 'the decoders read every id, the Go client\'s included');
cmp_ok($node->safe_psql('app', "SELECT value FROM crid.crid_stats() WHERE metric = 'blocks_reserved'"), '>', 0,
	'crid_stats() counts the blocks');

# crid_allocate and crid_evict work on the Go table.
is($node->safe_psql('app', 'SELECT crid.crid_allocate(1, 500)'), '30000', 'crid_allocate continues the Go table\'s second');
is($node->safe_psql('app', 'SELECT next_seq FROM public.crid_allocations WHERE ts = 1'), '30500', 'and writes there');
is($node->safe_psql('app', "SELECT crid.crid_evict('2026-01-01 00:00:02+00')"), '1', 'crid_evict deletes from the Go table');
is($node->safe_psql('app', 'SELECT count(*) FROM public.crid_allocations WHERE ts < 2'), '0', 'the old second is gone');

# pg_dump keeps working: the Go table as a plain table, the extension in its schema.
my $dump = $node->basedir . '/app.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('app') ], 'pg_dump of the database');
$node->safe_psql('postgres', 'CREATE DATABASE app_copy');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('app_copy'), $dump ], 'pg_restore of it');
is( $node->safe_psql('app_copy', 'SELECT count(*) FROM public.crid_allocations'),
	$node->safe_psql('app', 'SELECT count(*) FROM public.crid_allocations'), 'the Go table\'s rows came along');
is( $node->safe_psql('app_copy', "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'crid'"),
	'crid', 'the extension is restored in its schema');

# A table named as the Go option spells it, in another case: folded as SQL does.
$node->append_conf('postgresql.conf', "crid.registry_table = 'Ids.Crid_Registry'\n");
$node->restart;
is($node->safe_psql('app', 'SELECT count(DISTINCT crid.crid_next()) FROM generate_series(1, 5000)'), '5000',
	'crid.registry_table = Ids.Crid_Registry: minting works');
cmp_ok($node->safe_psql('app', 'SELECT count(*) FROM ids.crid_registry'), '>', 0, 'in ids.crid_registry');

# --- misnamed or wrongly shaped tables ---------------------------------------
$node->safe_psql('app', q{
CREATE TABLE public.narrow (ts integer PRIMARY KEY, next_seq bigint NOT NULL);
CREATE TABLE public.nullable (ts bigint PRIMARY KEY, next_seq bigint);
CREATE TABLE public.no_key (ts bigint, next_seq bigint NOT NULL);
CREATE TABLE public.extra (ts bigint PRIMARY KEY, next_seq bigint NOT NULL, owner text NOT NULL);
CREATE VIEW public.a_view AS SELECT 1::bigint AS ts, 1::bigint AS next_seq;
});
my %wrong = (
	'public.missing'  => qr/public\.missing, which does not exist in database "app"/,
	'public.narrow'   => qr/public\.narrow, which has a column ts of type integer, not bigint/,
	'public.nullable' => qr/public\.nullable, which lets next_seq be NULL/,
	'public.no_key'   => qr/public\.no_key, which has no primary key \(or unique index\) on ts alone/,
	'public.extra'    => qr/public\.extra, which has other columns that need a value \(owner\)/,
	'public.a_view'   => qr/public\.a_view, which is not a table/);
for my $table (sort keys %wrong)
{
	$node->append_conf('postgresql.conf', "crid.registry_table = '$table'\ncrid.allocation_timeout = '1s'\n");
	my $offset = -s $node->logfile;
	$node->restart;
	# The worker judges the table once it has started and connected; on a
	# loaded machine that can take longer than the 1 s crid_next() waits.
	$node->poll_query_until('app', "SELECT state = 'bad_table' FROM crid.crid_registry_status()")
	  or die "$table: the worker did not find the table wrong";
	($ret, $out, $err) = $node->psql('app', 'SELECT crid.crid_next()');
	like($err, qr/crid\.registry_table does not name a registry table/, "$table: crid_next says what is wrong");
	like($err, $wrong{$table}, "$table: naming the table and the problem");
	($ret, $out, $err) = $node->psql('app', 'SELECT crid.crid_allocate(5, 1)');
	like($err, qr/ERROR:  crid\.registry_table names .*$wrong{$table}/, "$table: crid_allocate refuses it too");
	# The worker's own line (crid_allocate's ERROR is in the log too), waited for.
	ok(eval { $node->wait_for_log(qr/LOG:  crid: could not reserve a block: crid\.registry_table names \Q$table\E, /, $offset); 1 },
		"$table: the worker logs it at start");
}

# Text that names no table stops the server start, naming the setting.
for my $bad ('a.b.c', 'app.', '1st', 'a"b')
{
	$node->append_conf('postgresql.conf', "crid.registry_table = '$bad'\n");
	my $offset = -s $node->logfile;
	$node->stop;
	ok(!$node->start(fail_ok => 1), "crid.registry_table = '$bad' stops the server start");
	like(substr(slurp_file($node->logfile), $offset), qr/crid\.registry_table "\Q$bad\E" is not a table name/,
		'naming the setting');
}

# --- the other way in: the Go table's rows moved into crid's table -----------
# One transaction: lock out the Go services, copy the rows (keeping the
# larger next_seq of a second both tables hold), and leave a view under the
# old name so the Go services run on unchanged (their EnsureSchema skips an
# existing relation; INSERT ... ON CONFLICT works through the view).
$node->append_conf('postgresql.conf', "crid.registry_table = ''\ncrid.allocation_timeout = '2s'\n");
$node->start;
$node->safe_psql('app', q{
BEGIN;
LOCK TABLE public.crid_allocations IN EXCLUSIVE MODE;
SET LOCAL session_replication_role = replica;  -- rows carried over are history, not reservations
INSERT INTO crid.crid_allocations AS c SELECT ts, next_seq FROM public.crid_allocations
    ON CONFLICT (ts) DO UPDATE SET next_seq = greatest(c.next_seq, EXCLUDED.next_seq);
ALTER TABLE public.crid_allocations RENAME TO crid_allocations_before_crid;
CREATE VIEW public.crid_allocations AS SELECT ts, next_seq FROM crid.crid_allocations;
GRANT USAGE ON SCHEMA crid TO go_service;
GRANT SELECT, INSERT, UPDATE ON crid.crid_allocations, public.crid_allocations TO go_service;
COMMIT;
});
is( $node->safe_psql('app',
		'SELECT count(*) FROM crid_allocations_before_crid o JOIN crid.crid_allocations c USING (ts) WHERE c.next_seq >= o.next_seq'),
	$node->safe_psql('app', 'SELECT count(*) FROM crid_allocations_before_crid'),
	'every second of the Go table is in crid\'s table, at least as far');
$node->safe_psql('app', 'TRUNCATE ids');
my ($ensure_ret, $ensure_out, $ensure_err) = $node->psql('app',
	'CREATE TABLE IF NOT EXISTS crid_allocations (ts BIGINT PRIMARY KEY, next_seq BIGINT NOT NULL)', @as_go);
is($ensure_ret, 0, 'the Go services\' EnsureSchema still runs');
like($ensure_err, qr/relation "crid_allocations" already exists, skipping/, '... and leaves the view in place');
$go = psql_start($node->connstr('app'), [ '-U', 'go_service' ], $go_client);
$node->safe_psql('app', "INSERT INTO ids SELECT crid.crid_next(), 'session' FROM generate_series(1, 100000)");
psql_finish($go, 'the Go client through the view');
is($node->safe_psql('app', 'SELECT count(*), count(DISTINCT id) FROM ids'), '130000|130000',
	'crid and the Go services through the view: all distinct');

done_testing();
