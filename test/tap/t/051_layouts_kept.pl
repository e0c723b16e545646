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
# crid_check() names keys that hold ids above what their DEFAULT mints now
# (a pgEdge table continued on crid's default layout) and partitions made
# under another layout than the server's, with the settings that fix them;
# it reads no table the caller may not read and runs no other role's policy.
# Last, pg_dump and pg_restore into a cluster of pgEdge's layout: the record
# comes with the dump, maintenance there refuses and crid_check() reports.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# The problems crid_check() reports, "problem object" lines.
sub problems
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		q{SELECT string_agg(problem || ' ' || object, E'\n' ORDER BY problem, object) FROM crid_check()});
}

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
# A pgEdge table (node 3, its epoch 2023-01-01) continued by crid's default
# layout: its ids decode years ahead, and new ids would sort below them.
$node->safe_psql('postgres', q{
CREATE TABLE continued (id bigint PRIMARY KEY DEFAULT snowflake_next(), v int);
INSERT INTO continued SELECT snowflake_pack(now() - interval '1 hour' * g, 3, 0, 'epoch=2023-01-01,node=10,sequence=12'), g
  FROM generate_series(1, 10) g;
});
like(problems($node), qr/^key_above_now public\.continued\.id$/m, 'crid_check() names a continued scheme on the wrong layout');
unlike(problems($node), qr/^(?:key_above_now|partition_layout) .*(?:events|plain)/m,
	'and not the tables made under the layout of now (json_key_unsafe, about their width, may name them)');

# A role's check reads no table it may not read, and runs no policy of
# another role's: both skipped with a NOTICE.
$node->safe_psql('postgres', q{
CREATE ROLE checker LOGIN;
CREATE TABLE hidden (id bigint PRIMARY KEY DEFAULT snowflake_next());
INSERT INTO hidden SELECT id FROM continued;
CREATE TABLE guarded (id bigint PRIMARY KEY DEFAULT snowflake_next());
INSERT INTO guarded SELECT id FROM continued;
CREATE FUNCTION tattle() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the owner''s policy ran as %', current_user; END $$;
CREATE POLICY p ON guarded USING (tattle());
ALTER TABLE guarded ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON guarded, continued TO checker;
});
my ($ret, $out, $err) = $node->psql('postgres',
	q{SET ROLE checker; SELECT string_agg(problem || ' ' || object, E'\n' ORDER BY object) FROM crid_check_keys()});
is($ret, 0, 'crid_check_keys() runs for a role without rights on every table');
is($out, 'key_above_now public.continued.id', 'and reports what that role may read');
like($err, qr/public\.hidden\.id skipped: checker may not read it/, 'a NOTICE names the table it may not read');
like($err, qr/public\.guarded\.id skipped: its row security policies would run as checker/,
	'and the table whose policies would run as it');
unlike($err, qr/policy ran/, 'no policy ran');
like(problems($node), qr/^key_above_now public\.guarded\.id$/m, 'a superuser\'s check reads them (policies do not apply to it)');
$node->safe_psql('postgres', 'DROP TABLE hidden, guarded, continued');

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

# crid_check() names every partition made under the other layout, with the
# settings of the layout recorded, and the table whose names give it away.
my $problems = problems($node);
like($problems, qr/^partition_layout public\.events_p\d{8}$/m, 'crid_check() names the partitions made under another layout');
like($problems, qr/^partition_layout public\.plain_p\d{8}$/m, 'and those whose names give it away');
like($node->safe_psql('postgres', q{SELECT fix FROM crid_check() WHERE object LIKE 'public.events_p%' LIMIT 1}),
	qr/^ALTER SYSTEM SET crid\.snowflake_epoch = '2026-01-01 00:00:00\+00'; /, 'its fix sets the layout they were made under');

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

# The fix, run as the row gives it: the layout they were made under, then a
# restart. No partition is reported then.
my $fix = $node->safe_psql('postgres', q{SELECT fix FROM crid_check() WHERE object LIKE 'public.events_p%' LIMIT 1});
$fix =~ s/ -- .*$//;
$node->safe_psql('postgres', $_) for grep { /\S/ } split /;/, $fix;
$node->restart;
unlike(problems($node), qr/^partition_layout /m, 'after the fix and a restart, no partition is reported');
is($node->safe_psql('postgres', q{SELECT count(*) FROM crid_partition_misfits('events')}), '0', 'and events fits again');

# The restore the other way round from the issue's: events, dumped from
# this server (the default layout), restored into a database of another
# cluster whose layout is pgEdge's epoch. The records came with the dump:
# maintenance there refuses, naming both layouts, and keeps every row;
# crid_check() there names the partitions and the settings that fit them.
my $other = crid_node('layouts_restored', conf => "crid.node_id = 1\ncrid.snowflake_epoch = '2023-01-01 00:00:00+00'\n");
my $dump = PostgreSQL::Test::Utils::tempdir() . '/events.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-t', 'events*', '-f', $dump ], 'pg_dump of events');
$other->safe_psql('postgres', 'CREATE DATABASE app');
$other->safe_psql('app', 'CREATE EXTENSION crid');
$other->command_ok([ 'pg_restore', '--no-owner', '-d', $other->connstr('app'), $dump ], 'pg_restore into another layout');
($ret, $out, $err) = $other->psql('app',
	q{SELECT * FROM crid_partition_maintain('events', '1 day', '2 days', retention => '30 days')},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  22023: .*made under the layout "snowflake \Q$old_layout\E", not "snowflake \Q$new_layout\E"/,
	'restored into another layout, maintenance refuses, naming both layouts');
is($other->safe_psql('app', 'SELECT count(*) FROM events'), '1000', 'and every restored row is there');
like($other->safe_psql('app', q{SELECT string_agg(problem || ' ' || object, E'\n') FROM crid_check()}),
	qr/^partition_layout public\.events_p\d{8}$/m, 'crid_check() on the restored side names the partitions');
$other->stop;

sub quote_array { return "'{" . join(',', map { qq{"$_"} } @_) . "}'" }

done_testing();
