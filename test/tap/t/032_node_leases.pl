# Snowflake node ids in a fleet: servers with crid.node_id =
# 'lease' lease different nodes from the registry's crid_node_leases; a
# stopped server's node lapses and another server takes it over, minting
# above every id of the old holder; two servers given one static node id:
# the second refuses to mint, naming the first; the registry stopped: leased
# minting stops once the lease may have lapsed and resumes when it is back;
# bad lease settings stop the server start. Leases last 8 s here: a lease
# lapses only when no renewal (every 2.7 s) gets through for 6.4 s, and the
# two waits for a lapse stay short.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# --- bad settings stop the start, naming the setting --------------------------
my $bad = PostgreSQL::Test::Cluster->new('lease_bad');
$bad->init;
$bad->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\n");
my %bad_settings = (
	q{crid.node_lease_ttl = 0}            => qr/crid\.node_lease_ttl[^\n]*\b1000\b/,
	q{crid.node_id = 'leased'}            => qr/crid\.node_id[^\n]*'lease'/,
	q{crid.node_id = 1024}                => qr/crid\.node_id 1024 is outside the snowflake layout/,
	q{crid.snowflake_nodes = '2000-3000'} => qr/crid\.node_id = 'lease' finds no node to lease in crid\.snowflake_nodes "2000-3000"/);
for my $setting (sort keys %bad_settings)
{
	my $offset = -s $bad->logfile || 0;
	$bad->append_conf('postgresql.conf', "crid.node_id = 'lease'\n") if $setting =~ /snowflake_nodes/;
	$bad->append_conf('postgresql.conf', "$setting\n");
	ok(!$bad->start(fail_ok => 1), "$setting stops the server start");
	like(substr(slurp_file($bad->logfile), $offset), $bad_settings{$setting}, '... naming the setting');
	$bad->append_conf('postgresql.conf', "crid.node_lease_ttl = '30s'\ncrid.node_id = -1\ncrid.snowflake_nodes = ''\n");
}

# --- the registry, and three servers leasing from nodes 0-2 -------------------
my $registry = crid_node('lease_registry');
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
} . fleet_grants('crid_fleet') . q{
});
my $conninfo = sprintf('host=%s port=%d dbname=postgres user=crid_fleet', $registry->host, $registry->port);
my $fleet_conf = "crid.registry = '$conninfo'\ncrid.node_lease_ttl = '8s'\n";
my $lease_conf = $fleet_conf . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '0-2'\n";

my $node_of = sub {
	my ($server) = @_;
	$server->poll_query_until('postgres', 'SELECT snowflake_next() > 0') or die $server->name . ' holds no lease';
	return $server->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_next())).node');
};
my @servers = map { crid_node("lease_$_", conf => $lease_conf) } ('a', 'b', 'c');
my @nodes = map { $node_of->($_) } @servers;
is(join(',', sort @nodes), '0,1,2', 'three servers with crid.node_id = lease hold three different nodes');
is( $registry->safe_psql('postgres', "SELECT count(*) FROM crid_node_leases WHERE kind = 'lease' AND lease_until > now()"),
	'3', 'crid_node_leases has their three leases');
my ($a, $b, $c) = @servers;
is( $a->safe_psql('postgres',
		"SELECT value FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_node'"),
	$nodes[0], 'crid_stats() shows the node held');
cmp_ok($a->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE metric = 'lease_renewals'"), '>=', 1,
	'... and counts renewals');

# --- a stopped server's node goes to the next server, whose ids are above ------
my $old_max = $a->safe_psql('postgres', 'SELECT max(snowflake_next()) FROM generate_series(1, 20000)');
$a->stop('immediate');    # no goodbye: the lease lapses by itself
my $d = crid_node('lease_d', conf => $lease_conf);
is($node_of->($d), $nodes[0], 'a new server takes the node of the stopped one once its lease lapsed');
my $new_min = $d->safe_psql('postgres', 'SELECT min(snowflake_next()) FROM generate_series(1, 20000)');
cmp_ok($new_min, '>', $old_max, 'every id of the new holder is greater than every id of the old one');
like(slurp_file($d->logfile), qr/snowflake node $nodes[0] is leased by this server/, 'the new holder logs the take-over');

# --- two servers given one static node id --------------------------------------
my $s1 = crid_node('static_1', conf => $fleet_conf . "crid.node_id = 7\n");
ok($s1->poll_query_until('postgres', 'SELECT snowflake_next() > 0'), 'a server with crid.node_id = 7 registers it and mints');
my $s2 = crid_node('static_2', conf => $fleet_conf . "crid.node_id = 7\n");
ok( $s2->poll_query_until(
		'postgres', "SELECT count(*) > 0 FROM crid_stats() WHERE metric = 'lease_refused' AND value = 1"),
	'the second server with crid.node_id = 7 finds it taken');
my ($ret, $out, $err) = $s2->psql('postgres', 'SELECT snowflake_next()');
like($err, qr/snowflake node 7 is not held by this server/, 'the second refuses to mint');
my $s1_port = $s1->port;
like($err, qr/held by another live server, \S+:$s1_port /, '... naming the first');
is($s1->safe_psql('postgres', 'SELECT snowflake_next() > 0'), 't', 'the first keeps minting');

# --- the registry stopped: leased minting stops, then resumes ------------------
my $b_max = $b->safe_psql('postgres', 'SELECT max(snowflake_next()) FROM generate_series(1, 1000)');
$b->safe_psql('postgres', q{
CREATE FUNCTION minting_refused() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM snowflake_next();
    RETURN false;
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    RETURN true;
END $$});
$registry->stop('fast');
ok($b->poll_query_until('postgres', 'SELECT minting_refused()'),
	'the registry stopped: minting on the leased node stops once the lease may have lapsed');
($ret, $out, $err) = $b->psql('postgres', 'SELECT snowflake_next()');
like($err, qr/snowflake node $nodes[1]: this server's lease may have lapsed, so it mints no id for it/, '... saying so');
$registry->start;
ok($b->poll_query_until('postgres', 'SELECT snowflake_next() > 0'), 'the registry back: minting resumes');
cmp_ok($b->safe_psql('postgres', 'SELECT min(snowflake_next()) FROM generate_series(1, 1000)'),
	'>', $b_max, 'above every id before the outage');

# pg_dump keeps the leases (a configuration table of the extension).
my $dump = `pg_dump --data-only -d '@{[ $registry->connstr('postgres') ]}'`;
like($dump, qr/^COPY public\.crid_node_leases .*^7\t/ms, 'pg_dump dumps crid_node_leases');

$_->stop for $b, $c, $d, $s1, $s2;
$registry->stop;
done_testing();
