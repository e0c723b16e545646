# Ids users already have are never dropped, detached or moved by another
# layout than the one their partitions were made under. A table partitioned
# by day under the default snowflake layout (epoch 2026-01-01) keeps its
# rows when the server's layout changes to pgEdge's epoch (2023-01-01, the
# same widths: every bound is still the first id of some day, three years
# earlier): crid_partition_maintain with a retention, _retire, _move_default
# and _create refuse it with ERROR 22023 naming both layouts, and change
# nothing; the same holds when the partitions carry no record of their
# layout (made by 0.3.0, or their comments replaced), from their names.
# Given the layout they were made under, the functions work as before.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('layouts_kept', conf => "crid.node_id = 1\n");
my $old_layout = $node->safe_psql('postgres', 'SELECT snowflake_layout()');
$node->safe_psql('postgres', q{
CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_next() CHECK (id >= 0), payload int)
    PARTITION BY RANGE (id);
CREATE TABLE events_default PARTITION OF events DEFAULT;
SELECT count(*) FROM crid_partition_maintain('events', '1 day', '2 days');
INSERT INTO events (payload) SELECT g FROM generate_series(1, 1000) g;
-- The same, and then its partitions' records of their layout removed, as
-- crid 0.3.0 made them.
CREATE TABLE plain (id bigint PRIMARY KEY DEFAULT snowflake_next() CHECK (id >= 0), payload int)
    PARTITION BY RANGE (id);
CREATE TABLE plain_default PARTITION OF plain DEFAULT;
SELECT count(*) FROM crid_partition_maintain('plain', '1 day', '2 days');
INSERT INTO plain (payload) SELECT g FROM generate_series(1, 1000) g;
});
$node->safe_psql('postgres', q{
SELECT format('COMMENT ON TABLE %s IS NULL', partition_name) FROM crid_partition_bounds('plain') WHERE NOT is_default
\gexec
});
like($node->safe_psql('postgres',
	q{SELECT obj_description(partition_name, 'pg_class') FROM crid_partition_bounds('events') WHERE NOT is_default LIMIT 1}),
	qr/^crid: snowflake \Q$old_layout\E$/, 'a partition made records the layout it was made under');

# What each table holds, to compare after each refusal.
my $rows_sql = q{SELECT (SELECT count(*) FROM events) || ' ' || (SELECT count(*) FROM plain)};
my $parts_sql = q{SELECT string_agg(partition_name::text, ' ' ORDER BY partition_name::text)
  FROM (SELECT partition_name FROM crid_partition_bounds('events') UNION ALL SELECT partition_name FROM crid_partition_bounds('plain')) b};
my $state_sql = "SELECT ($rows_sql) || ' ' || ($parts_sql)";
my $before = $node->safe_psql('postgres', $state_sql);
my @parts = split / /, $node->safe_psql('postgres', $parts_sql);
note("partitions: @parts");
is(scalar @parts, 8, "two tables of 1000 rows, each in three days' partitions and a default one");

$node->stop;
$node->append_conf('postgresql.conf', "crid.snowflake_epoch = '2023-01-01 00:00:00+00'\n");
$node->start;
my $new_layout = $node->safe_psql('postgres', 'SELECT snowflake_layout()');
isnt($new_layout, $old_layout, "the server's layout is now $new_layout");

for my $call (
	q{SELECT * FROM crid_partition_maintain('events', '1 day', '2 days', retention => '30 days')},
	q{SELECT * FROM crid_partition_retire('events', now() - interval '30 days')},
	q{SELECT * FROM crid_partition_retire('events', now() - interval '30 days', detach => true)},
	q{SELECT * FROM crid_partition_move_default('events', '1 day')},
	q{SELECT * FROM crid_partition_create('events', '1 day', now(), now() + interval '5 days')})
{
	my ($ret, $out, $err) = $node->psql('postgres', $call, on_error_stop => 1,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	isnt($ret, 0, "refused: $call");
	like($err, qr/ERROR:  22023: .*made under the layout "snowflake \Q$old_layout\E", not "snowflake \Q$new_layout\E"/,
		'ERROR 22023 naming both layouts');
	is($node->safe_psql('postgres', $state_sql), $before, 'nothing changed');
}

for my $call (
	q{SELECT * FROM crid_partition_maintain('plain', '1 day', '2 days', retention => '30 days')},
	q{SELECT * FROM crid_partition_retire('plain', now() - interval '30 days')},
	q{SELECT * FROM crid_partition_create('plain', '1 day', now(), now() + interval '5 days')})
{
	my ($ret, $out, $err) = $node->psql('postgres', $call, on_error_stop => 1,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	isnt($ret, 0, "refused without a record of the layout: $call");
	like($err, qr/ERROR:  22023: .*were not made under the layout "snowflake \Q$new_layout\E"/,
		'ERROR 22023 naming the layout of now');
	like($err, qr/its name says its interval begins at \d{8}/, 'and what gave it away');
	is($node->safe_psql('postgres', $state_sql), $before, 'nothing changed');
}

# Given the layout they were made under, the functions read them right:
# today's partitions are no older than 30 days and stay.
for my $t ('events', 'plain')
{
	$node->safe_psql('postgres',
		"SELECT * FROM crid_partition_maintain('$t', '1 day', '2 days', retention => '30 days', layout => '$old_layout')");
}
is($node->safe_psql('postgres', $rows_sql), '1000 1000', 'with layout => the old one, maintenance keeps every row');
is($node->safe_psql('postgres', 'SELECT count(*) FROM unnest($1::regclass[])' =~ s/\$1/quote_array(@parts)/er),
	scalar @parts, 'and every partition');

sub quote_array { return "'{" . join(',', map { qq{"$_"} } @_) . "}'" }

done_testing();
