# A fleet is upgraded to 0.4.0 registry first (docs/fleet.md, "Registry
# messages late, twice or unanswered"): a 0.4.0 member on a registry that
# still has crid 0.3.0 says the registry is outdated, naming the missing
# column and the way out, and leases nothing; once the registry ran ALTER
# EXTENSION crid UPDATE, the member reserves, leases and mints, and its
# lease row carries its generation.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $registry = crid_node('order_registry');
$registry->safe_psql('postgres', 'CREATE DATABASE ids');
$registry->safe_psql('ids', "CREATE EXTENSION crid VERSION '0.3.0'; CREATE ROLE crid_fleet LOGIN;\n"
	  . fleet_grants('crid_fleet'));
my $member = crid_node('order_member',
	conf => sprintf("crid.registry = 'host=%s port=%d dbname=ids user=crid_fleet'\n", $registry->host, $registry->port)
	  . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '3'\n");
ok($member->poll_query_until('postgres', 'SELECT state FROM crid_registry_status()', 'outdated'),
	'a 0.4.0 member on a registry of crid 0.3.0: outdated');
like($member->safe_psql('postgres', 'SELECT detail FROM crid_registry_status()'),
	qr/no column "generation" in public\.crid_node_leases.*upgrade the registry before its members, run ALTER EXTENSION crid UPDATE there/,
	'... naming the missing column and the order of the upgrade');
is($registry->safe_psql('ids', 'SELECT count(*) FROM crid_node_leases'), '0', '... and it leased nothing there');

$registry->safe_psql('ids', 'ALTER EXTENSION crid UPDATE');
ok($member->poll_query_until('postgres', 'SELECT snowflake_next() > 0 AND crid_next() > 0'),
	'the registry upgraded: the member leases, reserves and mints');
is($member->safe_psql('postgres', 'SELECT state FROM crid_registry_status()'), 'serving', '... serving');
is($registry->safe_psql('ids', 'SELECT node, generation IS NOT NULL, released_at IS NULL FROM crid_node_leases'),
	'3|t|t', '... its lease row claimed with its generation');

# A clean stop releases the row (its generation's claim); a second release of
# that generation, as a replayed message would be, changes nothing.
$member->stop;
my $released = $registry->safe_psql('ids', 'SELECT released_at, high_water_ms, generation FROM crid_node_leases');
my ($at, $bound, $generation) = split /\|/, $released;
ok(length $at, 'the member released its row at its stop');
$registry->safe_psql('ids', "UPDATE crid_node_leases l SET lease_until = now(), high_water_ms = 1, released_at = now()"
	  . " WHERE l.generation <= $generation AND l.released_at IS NULL");
is($registry->safe_psql('ids', 'SELECT released_at, high_water_ms, generation FROM crid_node_leases'),
	$released, '... and the release statement sent again changes nothing');
$registry->stop;
done_testing();
