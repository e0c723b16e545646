# The released install and upgrade scripts were changed after their release
# only to qualify names (a security fix, docs/security.md): this proves the
# change leaves the objects they made as they were. For every version the
# released scripts reach, one server installs it from the scripts as they
# shipped (test/fixtures/released/, the copies of the release tags) and
# another from the scripts of this tree, and the two catalogs of crid's
# objects are equal: functions with their bodies, settings, grants and
# comments; tables, columns, defaults, constraints, indexes, triggers and
# policies; views' definitions, which are stored parsed, so a view whose
# operators are written OPERATOR(pg_catalog.*) is the same only because the
# released text resolved to the same operators; operators, classes, families.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use CridScripts;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @released = do {
	opendir(my $d, released_dir()) or die released_dir() . ": $!";
	my @v = map { /^crid--(?:.*--)?([0-9.]+)\.sql$/ ? $1 : () } readdir $d;
	closedir $d;
	sort @v;
};
is_deeply(\@released, [ '0.1.0', '0.2.0', '0.3.0' ], 'the released scripts reach 0.1.0, 0.2.0 and 0.3.0');

my $current = crid_node('current', open => 0);
my $shipped = PostgreSQL::Test::Cluster->new('shipped', install_path => released_install());
$shipped->init;
$shipped->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\ncrid.node_lease_ttl = '6s'\n");
$shipped->start;

# The server of released scripts runs them: its script differs from this tree's.
my $script = "SELECT setting FROM pg_config WHERE name = 'SHAREDIR'";
my $released_dump = slurp_file($shipped->safe_psql('postgres', $script) . '/extension/crid--0.1.0.sql');
my $fixed_dump = slurp_file($current->safe_psql('postgres', $script) . '/extension/crid--0.1.0.sql');
isnt($released_dump, $fixed_dump, 'the two servers run different texts of crid--0.1.0.sql');

my $snapshot = 'SET search_path = pg_catalog, pg_temp;' . crid_snapshot_sql();
for my $v (@released)
{
	(my $db = "v_$v") =~ s/\./_/g;
	for my $n ($current, $shipped)
	{
		$n->safe_psql('postgres', "CREATE DATABASE $db");
		$n->safe_psql($db, "CREATE EXTENSION crid VERSION '$v'");
	}
	my $fixed = $current->safe_psql($db, $snapshot);
	my $as_shipped = $shipped->safe_psql($db, $snapshot);
	like($fixed, qr/extension: version \Q$v\E/, "$v: the snapshot is of crid $v");
	is($fixed, $as_shipped, "$v: the scripts of this tree make the objects the released ones made")
	  or diag(snapshot_diff('this tree', $fixed, 'released', $as_shipped));
}

$shipped->stop;
$current->stop;
done_testing();
