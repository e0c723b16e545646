# Active-active: two servers, then three, write the same tables at once and
# replicate each other (PostgreSQL's logical replication with origin = none
# on 16 and later, pglogical with forward_origins = '{}' on 15), keys from
# column DEFAULTs: snowflake ids on a node per server (two registered static
# nodes and one leased, from the fleet's registry), UUIDv7, and crid ids
# from that one registry. Afterwards every server has every row (the same
# count and the same hash over the ids, each server's rows as it wrote
# them, which an overwritten row would change), nothing conflicted (no
# apply worker ERROR in any log; on 16 and later no apply error counted, on
# 18 zero in every conflict counter of pg_stat_subscription_stats), and
# every snowflake id decodes to the node of the server that minted it. The
# same setup with bigserial keys conflicts at once: the contrast.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use MultiWriter;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Rows each server writes into each table, in committed batches.
my $rows = 100_000;
my $batch = 2_000;
# How long replication may take to bring every row everywhere: the rows of
# three servers into three tables on two busy cores.
my $converge_s = 600;
my $kind = machinery();
note("multi-writer replication: $kind");

# The registry's table opens (registry_open) while the writers start.
my $registry = crid_node('mw_registry', open => 0);
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
} . fleet_grants('crid_fleet') . q{
});
# Leases of 12 s: a node taken for the first time is minted on a TTL and a
# fifth later (no lease row shows that nobody else minted on it), mostly
# while the next servers start; a lease lapses only when no renewal (every
# 4 s) gets through for 9.6 s. This test loads the machine more than any
# other (three servers replicating to each other), so the margin over a
# stalled worker is wide.
my $fleet_conf = writer_conf()
  . sprintf("crid.registry = 'host=%s port=%d dbname=postgres user=crid_fleet'\n", $registry->host, $registry->port)
  . "crid.node_lease_ttl = '12s'\n";
