# crid's install and upgrade scripts are safe to run as a superuser in a
# schema others can create in (docs/security.md). A database owner, no
# superuser, plants in `public` a trap for every function name and operator
# the scripts use (each says when it runs, and as whom): then a superuser
# installs crid there at the default version, and at each older version
# followed by ALTER EXTENSION crid UPDATE, and uses its views and functions.
# No trap runs, every install succeeds and leaves the objects of an install
# without traps. The same traps do catch the scripts as they were released
# (test/fixtures/released/), and an install that the released 0.1.0 -> 0.2.0
# script bound to planted operators is repaired by the update to the
# current version.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use CridScripts;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('traps', open => 0);
my $default =
  $node->safe_psql('postgres', "SELECT default_version FROM pg_available_extensions WHERE name = 'crid'");
my @versions = split /\n/, $node->safe_psql('postgres',
	"SELECT version FROM pg_available_extension_versions WHERE name = 'crid' AND version <> '$default' ORDER BY version");
ok(scalar(@versions) >= 3, "older versions to upgrade from: @versions");

# The objects of an install without traps; snapshots are read with only
# pg_catalog on the search_path, so that the same objects print the same in
# a database with traps (a deparsed operator is qualified when the
# search_path would find another).
my $snapshot = 'SET search_path = pg_catalog, pg_temp;' . crid_snapshot_sql();
$node->safe_psql('postgres', 'CREATE DATABASE clean');
$node->safe_psql('clean', 'CREATE EXTENSION crid');
my $clean = $node->safe_psql('clean', $snapshot);
my ($traps, $count) = trap_sql($node, 'clean');
ok($count > 1000, "$count traps for the functions and operators of the scripts");
for my $trap (
	'public\."crid_registry_check"\(text\)', 'public\."crid_node_lease_since"\(\)',
	'public.crid_trap_op_\d+\(oid, regclass\)', 'public.crid_trap_op_\d+\(oid, regnamespace\)',
	'public.crid_trap_op_\d+\(numeric, bigint\)', 'public.crid_trap_op_\d+\(numeric, integer\)')
{
	like($traps, qr/CREATE FUNCTION $trap/, "the traps include $trap");
}
like($traps, qr/CREATE OPERATOR public\.\* \(LEFTARG = numeric, RIGHTARG = bigint/, 'and the operator *(numeric, bigint)');

# The tenant: owns its database, may create in its schema public (as every
# database owner may from PostgreSQL 15 on), is no superuser.
$node->safe_psql('postgres', 'CREATE ROLE tenant LOGIN');

# Plants the traps in $db as the tenant; returns how many exist.
sub plant
{
	my ($n, $db, $sql) = @_;
	my ($ret, $out, $err) = $n->psql($db, "SET ROLE tenant;\n$sql", on_error_stop => 0);
	return $n->safe_psql($db, q{SET search_path = pg_catalog, pg_temp; SELECT count(*) FROM pg_proc WHERE proowner = 'tenant'::regrole});
}

# Runs $sql as the superuser with the default search_path; returns whether
# it succeeded and what it printed on stderr.
sub as_superuser
{
	my ($n, $db, $sql) = @_;
	my ($ret, $out, $err) = $n->psql($db, "SET statement_timeout = '20s';\n$sql", on_error_stop => 1);
	return ($ret == 0, $err);
}

# What a superuser does with crid after the install: reads the progress of
# a backfill (a row in it, so that every expression of the view is
# computed), calls the functions whose SQL bodies were bound when they were
# made, and every function of crid that takes no argument.
sub use_crid
{
	my ($n, $db) = @_;
	my $err = '';
	my ($ok, $e) = as_superuser($n, $db, q{
INSERT INTO crid_backfill_state (relid, attnum, column_name, expression, batch_size, started_at, updated_at,
                                 rows_done, rows_total, batches, rows_per_second, pid)
VALUES ('crid_allocations'::regclass, 1::smallint, 'ts', 'crid_next()', 10, now(), now(), 5, 50, 1, 2.5, 0);
SELECT * FROM crid_backfill_progress;
SELECT uuid_v7_text_to_timestamptz(uuid_generate_v7()::text), crid_backfill_lock_key(1::oid, 1::smallint);});
	$err .= $e;
	Test::More::ok($ok, "$db: a superuser reads crid_backfill_progress and calls the functions of SQL bodies")
	  or Test::More::diag($e);
	my $row = $n->safe_psql($db, 'SET search_path = pg_catalog, pg_temp; '
		  . 'SELECT state, rows_left, percent_done, time_left FROM public.crid_backfill_progress');
	my @fns = split /\n/, $n->safe_psql($db, q{
SET search_path = pg_catalog, pg_temp;
SELECT 'public.' || p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
WHERE p.pronargs = 0 AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype) AND p.prokind = 'f'
ORDER BY 1});
	for my $f (@fns)
	{
		(undef, $e) = as_superuser($n, $db, "SELECT * FROM $f()");
		$err .= $e;
	}
	return wantarray ? ($err, $row) : $err;
}
# The row of crid_backfill_progress computed by pg_catalog's operators.
my $progress = 'interrupted|45|10.0|00:00:18';

