# Two crid servers replicate each other the way users set it up first: every
# table (a FOR ALL TABLES publication and subscriptions with origin = none on
# 16 and later; pglogical's replication_set_add_all_tables on 15), crid's
# own tables included. crid says so at once (a WARNING with the fix when the
# publication and the subscriptions are made) and in crid_check(); meanwhile
# replication keeps running, because a row of crid's tables that the other
# server sends is not applied. Without that (the trigger disabled) the same
# rows stop replication (16 and later) or overwrite this server's registry
# row, so that it would hand out sequences again (pglogical). The fixes
# crid_check() names then keep crid's tables out, and replication goes on.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use MultiWriter;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $kind = machinery();
# Each server reserves crid ids in its own registry; both open at once.
my $a = crid_node('all_a', open => 0, conf => writer_conf() . "crid.node_id = 1\n");
my $b = crid_node('all_b', open => 0, conf => writer_conf() . "crid.node_id = 2\n");
registry_open($_) for $a, $b;
my %other = (all_a => $b, all_b => $a);
my $dsn = sub { sprintf('host=%s port=%d dbname=postgres', $_[0]->host, $_[0]->port) };
my $subname = sub { 'everything_' . $_[0]->name };    # the subscription of a server

my $schema = q{
CREATE TABLE orders (
    id bigint PRIMARY KEY DEFAULT snowflake_next(),
    server text NOT NULL DEFAULT current_setting('cluster_name'),
    qty integer NOT NULL);
CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), note text);};
for my $s ($a, $b)
{
	$s->safe_psql('postgres', $schema);
	if ($kind eq 'native')
	{
		my ($ret, $out, $err) = $s->psql('postgres', 'CREATE PUBLICATION everything FOR ALL TABLES');
		is($ret, 0, $s->name . ': CREATE PUBLICATION everything FOR ALL TABLES works');
		like($err, qr/WARNING:  crid: publication everything \(FOR ALL TABLES\) publishes crid's own tables \(public\.crid_allocations, .*public\.crid_registry_state(?:, public\.crid_sequences)?\).*\nHINT:  Run: BEGIN; DROP PUBLICATION everything; CREATE PUBLICATION everything FOR TABLE public\.events, public\.orders /,
			'... with a WARNING naming crid\'s tables, and the fix as HINT');
	}
	else
	{
		$s->safe_psql('postgres', sprintf(q{
CREATE EXTENSION pglogical;
SELECT pglogical.create_node(node_name := '%s', dsn := '%s');
SELECT pglogical.replication_set_add_all_tables('default', ARRAY['public']);}, $s->name, $dsn->($s)));
	}
}
for my $s ($a, $b)
{
	my $sub = $subname->($s);
	if ($kind eq 'native')
	{
		my ($ret, $out, $err) = $s->psql('postgres', sprintf(
			"CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION everything WITH (origin = none, copy_data = false)",
			$sub, $dsn->($other{ $s->name })));
		is($ret, 0, $s->name . ': CREATE SUBSCRIPTION with origin = none works');
		like($err, qr/WARNING:  crid: subscription $sub receives crid's own tables .*\nHINT:  Run: ALTER SUBSCRIPTION $sub REFRESH PUBLICATION WITH \(copy_data = false\)/,
			'... with a WARNING naming crid\'s tables, and what to do');
	}
	else
	{
		$s->safe_psql('postgres', sprintf(q{
SELECT pglogical.create_subscription(subscription_name := '%s', provider_dsn := '%s',
    synchronize_structure := false, synchronize_data := false, forward_origins := '{}')}, $sub, $dsn->($other{ $s->name })));
	}
}
for my $s ($a, $b)
{
	my $query =
	  $kind eq 'native'
	  ? sprintf("SELECT count(*) = 1 FROM pg_stat_subscription WHERE subname = '%s' AND pid IS NOT NULL", $subname->($s))
	  : sprintf("SELECT status = 'replicating' FROM pglogical.show_subscription_status('%s')", $subname->($s));
	ok(wait_until($s, $query, 't', 120), $s->name . ': its subscription streams');
}
my $problem = $kind eq 'native' ? 'publication' : 'replication_set';
my $set = $kind eq 'native' ? 'everything' : 'default';
for my $s ($a, $b)
{
	like($s->safe_psql('postgres', "SELECT problem || ' ' || object FROM crid_check() WHERE problem = '$problem'"),
		qr/^$problem $set$/, $s->name . ": crid_check() names the $problem");
}

