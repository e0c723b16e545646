# A registry server without the crid extension: the documented script
# crid_registry_server.sql, as installed beside the extension (what make
# installcheck tests; the source tree builds it from sql/registry/), makes
# the registry's tables in
# the shapes CREATE EXTENSION crid gives them, and two crid servers plus the
# Go library's upsert share it with nothing issued twice. The fleet role logs
# in with a password from a passfile: a wrong one is reported as the
# authentication failure it is, and fixing the file is enough. The nodes of
# crid.snowflake_nodes are registered as a static crid.node_id is: a second
# server naming one of them refuses to mint on it, naming the first. And
# crid.node_id = 'lease' works on a local registry (crid.registry empty).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# --- a plain registry server, made by the script --------------------------------
my $registry = PostgreSQL::Test::Cluster->new('plain_registry');
$registry->init;
my $script = $registry->config_data('--sharedir') . '/extension/crid_registry_server.sql';
-f $script or BAIL_OUT("$script is not installed: make install first");
# The fleet role must give a password; everyone else keeps the test's trust.
my $hba = $registry->data_dir . '/pg_hba.conf';
my $trust = slurp_file($hba);
open my $fh, '>', $hba or die "cannot write $hba: $!";
print $fh "local all crid_fleet scram-sha-256\nhost all crid_fleet 127.0.0.1/32 scram-sha-256\n$trust";
close $fh;
$registry->start;
$registry->safe_psql('postgres', q{CREATE ROLE crid_fleet LOGIN PASSWORD 'right horse battery'});
for my $run (1, 2)
{
	my ($ret, $out, $err) = $registry->psql('postgres', '',
		extra_params => [ '-v', 'schema=ids', '-v', 'fleet_role=crid_fleet', '-f', $script ]);
	is($ret, 0, "the registry script runs on a server without crid (run $run)") or diag $err;
}
is($registry->safe_psql('postgres', "SELECT count(*) FROM pg_extension WHERE extname = 'crid'"),
	'0', '... which has no crid extension');

