# crid_check() reports each misconfiguration of a running server that crid
# can see, with the command that fixes it: for each one the test makes the
# problem, sees its row, runs the fix as the row gives it, and sees the row
# gone. One server goes from not preloaded through a missing node id, a
# changed layout, damaged marks, a registry database that is missing and
# then lacks crid, to a Go registry table without its guard; a fleet shows a
# static node another live server holds and a registry out of reach.
# (crid's tables in publications are sql/crid_check.sql's and
# 042_all_tables_publication.pl's.)
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use MultiWriter;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# The problems crid_check() reports in `db` of `node`: "problem object" lines.
sub problems
{
	my ($node, $db) = @_;
	return $node->safe_psql($db || 'postgres',
		q{SELECT string_agg(problem || ' ' || object, E'\n' ORDER BY problem, object) FROM crid_check()});
}

# Waits until crid_check() in `db` reports nothing (the block reserver's
# state follows a repair at its next round); returns what it last reported.
sub settled_problems
{
	my ($node, $db) = @_;
	my $deadline = time() + 60;
	my $seen;
	while (($seen = problems($node, $db)) ne '' && time() < $deadline)
	{
		sleep 1;
	}
	return $seen;
}

# Waits until crid_check() in `db` has a row of `problem` and returns its
# fix, or undef after two minutes.
sub wait_for_problem
{
	my ($node, $problem, $db) = @_;
	my $deadline = time() + 120;
	while (1)
	{
		my $fix = $node->safe_psql($db || 'postgres', "SELECT fix FROM crid_check() WHERE problem = '$problem'");
		return $fix if $fix ne '';
		return undef if time() > $deadline;
		sleep 1;
	}
}

# Waits until crid_check() in `db` has no row of `problem` left, or, where
# a fix leads to the next step of the same problem (a database created, in
# which crid is still to be created), none but rows whose fix matches
# `next_fix`. False after two minutes, showing the fixes still reported.
sub wait_for_gone
{
	my ($node, $problem, $db, $next_fix) = @_;
	my $deadline = time() + 120;
	while (1)
	{
		my @left = grep { !defined $next_fix || !/$next_fix/ } split /\n/,
		  $node->safe_psql($db || 'postgres', "SELECT fix FROM crid_check() WHERE problem = '$problem' ORDER BY fix");
		return 1 if !@left;
		if (time() > $deadline)
		{
			diag("$problem: crid_check() still reports it, to be fixed by: " . join(' | ', @left));
			return 0;
		}
		sleep 1;
	}
}

# Waits for the row of `problem`, checks its fix against `fix_pattern`,
# runs the fix (in `fix_db`, or `db`; `then` runs after it, a restart say),
# and waits for the row to go (or for the fix to be `next_fix`, the next
# step of the same problem).
sub fixes
{
	my ($node, $problem, $fix_pattern, %opt) = @_;
	my $db = $opt{db} || 'postgres';
	my $fix = wait_for_problem($node, $problem, $db);
	ok(defined $fix, "$problem: crid_check() reports it") or return;
	like($fix, $fix_pattern, "$problem: the fix is $fix");
	$node->safe_psql($opt{fix_db} || $db, $fix);
	$opt{then}->() if $opt{then};
	ok(wait_for_gone($node, $problem, $db, $opt{next_fix}),
		$opt{next_fix}
		? "$problem: after the fix, its only row is the next step's"
		: "$problem: after the fix, its row is gone");
}

# --- one server: not preloaded ----------------------------------------------------
# A wide borrow window: restarts follow each other quickly, and each may
# resume ids up to the mark's lead ahead of the clock.
my $node = crid_node('check', preload => 0, open => 0, conf => "crid.clock_borrow_ms = 10000\n");
# The key is a bigid: as a bigint key of snowflake ids it would be named as
# one JSON rounds (json_key_unsafe, TAP 060 and sql/json_keys.sql).
$node->safe_psql('postgres', q{
CREATE TABLE orders (id bigid PRIMARY KEY DEFAULT snowflake_next(), ref bigint DEFAULT crid_next(), qty integer)});
like($node->safe_psql('postgres', "SELECT detail FROM crid_check() WHERE problem = 'not_preloaded'"),
	qr/column DEFAULTs that call them fail: public\.orders\.id, public\.orders\.ref$/,
	'not_preloaded: the detail names the columns whose DEFAULTs mint');
fixes($node, 'not_preloaded', qr/^ALTER SYSTEM SET shared_preload_libraries = 'crid'; -- then restart the server$/,
	then => sub { $node->restart; registry_open($node) });

# --- no crid.node_id for DEFAULT snowflake_next() ---------------------------------
fixes($node, 'node_unset', qr/^ALTER SYSTEM SET crid\.node_id = 0; SELECT pg_reload_conf\(\);/);
$node->safe_psql('postgres', 'INSERT INTO orders (qty) SELECT g FROM generate_series(1, 1000) g');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT (snowflake_parse(id)).node) || ' ' || min((snowflake_parse(id)).node) FROM orders}),
	'1 0', 'the DEFAULTs mint now, on node 0');
is(settled_problems($node), '', 'nothing else is wrong');

# --- a changed layout ------------------------------------------------------------
$node->stop;
$node->append_conf('postgresql.conf', "crid.snowflake_sequence_bits = 13\n");
$node->start;
fixes($node, 'layout_changed', qr/^SELECT crid_accept_layout\(\)$/);
is($node->safe_psql('postgres', 'SELECT snowflake_next() > max(id) FROM orders'), 't',
	'snowflake ids are minted again, above the old ones');