# The writers reserve in the fleet's registry, not in their own tables, so
# there is nothing of theirs to wait for to open (open => 0).
my $a = crid_node('mw_a', open => 0, conf => $fleet_conf . "crid.node_id = 1\n");
my $b = crid_node('mw_b', open => 0, conf => $fleet_conf . "crid.node_id = 2\n");
my $c = crid_node('mw_c', open => 0, conf => $fleet_conf . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '10-19'\n");
my @all = ($a, $b, $c);
registry_open($registry);

# The node each server mints on, as the registry has it: the row its lease
# worker holds there (a static node registered, or the node leased).
my %node_of;
for my $s (@all)
{
	$s->poll_query_until('postgres', 'SELECT snowflake_next() > 0') or die $s->name . " mints no snowflake id\n";
	$node_of{ $s->name } = $registry->safe_psql('postgres', sprintf(
		"SELECT string_agg(node::text, ',') FROM crid_node_leases WHERE holder LIKE '%%:%d %%' AND lease_until > now()",
		$s->port));
}
is($node_of{mw_a}, '1', 'mw_a holds its static node 1 in the registry');
is($node_of{mw_b}, '2', 'mw_b holds its static node 2');
like($node_of{mw_c}, qr/^1[0-9]$/, "mw_c leased node $node_of{mw_c} of 10-19");

my %family = (snowflake => 'bigint DEFAULT snowflake_next()', uuidv7 => 'uuid DEFAULT uuid_generate_v7()',
	crid => 'bigint DEFAULT crid_next()');
my @families = sort keys %family;
sub create_orders
{
	my ($schema, @servers) = @_;
	for my $s (@servers)
	{
		$s->safe_psql('postgres', "CREATE SCHEMA $schema;\n" . join('', map { qq{
CREATE TABLE $schema.orders_$_ (
    id $family{$_} PRIMARY KEY,
    server text NOT NULL DEFAULT current_setting('cluster_name'),
    qty integer NOT NULL);} } @families));
	}
}

# Every server inserts $rows rows into each table of the schema, all at
# once, ids and the server's name from the DEFAULTs.
sub insert_everywhere
{
	my ($schema, @servers) = @_;
	my $inserts = join("\n", map { "INSERT INTO $schema.orders_$_ (qty) SELECT g FROM generate_series(1, $batch) g;" }
		@families);
	my $rounds = $rows / $batch;
	my @sessions = map {
		psql_start($_->connstr('postgres'), "DO \$\$ BEGIN FOR i IN 1 .. $rounds LOOP\n$inserts\nCOMMIT;\nEND LOOP; END \$\$")
	} @servers;
	psql_finish($sessions[$_], 'inserts on ' . $servers[$_]->name) for 0 .. $#servers;
}

# What a server has of a table: its rows, the hash over their ids, and how
# many rows each server wrote.
sub contents
{
	my ($s, $table) = @_;
	return $s->safe_psql('postgres', qq{
SELECT count(*) || ' ' || md5(string_agg(id::text, ',' ORDER BY id)) || ' '
    || (SELECT string_agg(server || '=' || n, ',' ORDER BY server) FROM (SELECT server, count(*) n FROM $table GROUP BY 1) w)
FROM $table});
}

# Conflict counters of the subscriptions of a server: apply errors on 16
# and 17, and every confl_* column too on 18.
sub conflict_counters
{
	my ($s) = @_;
	my @columns = split /\n/, $s->safe_psql('postgres', q{
SELECT attname FROM pg_attribute
WHERE attrelid = 'pg_stat_subscription_stats'::regclass AND (attname LIKE 'confl\_%' OR attname = 'apply_error_count')
ORDER BY attnum});
	return $s->safe_psql('postgres',
		'SELECT ' . join(" || ' ' || ", map { "'$_=' || sum($_)" } @columns) . ' FROM pg_stat_subscription_stats');
}

sub round
{
	my ($schema, @servers) = @_;
	my $n = scalar @servers;
	my $names = join(', ', map { $_->name } @servers);
	create_orders($schema, @servers);
	mesh($schema, $schema, @servers);
	my $offsets = log_offsets(@servers, $registry);
	my $t0 = time();
	insert_everywhere($schema, @servers);
	my $expected = join(',', map { $rows * $n } @families);
	my $count_all = 'SELECT ' . join(" || ',' || ", map { "(SELECT count(*) FROM $schema.orders_$_)" } @families);
	for my $s (@servers)
	{
		ok(wait_until($s, $count_all, $expected, $converge_s),
			"$n servers: " . $s->name . " has all $expected rows of the three tables");
	}
	note(sprintf('%d servers: inserted and replicated in %d s', $n, time() - $t0));
	for my $f (@families)
	{
		my @seen = map { contents($_, "$schema.orders_$f") } @servers;
		my $writers = join(',', map { $_->name . "=$rows" } @servers);
		like($seen[0], qr/^\Q@{[ $rows * $n ]}\E [0-9a-f]{32} \Q$writers\E$/,
			"$n servers, $f: " . $servers[0]->name . " has every row, each as its server wrote it");
		is($seen[$_], $seen[0], "$n servers, $f: " . $servers[$_]->name . ' has the same rows (same count and hash)')
		  for 1 .. $#seen;
	}
	for my $s (@servers)
	{
		my $decoded = $s->safe_psql('postgres', qq{
SELECT string_agg(server || ':' || node, ',' ORDER BY server)
FROM (SELECT DISTINCT server, (snowflake_parse(id)).node FROM $schema.orders_snowflake) d});
		is($decoded, join(',', map { $_->name . ':' . $node_of{ $_->name } } @servers),
			"$n servers: on " . $s->name . ', every snowflake id decodes to the node of the server that minted it');
	}
	for my $s (@servers, $registry)
	{
		my @errors = apply_errors($s, $offsets);
		is(scalar(@errors), 0, "$n servers: no apply ERROR in the log of " . $s->name)
		  or diag(join("\n", @errors[ 0 .. ($#errors < 9 ? $#errors : 9) ]));
	}
	if ($kind eq 'native')
	{
		like(conflict_counters($_), qr/^(\S+=0 ?)+$/,
			"$n servers: pg_stat_subscription_stats of " . $_->name . ' counts no apply error and no conflict')
		  for @servers;
	}
}

# --- two servers, then three ----------------------------------------------------
round('two', $a, $b);
round('three', $a, $b, $c);
cmp_ok($registry->safe_psql('postgres', 'SELECT sum(next_seq) FROM crid_allocations'), '>=', 5 * $rows,
	'the crid ids of every server came from blocks of the one registry');
if ($a->pg_version >= 18)
{
	is($a->safe_psql('postgres', 'SELECT sum(confl_insert_exists) FROM pg_stat_subscription_stats'), '0',
		'18: pg_stat_subscription_stats shows zero insert_exists');
}

# --- the same with bigserial: every server numbers from 1 -----------------------
for my $s ($a, $b)
{
	$s->safe_psql('postgres', q{
CREATE SCHEMA serial;
CREATE TABLE serial.orders_bigserial (
    id bigserial PRIMARY KEY,
    server text NOT NULL DEFAULT current_setting('cluster_name'),
    qty integer NOT NULL);});
}
# Both servers write before either applies the other's rows, as two busy
# servers do: otherwise a server whose insert came late would fail on the
# other's ids itself.
my @serial = mesh('serial', 'serial', $a, $b);
my %server = (mw_a => $a, mw_b => $b);
my $subscriber = sub { my ($name) = $_[0] =~ /^serial_(mw_[ab])_/; return $server{$name} };
pause($subscriber->($_), $_) for @serial;
my $offsets = log_offsets($a, $b);
$_->safe_psql('postgres', 'INSERT INTO serial.orders_bigserial (qty) SELECT g FROM generate_series(1, 1000) g')
  for $a, $b;
resume($subscriber->($_), $_) for @serial;
if ($kind eq 'native')
{
	for my $s ($a, $b)
	{
		ok(wait_until($s, 'SELECT sum(apply_error_count) > 0 FROM pg_stat_subscription_stats', 't', 120),
			'bigserial: the apply worker of ' . $s->name . ' fails');
		# A key that exists is SQLSTATE 23505 (unique_violation): on 16 and
		# 17 the index's duplicate key error, on 18 the conflict insert_exists
		# that the apply worker detects first and raises with the same code.
		ok(logs_sqlstate($s, 'ERROR', '23505', $offsets, 60), '... on a key that exists: its log has ERROR 23505');
		if ($s->pg_version >= 18)
		{
			cmp_ok($s->safe_psql('postgres', 'SELECT sum(confl_insert_exists) FROM pg_stat_subscription_stats'),
				'>', 0, '18: and pg_stat_subscription_stats counts insert_exists');
		}
		is( $s->safe_psql('postgres', q{
SELECT count(*) || ' ' || count(*) FILTER (WHERE server = current_setting('cluster_name')) FROM serial.orders_bigserial}),
			'1000 1000', '... so the rows of the other server never arrive: replication stopped');
	}
}
else
{
	# pglogical resolves an insert whose key exists by applying the remote
	# row over the local one (apply_remote, its default): each server ends
	# with the other's rows in place of its own. It logs each conflict it
	# resolves at LOG (pglogical.conflict_log_level) with SQLSTATE 23000
	# (integrity_constraint_violation), the code of all its conflicts: the
	# rows tell which kind, and only inserts flow here.
	my $theirs = q{SELECT count(*) || ' ' || count(*) FILTER (WHERE server <> current_setting('cluster_name'))
FROM serial.orders_bigserial};
	for my $s ($a, $b)
	{
		ok(wait_until($s, $theirs, '1000 1000', 120),
			'bigserial: every row ' . $s->name . ' wrote is overwritten by the other server\'s row of the same id');
		ok(logs_sqlstate($s, 'LOG', '23000', $offsets, 60), '... and pglogical logs a conflict (LOG 23000)');
	}
	isnt(contents($a, 'serial.orders_bigserial'), contents($b, 'serial.orders_bigserial'),
		'bigserial: the two servers disagree about the rows');
}
# Stop the failing subscriptions before the servers stop.
for my $sub (@serial)
{
	$subscriber->($sub)->safe_psql('postgres',
		$kind eq 'native' ? "DROP SUBSCRIPTION $sub" : "SELECT pglogical.drop_subscription('$sub')");
}

$_->stop for @all, $registry;
done_testing();