# A marker row written on `from` after its other writes, and seen on `to`:
# `to` has applied everything `from` wrote before it.
my $markers = 0;
sub caught_up
{
	my ($from, $to) = @_;
	my $note = 'marker ' . ++$markers;
	$from->safe_psql('postgres', "INSERT INTO events (note) VALUES ('$note')");
	return wait_until($to, "SELECT count(*) FROM events WHERE note = '$note'", '1', 120);
}

# --- both servers write orders, and crid's tables, as servers do -------------------
my $offsets = log_offsets($a, $b);
for my $s ($a, $b)
{
	$s->safe_psql('postgres', q{
INSERT INTO orders (qty) SELECT g FROM generate_series(1, 5000) g;
INSERT INTO events (note) SELECT 'event ' || g FROM generate_series(1, 5000) g;
SELECT count(crid_next()) FROM generate_series(1, 30000);});
}
# crid_evict records its horizon in crid_evictions: b's row reaches a,
# which keeps none of it.
$b->safe_psql('postgres', "SELECT crid_evict(now() - interval '3 days')");
ok(caught_up($b, $a), 'all_a applied everything all_b wrote');
is($a->safe_psql('postgres', 'SELECT count(*) FROM crid_evictions'), '0',
	'the crid_evictions row all_b sent was not applied on all_a');
my $registry_rows = q{SELECT string_agg(ts || ':' || next_seq, ',' ORDER BY ts) FROM crid_allocations};
my $a_registry = $a->safe_psql('postgres', $registry_rows);
$b->safe_psql('postgres', 'SELECT count(crid_next()) FROM generate_series(1, 30000)');
ok(caught_up($b, $a), 'all_a applied everything all_b wrote next');
is($a->safe_psql('postgres', $registry_rows),
	$a_registry, 'all_a\'s registry has only its own reservations: all_b\'s were not applied');
ok(wait_until($_, 'SELECT count(*) FROM orders', '10000', 300), $_->name . ' has the orders of both servers')
  for $a, $b;