for my $from ('', @versions)
{
	my $what = $from ? "from $from" : 'fresh';
	my $db = $from ? "up_$from" : 'fresh';
	$db =~ s/\./_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db OWNER tenant");
	my $planted = plant($node, $db, $traps);
	cmp_ok($planted, '>', 1000, "$what: the tenant planted $planted traps");
	my ($ok, $err) = as_superuser($node, $db, $from ? "CREATE EXTENSION crid VERSION '$from'" : 'CREATE EXTENSION crid');
	ok($ok, "$what: CREATE EXTENSION succeeds among the traps") or diag($err);
	if ($from)
	{
		# The traps planted before the older version's install wait for
		# its update too.
		my ($ok2, $err2) = as_superuser($node, $db, 'ALTER EXTENSION crid UPDATE');
		ok($ok2, "$what: ALTER EXTENSION crid UPDATE succeeds among the traps") or diag($err2);
		$err .= $err2;
	}
	my @hits = trap_hits($node, $db, $err);
	is(scalar(@hits), 0, "$what: no trap ran during the install") or diag(join("\n", @hits));
	my $got = $node->safe_psql($db, $snapshot);
	is($got, $clean, "$what: the install among traps made the objects of an install without them")
	  or diag(snapshot_diff('among traps', $got, 'without', $clean));
	$node->safe_psql($db, 'TRUNCATE public.crid_trap_log');
	my ($used, $row) = use_crid($node, $db);
	@hits = trap_hits($node, $db, $used);
	is(scalar(@hits), 0, "$what: no trap ran as a superuser used crid's views and functions")
	  or diag(join("\n", @hits));
	is($row, $progress, "$what: crid_backfill_progress computes with pg_catalog's operators");
}

# The released scripts, on a server that has them in place of the fixed ones.
my $released = PostgreSQL::Test::Cluster->new('released', install_path => released_install());
$released->init;
$released->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\ncrid.node_lease_ttl = '6s'\n");
$released->start;
$released->safe_psql('postgres', 'CREATE ROLE tenant LOGIN');

# The traps catch the released scripts: the install fails or a trap runs.
$released->safe_psql('postgres', 'CREATE DATABASE caught OWNER tenant');
plant($released, 'caught', $traps);
my ($ok, $err) = as_superuser($released, 'caught', "CREATE EXTENSION crid VERSION '$versions[-1]'");
my @hits = trap_hits($released, 'caught', $err);
ok(!$ok || @hits, "the traps catch the released scripts at $versions[-1]: "
	  . ($ok ? scalar(@hits) . ' ran' : 'the install failed'));