# The script's tables are the extension's, column for column and constraint
# for constraint: the worker's statements are written for those.
my $reference = crid_node('reference_registry', preload => 0);
my $shape = q{
SELECT string_agg(format('%s.%s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                         a.attnotnull, coalesce(pg_get_expr(d.adbin, d.adrelid), '')), E'\n' ORDER BY c.relname, a.attnum)
    || E'\n' || (SELECT string_agg(format('%s %s', t.relname, pg_get_constraintdef(k.oid)), E'\n' ORDER BY t.relname, pg_get_constraintdef(k.oid))
                 FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace m ON m.oid = t.relnamespace
                 WHERE m.nspname = '%1$s' AND t.relname IN ('crid_allocations', 'crid_node_leases', 'crid_node_lease_state', 'crid_node_lease_ledger'))
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = '%1$s' AND c.relname IN ('crid_allocations', 'crid_node_leases', 'crid_node_lease_state', 'crid_node_lease_ledger') AND a.attnum > 0 AND NOT a.attisdropped};
(my $shape_in = $shape) =~ s/%1\$s/ids/g;
(my $shape_ext = $shape) =~ s/%1\$s/public/g;
my $made = $registry->safe_psql('postgres', $shape_in);
isnt($made, '', 'the script made crid_allocations and crid_node_leases in schema ids');
is($made, $reference->safe_psql('postgres', $shape_ext), '... exactly as CREATE EXTENSION crid makes them');
is( $registry->safe_psql('postgres', 'SELECT ids.crid_allocate(5, 100), ids.crid_allocate(5, 100), ids.crid_allocate(5, 50)'),
	'0|100|200', 'its crid_allocate hands out consecutive blocks');
my ($ret, $out, $err) = $registry->psql('postgres', 'SELECT ids.crid_allocate(-1, 10)');
like($err, qr/crid_allocate: ts -1 is negative/, '... refuses a negative second');
($ret, $out, $err) = $registry->psql('postgres', 'SELECT ids.crid_allocate(5, 0)');
like($err, qr/crid_allocate: block_size 0 is not positive/, '... and an empty block');
($ret, $out, $err) = $registry->psql('postgres', 'SELECT ids.crid_allocate(NULL, 10)');
like($err, qr/ts and block_size must not be NULL/, '... and NULL');
$registry->safe_psql('postgres', 'DELETE FROM ids.crid_allocations');
$reference->stop;

# Its privileges (docs/security.md): the SECURITY DEFINER functions belong to
# the owner of crid_allocations, pin search_path and are nobody's but the
# grantees'; the fleet role, which may call the check, cannot make it read a
# relation of its own.
is( $registry->safe_psql('postgres', q{
SELECT string_agg(format('%s %s %s %s', p.proname, p.proowner = c.relowner, p.proconfig,
                         has_function_privilege('public', p.oid, 'EXECUTE')), E'\n' ORDER BY p.proname)
  FROM pg_proc p, pg_class c
 WHERE p.pronamespace = 'ids'::regnamespace AND p.prosecdef AND c.oid = 'ids.crid_allocations'::regclass}),
	join("\n", map { "$_ t {\"search_path=pg_catalog, pg_temp\"} f" } qw(crid_allocate crid_node_lease_guard crid_registry_check crid_registry_guard)),
	'the script\'s SECURITY DEFINER functions: owned by the table\'s owner, search_path pinned, not PUBLIC\'s');
is( $registry->safe_psql('postgres', q{SELECT count(*) FROM pg_proc
	WHERE pronamespace = 'ids'::regnamespace AND has_function_privilege('public', oid, 'EXECUTE')}),
	'0', '... and no function of the script is PUBLIC\'s');
$registry->safe_psql('postgres', 'CREATE TABLE public.fleet_own (ts bigint PRIMARY KEY, next_seq bigint NOT NULL);'
	  . ' ALTER TABLE public.fleet_own OWNER TO crid_fleet');
($ret, $out, $err) = $registry->psql('postgres', q{
\set VERBOSITY verbose
SET ROLE crid_fleet;
CREATE TEMP VIEW v AS SELECT 1::bigint AS ts, 1::bigint AS next_seq;
SELECT FROM ids.crid_registry_check('pg_temp.v');
SELECT FROM ids.crid_registry_check('public.fleet_own');
}, on_error_stop => 0);
is(scalar(() = $err =~ /ERROR:\s+42809:/g), 2, 'the fleet role\'s temporary view and own table are no registry tables: 42809') or diag($err);
is($registry->safe_psql('postgres', 'SELECT string_agg(registry, \',\') FROM ids.crid_registry_state'),
	'ids.crid_allocations', '... and no state is kept for them');

# --- a server whose passfile holds the wrong password ---------------------------
my $passfile = PostgreSQL::Test::Utils::tempdir() . '/fleet.pgpass';
# Written aside and renamed: a connection never reads half a file.
my $write_password = sub {
	open my $pf, '>', "$passfile.new" or die "cannot write $passfile.new: $!";
	print $pf "*:*:*:crid_fleet:$_[0]\n";
	close $pf;
	chmod 0600, "$passfile.new";
	rename "$passfile.new", $passfile or die "cannot rename $passfile.new: $!";
};
$write_password->('wrong horse');
my $conninfo = sprintf('host=%s port=%d dbname=postgres user=crid_fleet', $registry->host, $registry->port);
# Leases last crid_node's 6 s (CridTest.pm says why); nothing here waits for
# one to lapse.
my $fleet_conf = "crid.registry = '$conninfo passfile=$passfile'\ncrid.registry_table = 'ids.crid_allocations'\n"
  . "crid.block_size = 2000\ncrid.threshold = 1000\n";
my $a = crid_node('plain_a', conf => $fleet_conf . "crid.node_id = 5\ncrid.snowflake_nodes = '5-6'\n");
ok($a->poll_query_until('postgres', 'SELECT state FROM crid_registry_status()', 'unreachable'),
	'a wrong password: the registry is unreachable');
like($a->safe_psql('postgres', 'SELECT detail FROM crid_registry_status()'),
	qr/cannot connect to the registry at host=\S+ port=\d+ dbname=postgres user=crid_fleet: .*password authentication failed/s,
	'... and crid_registry_status() says authentication failed');
($ret, $out, $err) = $a->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT crid_next()");
like($err, qr/the crid background worker cannot reach the registry at host=\S+ port=\d+ dbname=postgres user=crid_fleet/,
	'crid_next() names the registry it cannot reach');
like($err, qr/DETAIL:.*password authentication failed/s, '... with the authentication failure as the detail');
ok( $a->poll_query_until(
		'postgres', "SELECT lease_problem ~ 'password authentication failed' FROM crid_registry_status()"),
	'the node leases fail for the same reason');
($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_next()');
like($err, qr/snowflake node 5 is not held by this server.*DETAIL:  Its worker could not take the lease: .*password authentication failed/s,
	'no snowflake id either: node 5 is not registered, and the detail says why');
# An ordinary role is told what is wrong, not where the registry is nor what
# its server answered (docs/security.md): PostgreSQL hides a subscription's
# connection string from such roles too.
$a->safe_psql('postgres', 'CREATE ROLE plain_app LOGIN');
($ret, $out, $err) = $a->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT crid_next()",
	extra_params => [ '-U', 'plain_app' ]);
like($err, qr/cannot reach the registry crid\.registry names/, 'to an ordinary role, crid_next() names the setting');
unlike($err, qr/host=|crid_fleet|password authentication/, '... not the host, the user or the server\'s answer');
($ret, $out, $err) = $a->psql('postgres', 'SELECT snowflake_next()', extra_params => [ '-U', 'plain_app' ]);
unlike($err, qr/host=|crid_fleet|password authentication/, '... nor does snowflake_next()');
($ret, $out, $err) = $a->psql('postgres', '\set VERBOSITY verbose
SELECT * FROM crid_registry_status()', extra_params => [ '-U', 'plain_app' ]);
like($err, qr/ERROR:\s+42501:/, 'crid_registry_status() is not an ordinary role\'s (42501)');
$a->safe_psql('postgres', 'GRANT pg_monitor TO plain_app');
like($a->safe_psql('postgres', 'SELECT detail FROM crid_registry_status()', extra_params => [ '-U', 'plain_app' ]),
	qr/password authentication failed/, '... and pg_monitor\'s, with the worker\'s last error');
$write_password->('right horse battery');
ok($a->poll_query_until('postgres', 'SELECT crid_next() > 0'), 'the right password in the passfile: crid_next() works');
ok($a->poll_query_until('postgres', 'SELECT snowflake_next() > 0 AND snowflake_next(6) > 0'),
	'... and so does snowflake_next() on node 5 and on node 6, the rest of crid.snowflake_nodes');
is( $registry->safe_psql('postgres',
		"SELECT string_agg(node::text, ',' ORDER BY node) FROM ids.crid_node_leases WHERE kind = 'static' AND lease_until > now()"),
	'5,6', 'the plain registry\'s crid_node_leases has nodes 5 and 6 registered');
unlike(slurp_file($a->logfile), qr/horse/, 'neither password is in the log');

# --- a second server naming node 6 of the first's crid.snowflake_nodes ----------
$write_password->('right horse battery');
my $b = crid_node('plain_b', conf => $fleet_conf . "crid.node_id = 1\ncrid.snowflake_nodes = '1,6'\n");
ok($b->poll_query_until('postgres', 'SELECT snowflake_next() > 0'), 'a second server mints on its own node 1');
ok( $b->poll_query_until(
		'postgres', "SELECT count(*) > 0 FROM crid_stats() WHERE metric = 'lease_refused' AND value = 1"),
	'... and finds node 6 taken');
($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_next(6)');
my $a_port = $a->port;
like($err, qr/snowflake node 6 is not held by this server/, 'it refuses to mint on node 6');
like($err, qr/held by another live server, \S+:$a_port /, '... naming the first server');
is($a->safe_psql('postgres', 'SELECT snowflake_next(6) > 0'), 't', 'the first keeps minting on node 6');

# --- both servers and the Go upsert on the plain registry -----------------------
$registry->safe_psql('postgres', 'CREATE TABLE go_ids (id bigint)');
my $go_client = go_client_sql(table => 'ids.crid_allocations', into => 'go_ids', rounds => 200);
my @minting = map {
	psql_start($_->connstr('postgres'),
		'SET crid.allocation_timeout = 60000', 'SELECT crid_next() FROM generate_series(1, 50000)')
} $a, $b;
$registry->safe_psql('postgres', $go_client);
my $ids = id_tally()->add(map({ psql_finish($_, 'a crid server') } @minting),
	$registry->safe_psql('postgres', 'SELECT id FROM go_ids'));
is($ids->distinct, 120000, 'two crid servers and the Go upsert minted 120,000 ids from the plain registry');
is($ids->repeats, 0, '... none of them twice');

# --- crid.node_id = 'lease' on a local registry ---------------------------------
my $local = crid_node('local_lease', conf => "crid.node_id = 'lease'\ncrid.snowflake_nodes = '40-41'\n");
ok($local->poll_query_until('postgres', 'SELECT snowflake_next() > 0'),
	'crid.node_id = lease with the local registry: the server leases a node and mints');
is($local->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_next())).node'),
	$local->safe_psql('postgres', "SELECT node FROM crid_node_leases WHERE kind = 'lease'"),
	'... on the node its own crid_node_leases records');
like($local->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_next())).node'), qr/^4[01]$/,
	'... one of crid.snowflake_nodes');
is($local->safe_psql('postgres', 'SELECT remote FROM crid_registry_status()'), 'f', '... and the registry is local');

$_->stop for $a, $b, $local;
$registry->stop;
done_testing();