# --- damaged marks ---------------------------------------------------------------
$node->safe_psql('postgres', 'INSERT INTO orders (qty) SELECT g FROM generate_series(1, 1000) g');
$node->stop;
my $high_water = $node->data_dir . '/crid_high_water';
my $registry_mark = $node->data_dir . '/crid_registry_mark';
my ($newest_ms) = slurp_file($high_water) =~ /unix_ms (\d+)/;
my ($newest_s) = slurp_file($registry_mark) =~ /unix_s (\d+)/;
append_to_file($high_water, "garbage\n");
open(my $fh, '>', $registry_mark) or die "cannot write $registry_mark: $!";
print $fh "\x00\x01garbage";
close $fh;
$node->start;
is(problems($node), "high_water_damaged crid_high_water\nregistry_mark_damaged crid_registry_mark",
	'both damaged marks are reported');
# The fix names a time half crid.clock_borrow_ms ahead of now; the marks
# were written up to that far ahead of the ids, and this test restarted
# within a second, so wait until the clock is past them first.
$node->poll_query_until('postgres',
	"SELECT clock_timestamp() > greatest(to_timestamp($newest_ms / 1000.0), to_timestamp($newest_s + 1))");
# One function replaces both marks: the fix of either row removes both.
my $repair = qr/^SELECT crid_reset_high_water\(now\(\) \+ interval '5000 ms'\)$/;
like(wait_for_problem($node, 'registry_mark_damaged'), $repair, 'registry_mark_damaged: the fix is crid_reset_high_water');
fixes($node, 'high_water_damaged', $repair);
is(settled_problems($node), '', 'registry_mark_damaged: after the same fix, its row is gone too');
$node->poll_query_until('postgres', 'SELECT crid_next() > 0') or die 'crid minting did not resume';
is($node->safe_psql('postgres',
	'WITH old AS (SELECT max(id) AS id, max(ref) AS ref FROM orders) '
	  . 'INSERT INTO orders (qty) VALUES (0) RETURNING id > (SELECT id FROM old) AND ref > (SELECT ref FROM old)'),
	't', 'after the repairs, snowflake and crid ids are minted above the old ones');

# --- the registry database: missing, then without crid -----------------------------
$node->safe_psql('postgres', "ALTER SYSTEM SET crid.registry_database = 'ids'");
$node->restart;
fixes($node, 'registry', qr/^CREATE DATABASE ids$/, next_fix => qr/^CREATE EXTENSION crid; -- in database ids$/);
fixes($node, 'registry', qr/^CREATE EXTENSION crid; -- in database ids$/, fix_db => 'ids');

# --- a Go registry table without the guard trigger --------------------------------
$node->safe_psql('ids', 'CREATE TABLE public.go_allocations (ts bigint PRIMARY KEY, next_seq bigint NOT NULL)');
$node->safe_psql('postgres', "ALTER SYSTEM SET crid.registry_table = 'public.go_allocations'");
$node->restart;
fixes($node, 'registry_unguarded',
	qr/^CREATE TRIGGER crid_registry_guard BEFORE INSERT OR UPDATE ON public\.go_allocations FOR EACH ROW EXECUTE FUNCTION public\.crid_registry_guard\(\)$/,
	db => 'ids');
is(settled_problems($node, 'ids'), '', 'nothing is wrong in the registry database');

# --- a fleet: one static node on two servers, then the registry out of reach ------
# The server above is the fleet's registry: its database postgres has crid's
# tables, whatever registry its own block reserver uses. Leases of 4 s: a
# node is minted on a TTL and a fifth after it is first taken, and renewed
# every 1.3 s with 3.2 s to spare on idle servers.
my $registry = $node;
my $fleet_conf = sprintf("crid.registry = 'host=%s port=%d dbname=postgres'\ncrid.node_lease_ttl = '4s'\n",
	$registry->host, $registry->port);
# The members reserve in the registry, so their own tables need not open.
my $first = crid_node('check_first', open => 0, conf => $fleet_conf . "crid.node_id = 7\n");
$first->poll_query_until('postgres', 'SELECT snowflake_next() > 0') or die "check_first does not mint on node 7\n";
my $second = crid_node('check_second', open => 0, conf => $fleet_conf . "crid.node_id = 7\n");
ok(defined wait_for_problem($second, 'node_held_elsewhere'), 'node_held_elsewhere: the second server has the row');
like($second->safe_psql('postgres', "SELECT detail FROM crid_check() WHERE problem = 'node_held_elsewhere'"),
	qr/Node 7 is held by another live server, [^,]*:\Q@{[ $first->port ]}\E /,
	'node_held_elsewhere: the detail names the server that holds it');
fixes($second, 'node_held_elsewhere', qr/^ALTER SYSTEM SET crid\.node_id = 'lease'; SELECT pg_reload_conf\(\);$/);
$second->poll_query_until('postgres', 'SELECT snowflake_next() > 0') or die "check_second leases no node\n";
isnt($second->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_next())).node'), '7',
	'the second server mints on a leased node, not on node 7');
is(settled_problems($first), '', 'the first server has nothing to fix');

$registry->stop;
my $fix = wait_for_problem($first, 'registry');
ok(defined $fix, 'registry out of reach: crid_check() reports it');
like($first->safe_psql('postgres', "SELECT detail FROM crid_check() WHERE problem = 'registry'"),
	qr/^crid's block reserver cannot use the registry at host=.* \((unreachable|failing)\)/,
	'... naming the registry and the state');
like($fix, qr/start the registry server/, '... and the way out: the registry server up again, or crid.registry corrected');
$registry->start;
ok(wait_for_gone($first, 'registry'), 'with the registry back, the row is gone');

$_->stop for $first, $second, $registry;
done_testing();