# The cases of issue 39, each alone against the released scripts: the
# untyped literal reaches a text overload of crid_registry_check, the DO
# block of 0.2.0 -> 0.3.0 runs =(oid, regclass) and <>(oid, regnamespace),
# and a zero-argument crid_node_lease_since stops the install. The fixed
# scripts met each of them in the installs above.
sub pick
{
	my ($re) = @_;
	return trap_preamble() . join("\n", grep { /$re/ } split /\n/, $traps);
}
my %cases = (
	literal => [ qr/^CREATE FUNCTION public\."crid_registry_check"\(text\)/, qr/function crid_registry_check\(text\) ran as/ ],
	do_block_eq => [ qr/\(oid, regclass\)|LEFTARG = oid, RIGHTARG = regclass,/, qr/operator =\(oid, regclass\) ran as/ ],
	do_block_ne =>
	  [ qr/\(oid, regnamespace\)|LEFTARG = oid, RIGHTARG = regnamespace,/, qr/operator <>\(oid, regnamespace\) ran as/ ],
	zero_args => [ qr/^CREATE FUNCTION public\."crid_node_lease_since"\(\)/ ]);
for my $case (sort keys %cases)
{
	my ($plant, @expect) = @{ $cases{$case} };
	$released->safe_psql('postgres', "CREATE DATABASE $case OWNER tenant");
	plant($released, $case, pick($plant));
	my ($ok, $err) = as_superuser($released, $case, "CREATE EXTENSION crid VERSION '$versions[-1]'");
	my @hits = trap_hits($released, $case, $err);
	if (@expect)
	{
		ok($ok, "released scripts, $case: the install succeeds") or diag($err);
		for my $e (@expect)
		{
			ok(scalar(grep { /$e/ } @hits), "released scripts, $case: $e") or diag(join("\n", @hits));
		}
	}
	else
	{
		ok(!$ok, "released scripts, $case: the install fails");
	}
}

# An install the released scripts made with the view's operators planted
# has them bound into crid_backfill_progress; the update to the default
# version leaves the view of a fresh install, and no trap runs.
$released->safe_psql('postgres', 'CREATE DATABASE bound OWNER tenant');
plant($released, 'bound', trap_preamble() . join("\n",
	grep { /\(numeric, (bigint|integer)\)|LEFTARG = numeric, RIGHTARG = (bigint|integer),/ } split /\n/, $traps));
($ok, $err) = as_superuser($released, 'bound', "CREATE EXTENSION crid VERSION '$versions[-1]'");
ok($ok, "the released scripts install $versions[-1] with the view's operators planted") or diag($err);
my ($used, $row) = use_crid($released, 'bound');
@hits = trap_hits($released, 'bound', $used);
ok(scalar(grep { /operator \*\(numeric, bigint\) ran as/ } @hits),
	'the released view runs the planted *(numeric, bigint) as the superuser who reads it');
isnt($row, $progress, 'and computes its row with them');
$released->safe_psql('bound', 'TRUNCATE public.crid_trap_log; TRUNCATE crid_backfill_state');
($ok, $err) = as_superuser($released, 'bound', 'ALTER EXTENSION crid UPDATE');
ok($ok, "the update of that install to $default succeeds") or diag($err);
($used, $row) = use_crid($released, 'bound');
@hits = trap_hits($released, 'bound', $err . $used);
is(scalar(@hits), 0, 'after the update, no trap runs as a superuser reads the view') or diag(join("\n", @hits));
is($row, $progress, "after the update, the view computes with pg_catalog's operators");
my $view = q{SET search_path = pg_catalog, pg_temp; SELECT pg_get_viewdef('public.crid_backfill_progress'::regclass)};
is($released->safe_psql('bound', $view), $node->safe_psql('clean', $view),
	'the updated view is that of a fresh install');

$released->stop;
$node->stop;
done_testing();
