# Upgrades: for every released version V, CREATE EXTENSION crid VERSION V
# followed by ALTER EXTENSION crid UPDATE gives exactly the catalog of a fresh
# CREATE EXTENSION crid (functions with their volatility, strictness,
# parallel labels, bodies, grants and comments; tables, columns, constraints,
# indexes, triggers, policies; views; operators, operator classes and
# families; types; casts;
# event triggers; the pg_dump configuration), and the registry's rows
# survive the update.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use CridScripts;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Every version crid can be installed at: the versions named by the install
# and upgrade scripts of the extension directory the server uses.
my $node = crid_node('upgrade', conf => "crid.registry_database = 'fresh'\n");
my $default = $node->safe_psql('postgres', "SELECT default_version FROM pg_available_extensions WHERE name = 'crid'");
my @versions = split /\n/, $node->safe_psql('postgres',
	"SELECT version FROM pg_available_extension_versions WHERE name = 'crid' AND version <> '$default' ORDER BY version");
ok(scalar(@versions) >= 1, "older versions to upgrade from: @versions");

# One line per member object of the extension, with everything that defines
# it, in a stable order; nothing in it depends on OIDs.
my $snapshot = crid_snapshot_sql();

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION crid');
my $fresh = $node->safe_psql('fresh', $snapshot);
like($fresh, qr/function crid_next\(\)/, 'the snapshot lists the members of a fresh install');
like($fresh, qr/extension: version \Q$default\E/, "a fresh install is at the default version $default");
like($fresh, qr/table crid_allocations: .* triggers=.*CREATE TRIGGER crid_local_only .* enabled=A/,
	'the snapshot has the triggers of the extension\'s tables, with when they fire');
like($fresh, qr/event trigger crid_replication_warning: event=ddl_command_end .*tags=\{"CREATE PUBLICATION"/,
	'the snapshot has the extension\'s event triggers');

for my $v (@versions)
{
	my $db = "from_$v";
	$db =~ s/\./_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION crid VERSION '$v'");
	# Registry rows of the old version, as Go nodes and crid_allocate left them.
	$node->safe_psql($db, 'SELECT crid_allocate(100, 500), crid_allocate(100, 500), crid_allocate(7, 10)');
	my $before = $node->safe_psql($db, 'SELECT ts, next_seq FROM crid_allocations ORDER BY ts');
	$node->safe_psql($db, 'ALTER EXTENSION crid UPDATE');
	my $upgraded = $node->safe_psql($db, $snapshot);
	is($upgraded, $fresh, "$v upgraded to $default has the catalog of a fresh install");
	# Name the lines that differ, so a failure says what to fix.
	diag(snapshot_diff('after upgrade', $upgraded, 'fresh', $fresh)) if $upgraded ne $fresh;
	is($node->safe_psql($db, 'SELECT ts, next_seq FROM crid_allocations ORDER BY ts'),
		$before, "the registry rows of $v survive the update");
	is($node->safe_psql($db, 'SELECT crid_allocate(100, 500)'), '1000',
		"after the update from $v, reservations continue where the old rows ended");
}

$node->stop;
done_testing();