for my $s ($a, $b)
{
	# A later update of a row that was not applied finds no row, and is
	# skipped too (18 counts it as update_missing; it is no ERROR on any
	# release or in pglogical). An ERROR (a key that exists) must not happen.
	my @errors = apply_errors($s, $offsets);
	is(scalar(@errors), 0, $s->name . ': no apply error in the log')
	  or diag(join("\n", @errors[ 0 .. ($#errors < 9 ? $#errors : 9) ]));
	if ($kind eq 'native')
	{
		is($s->safe_psql('postgres', 'SELECT sum(apply_error_count) FROM pg_stat_subscription_stats'), '0',
			$s->name . ': pg_stat_subscription_stats counts no apply error');
	}
	if ($s->pg_version >= 18)
	{
		is($s->safe_psql('postgres', 'SELECT sum(confl_insert_exists) FROM pg_stat_subscription_stats'), '0',
			$s->name . ': 18 counts no insert_exists');
	}
}

# --- without the trigger: one second reserved on both servers ----------------------
# Second ts of an hour ago, reserved by each server in its own registry:
# 50 sequences on all_a, 100 on all_b. all_b takes all_a's row with the
# trigger disabled, as a crid without it would.
my $ts = $a->safe_psql('postgres',
	"SELECT floor(extract(epoch FROM now() - interval '1 hour' - timestamptz '2026-01-01 00:00:00+00'))::bigint");
pause($b, $subname->($b));
$b->safe_psql('postgres', "SELECT crid_allocate($ts, 100)");
$a->safe_psql('postgres', "SELECT crid_allocate($ts, 50)");
ok(caught_up($b, $a), 'all_a applied all_b\'s reservation of the second');
is($a->safe_psql('postgres', "SELECT next_seq FROM crid_allocations WHERE ts = $ts"), '50',
	'all_a keeps its own row of the second');
$b->safe_psql('postgres', 'ALTER TABLE crid_allocations DISABLE TRIGGER crid_local_only');
$offsets = log_offsets($b);
resume($b, $subname->($b));
if ($kind eq 'native')
{
	ok(wait_until($b, 'SELECT sum(apply_error_count) > 0 FROM pg_stat_subscription_stats', 't', 120),
		'without the trigger, all_a\'s row of the second stops all_b\'s subscription');
	# SQLSTATE 23505 (unique_violation): the duplicate key error on 16 and
	# 17, the conflict insert_exists on 18.
	ok(logs_sqlstate($b, 'ERROR', '23505', $offsets, 60), '... on a key that exists: all_b logs ERROR 23505');
	if ($b->pg_version >= 18)
	{
		ok(wait_until($b, 'SELECT sum(confl_insert_exists) > 0 FROM pg_stat_subscription_stats', 't', 60),
			'18: on a key that exists (insert_exists)');
	}
	$b->safe_psql('postgres', 'ALTER TABLE crid_allocations ENABLE ALWAYS TRIGGER crid_local_only');
	ok(caught_up($a, $b), 'with the trigger back, all_b\'s apply worker goes on');
}
else
{
	ok(wait_until($b, "SELECT next_seq FROM crid_allocations WHERE ts = $ts", '50', 120),
		'without the trigger, all_a\'s row of the second overwrites all_b\'s');
	is($b->safe_psql('postgres', "SELECT crid_allocate($ts, 100)"), '50',
		'... so all_b would hand out sequences 50 to 99 of that second again');
	$b->safe_psql('postgres', 'ALTER TABLE crid_allocations ENABLE ALWAYS TRIGGER crid_local_only');
}
is($b->safe_psql('postgres', "SELECT count(*) FROM crid_check() WHERE problem = 'local_only_trigger'"), '0',
	'the trigger is whole again');

# --- the fixes crid_check() names ----------------------------------------------------
for my $s ($a, $b)
{
	my $fix = $s->safe_psql('postgres', "SELECT fix FROM crid_check() WHERE problem = '$problem'");
	my ($ret, $out, $err) = $s->psql('postgres', $fix);
	is($ret, 0, $s->name . ": the fix of the $problem runs");
	unlike($err, qr/WARNING:  crid/, '... without a warning of crid');
}
if ($kind eq 'native')
{
	for my $s ($a, $b)
	{
		my $fix = $s->safe_psql('postgres', "SELECT fix FROM crid_check() WHERE problem = 'subscription'");
		like($fix, qr/^ALTER SUBSCRIPTION \S+ REFRESH PUBLICATION WITH \(copy_data = false\)$/,
			$s->name . ': then the subscription is refreshed');
		$s->safe_psql('postgres', $fix);
	}
}
for my $s ($a, $b)
{
	is($s->safe_psql('postgres', "SELECT count(*) FROM crid_check() WHERE problem IN ('$problem', 'subscription')"),
		'0', $s->name . ': crid_check() has nothing left to say about replication');
}
$_->safe_psql('postgres', 'INSERT INTO orders (qty) SELECT g FROM generate_series(1, 1000) g') for $a, $b;
ok(wait_until($_, 'SELECT count(*) FROM orders', '12000', 300), $_->name . ': replication goes on after the fixes')
  for $a, $b;
my $hash = q{SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM orders};
is($a->safe_psql('postgres', $hash), $b->safe_psql('postgres', $hash),
	'both servers have the same orders');

$_->stop for $a, $b;
done_testing();
