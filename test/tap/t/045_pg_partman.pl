# pg_partman 5 keeps day partitions of tables keyed by each of crid's id
# families (docs/pg_partman.md): UUIDv7 through pg_partman's time encoder and
# decoder (uuid_v7_floor, uuid_v7_text_to_timestamptz), snowflake and crid
# ids as id intervals of one day of ids. For each set: rows through the
# key's DEFAULT and ids of past times land in the partition of their UTC day,
# run_maintenance() twice in one transaction (its now() the same) warns of
# nothing and makes nothing the second time, rows in the default partition
# are moved out, retention drops or detaches a partition older than it, and
# queries by decoded time and by *_in name only the partitions they must, at
# plan time for constants, at executor start for now() and parameters.
#
# pg_partman 5 comes from Debian: postgresql-17-partman (5.2, trixie) and
# postgresql-18-partman (5.5, sid) in the roots of test/harness/pg-root.sh.
# PostgreSQL 15 has 4.7 (bookworm), which takes no encoder: the test is
# skipped there, saying so, also under make test; on a later major a missing
# pg_partman 5 is a skip, or, under make test (CRID_REQUIRE_PREREQUISITES), a
# failure.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# UTC, so that days begin where the id sets' partitions do (their epochs are
# UTC midnights); 1023 is the node for ids of past times.
my $node = crid_node('partman', conf => "timezone = 'UTC'\ncrid.node_id = 1\ncrid.backfill_node = 1023\n");
my $major = $node->pg_version->major;
my $partman = $node->safe_psql('postgres',
	q{SELECT coalesce(max(default_version), '') FROM pg_available_extensions WHERE name = 'pg_partman'});
my ($partman_major) = $partman =~ /^(\d+)\./;
if (!defined $partman_major || $partman_major < 5)
{
	my $found = $partman eq '' ? 'no pg_partman' : "pg_partman $partman";
	if ($major < 17)
	{
		plan skip_all => "pg_partman 5 is not packaged for PostgreSQL $major "
		  . "(Debian bookworm has 4.7, which takes no time encoder); $found is installed";
	}
	plan skip_all => "pg_partman 5 is not installed ($found)" unless $ENV{CRID_REQUIRE_PREREQUISITES};
	fail("pg_partman 5 is installed for PostgreSQL $major (make test requires it for this test; $found is)");
	done_testing();
	exit 1;
}
note "PostgreSQL $major, pg_partman $partman";

$node->safe_psql('postgres', q{
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE SCHEMA t;
-- The partitions of a set with the times their bounds stand for, decoded by
-- `decoder` (a function of the bound's text); the default has NULL times.
CREATE FUNCTION t.partitions(parent regclass, decoder text)
    RETURNS TABLE (part regclass, starts timestamptz, ends timestamptz) LANGUAGE plpgsql AS $$
DECLARE
    b text[];
BEGIN
    FOR part, b IN
        SELECT i.inhrelid::regclass,
               regexp_match(pg_get_expr(c.relpartbound, c.oid), $r$FROM \('([^']+)'\) TO \('([^']+)'\)$r$)
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = parent
    LOOP
        starts := NULL;
        ends := NULL;
        IF b IS NOT NULL THEN
            EXECUTE format('SELECT %s($1), %s($2)', decoder, decoder) INTO starts, ends USING b[1], b[2];
        END IF;
        RETURN NEXT;
    END LOOP;
END $$;
-- The partition whose times hold `at`.
CREATE FUNCTION t.partition_of(parent regclass, decoder text, at timestamptz) RETURNS text LANGUAGE sql AS $$
SELECT string_agg(p.part::text, ' ') FROM t.partitions(parent, decoder) p WHERE at >= p.starts AND at < p.ends
$$;
-- Rows not in the partition of their own UTC day (in the default one, or in
-- a partition that is not one day from a midnight).
CREATE FUNCTION t.misplaced(parent regclass, decoder text, id_decoder text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format($q$
        SELECT count(*) FROM %s r LEFT JOIN t.partitions(%L, %L) p ON p.part = r.tableoid
         WHERE p.starts IS DISTINCT FROM date_trunc('day', %s(r.id))
            OR p.ends IS DISTINCT FROM date_trunc('day', %s(r.id)) + interval '1 day'$q$,
        parent, parent, decoder, id_decoder, id_decoder) INTO n;
    RETURN n;
END $$;
});
$node->safe_psql('postgres', sqlstate_of_sql('t'));

# The day of the test, as the server sees it: literals of midnights around
# it, read once. The sets start from these literals and every other
# expectation is read in the transaction it is about, so a test that runs
# across midnight expects what it finds.
my ($d0, $d3, $d2, $d20, $d19) = split /\|/, $node->safe_psql('postgres',
	q{SELECT string_agg((date_trunc('day', now()) + d * interval '1 day')::text, '|' ORDER BY o)
        FROM unnest(ARRAY[0, -3, -2, -20, -19]) WITH ORDINALITY u(d, o)});

# One set of each family: its key column, create_parent's arguments (after
# the table and the column; %1$s today, %2$s three days before), the id of a
# time (and a row number), the decoder of a bound's text where pg_partman
# needs one, the decoder queries use (and an IMMUTABLE form where the family
# has one), a *_in form and when it prunes, and retention as pg_partman
# takes it for the set.
my $layout = $node->safe_psql('postgres', 'SELECT snowflake_layout()');
my @families = (
	{
		name => 'uuid',
		table => 'u_events',
		column => q{uuid NOT NULL DEFAULT uuid_generate_v7() CHECK (crid_uuid_v7_check(id))},
		create => q{p_interval := '1 day', p_time_encoder := 'public.uuid_v7_floor',
                    p_time_decoder := 'public.uuid_v7_text_to_timestamptz',
                    p_start_partition := '%2$s'},
		past_id => sub { "uuid_generate_v7($_[0])" },
		bound => 'public.uuid_v7_text_to_timestamptz',
		decoder => 'uuid_v7_to_timestamptz',
		# The planner replaces uuid_v7_in by its id range (and a filter for
		# other versions), which prunes at plan time.
		in => q{uuid_v7_in(id, %1$s)},
		in_at => 'plan',
		retention => q{'10 days'},
		keep_table => 'true',
	},
	{
		name => 'snowflake',
		table => 's_events',
		column => q{bigint NOT NULL DEFAULT snowflake_next() CHECK (id >= 0)},
		create => q{p_interval := (snowflake_floor(timestamptz '2026-01-02 00:00+00')
                                   - snowflake_floor(timestamptz '2026-01-01 00:00+00'))::text,
                    p_start_partition := snowflake_floor(timestamptz '%1$s')::text},
		past_id => sub { "snowflake_pack($_[0], 1023, $_[1]::integer)" },
		decoder => 'snowflake_to_timestamptz',
		immutable_decoder => "snowflake_to_timestamptz(%s, '$layout')",
		in => "snowflake_in(id, %1\$s, '$layout')",
		in_at => 'plan',
		retention => q{(10 * (snowflake_floor(timestamptz '2026-01-02 00:00+00')
                              - snowflake_floor(timestamptz '2026-01-01 00:00+00')))::text},
		keep_table => 'false',
	},
	{
		name => 'crid',
		table => 'c_events',
		column => q{bigint NOT NULL DEFAULT crid_next() CHECK (id >= 0)},
		create => q{p_interval := (crid_floor(timestamptz '2026-01-02 00:00+00')
                                   - crid_floor(timestamptz '2026-01-01 00:00+00'))::text,
                    p_start_partition := crid_floor(timestamptz '%1$s')::text},
		past_id => sub { "crid_pack($_[0], crid_reserve($_[0], 1))" },
		decoder => 'crid_to_timestamptz',
		in => q{crid_in(id, %1$s)},
		in_at => 'plan',
		retention => q{(10 * (crid_floor(timestamptz '2026-01-02 00:00+00')
                              - crid_floor(timestamptz '2026-01-01 00:00+00')))::text},
		keep_table => 'false',
	});

# The tables a plan reads (not their indexes), in order, and whether
# partitions were pruned at executor start.
sub plan_of
{
	my ($plan) = @_;
	my (%seen, @tables);
	for my $t ($plan =~ /\bon (\w+)/g)
	{
		next if $t =~ /_pkey$/ || $seen{$t}++;
		push @tables, $t;
	}
	return (join(' ', sort @tables), $plan =~ /Subplans Removed: [1-9]/ ? 'executor' : 'plan');
}

for my $f (@families)
{
	my ($name, $table) = @$f{qw(name table)};
	my $parent = "public.$table";
	# The decoder of the text of the set's bounds: the uuid set's own, or the
	# bigint decoder of the number.
	my $bound = $f->{bound};
	if (!$bound)
	{
		$bound = "t.${name}_bound";
		$node->safe_psql('postgres',
			"CREATE FUNCTION $bound(text) RETURNS timestamptz LANGUAGE sql STABLE RETURN public.$f->{decoder}(\$1::bigint)");
	}
	my $misplaced = "SELECT t.misplaced('$parent', '$bound', 'public.$f->{decoder}')";
	my $in_default = "SELECT count(*) FROM ${table}_default";
	# Rows of ids of `hours` after a midnight `at`.
	my $insert_past = sub {
		my ($at, $hours, $n, $note) = @_;
		my $id = $f->{past_id}->("timestamptz '$at' + interval '$hours hours'", 'g');
		return "INSERT INTO $table (id, note) SELECT $id, '$note' FROM generate_series(1, $n) g";
	};

	# The set.
	$node->safe_psql('postgres', "CREATE TABLE $table (id $f->{column}, note text NOT NULL, PRIMARY KEY (id))
                                  PARTITION BY RANGE (id)");
	is($node->safe_psql('postgres', "SELECT partman.create_parent('$parent', 'id', " . sprintf($f->{create}, $d0, $d3) . ')'),
		't', "$name: create_parent makes the set");

	# Rows through the DEFAULT, and ids of a past day: each in its day's
	# partition (the id sets begin today, so the past day's go to the default
	# until its partition is made).
	$node->safe_psql('postgres', "INSERT INTO $table (note) SELECT 'now' FROM generate_series(1, 20)");
	$node->safe_psql('postgres', $insert_past->($d3, 6, 10, 'past'));
	if ($name eq 'uuid')
	{
		is($node->safe_psql('postgres', $misplaced), '0', "$name: rows of now and of a past day are in their partitions");
	}
	else
	{
		is($node->safe_psql('postgres', "$misplaced; $in_default"), "10\n10",
			"$name: rows of now are in their partition, of a day before the set's start in the default");
	}
	# Ids of a day older than every partition: in the default.
	$node->safe_psql('postgres', $insert_past->($d20, 6, 10, 'old'));
	is($node->safe_psql('postgres', "SELECT note, count(*) FROM ${table}_default GROUP BY 1 ORDER BY 1"),
		$name eq 'uuid' ? 'old|10' : "old|10\npast|10", "$name: ids older than the set wait in the default");

	# Out of the default, each row into a partition of its own day.
	if ($name eq 'uuid')
	{
		# partition_data_proc calls partition_data_uuid, which pg_partman
		# 5.2.4 and 5.5.0 lack; partition_data_time decodes uuid sets in 5.5.0
		# but not in 5.2.4, where the rows move as docs/pg_partman.md shows.
		# What the installed version has is read from its catalog.
		my $has_uuid = $node->safe_psql('postgres',
			q{SELECT count(*) FROM pg_proc WHERE proname = 'partition_data_uuid' AND pronamespace = 'partman'::regnamespace});
		is($node->safe_psql('postgres', "SELECT t.sqlstate_of('CALL partman.partition_data_proc(''$parent'')')"),
			$has_uuid ? 'ok' : '42883',
			"$name: partition_data_proc " . ($has_uuid ? 'moves a uuid set' : 'finds no partition_data_uuid'));
		my $decodes = $node->safe_psql('postgres', q{SELECT bool_or(prosrc LIKE '%time_decoder%') FROM pg_proc
                                                      WHERE proname = 'partition_data_time' AND pronamespace = 'partman'::regnamespace});
		if ($decodes eq 't')
		{
			is($node->safe_psql('postgres', "SELECT partman.partition_data_time('$parent')"),
				'10', "$name: partition_data_time moves the default's rows (pg_partman $partman)");
		}
		else
		{
			$node->safe_psql('postgres', qq{
BEGIN;
CREATE TEMP TABLE moving ON COMMIT DROP AS WITH d AS (DELETE FROM ${table}_default RETURNING *) SELECT * FROM d;
SELECT partman.create_partition_time('$parent', array_agg(DISTINCT date_trunc('day', uuid_v7_to_timestamptz(id))))
  FROM moving;
INSERT INTO $table SELECT * FROM moving;
COMMIT;});
			is($node->safe_psql('postgres', "SELECT count(*) FROM ${table}_default"), '0',
				"$name: the default's rows moved by hand (pg_partman $partman: partition_data_time takes no uuid set)");
		}
	}
	else
	{
		$node->safe_psql('postgres', "CALL partman.partition_data_proc('$parent')");
		is($node->safe_psql('postgres', "SELECT count(*) FROM ${table}_default"), '0',
			"$name: partition_data_proc empties the default");
	}
	is($node->safe_psql('postgres', "$misplaced; $in_default"), "0\n0",
		"$name: the default is empty, every row in its day's partition");
	# The past days have partitions now: their ids go straight there.
	$node->safe_psql('postgres', $insert_past->($d3, 7, 5, 'past'));
	$node->safe_psql('postgres', $insert_past->($d20, 7, 5, 'old'));
	is($node->safe_psql('postgres', "$misplaced; $in_default"), "0\n0",
		"$name: ids of past days land in their partitions");

	# Maintenance twice in one transaction: the second finds nothing to do.
	my ($ret, $out, $err) = $node->psql('postgres', qq{
SET client_min_messages = warning;
BEGIN;
SELECT partman.run_maintenance('$parent');
SELECT count(*) FROM pg_inherits WHERE inhparent = '$parent'::regclass;
SELECT partman.run_maintenance('$parent');
SELECT count(*) FROM pg_inherits WHERE inhparent = '$parent'::regclass;
-- Days of partitions after today's.
SELECT max(ends) - date_trunc('day', now()) > interval '4 days' FROM t.partitions('$parent', '$bound');
COMMIT;});
	my (undef, $first, undef, $second, $ahead) = split /\n/, $out;
	is($ret, 0, "$name: run_maintenance succeeds");
	is($err, '', "$name: run_maintenance warns of nothing");
	is($second, $first, "$name: a second run_maintenance makes no partition");
	is($ahead, 't', "$name: partitions are made four days ahead");

	# Plans of queries by time: the partitions of [a, b), no other.
	my $range = sub { "tstzrange($_[0], $_[1])" };
	my @plans = (
		# Constants prune at plan time for every family: crid, preloaded,
		# folds the bounds of the server's layouts, fixed until it stops.
		[ 'decoded time, constants', "$f->{decoder}(id) >= '$d3' AND $f->{decoder}(id) < '$d2'", 'plan', $d3 ],
		[ 'decoded time, today by now()', "$f->{decoder}(id) >= date_trunc('day', now())
                                           AND $f->{decoder}(id) < date_trunc('day', now()) + interval '1 day'", 'executor', 0 ],
		[ 'decoded time, tomorrow by now()', "$f->{decoder}(id) >= date_trunc('day', now()) + interval '1 day'
                                              AND $f->{decoder}(id) < date_trunc('day', now()) + interval '2 days'", 'executor', 1 ],
		[ '*_in, constants', sprintf($f->{in}, $range->("'$d20'", "'$d19'")), $f->{in_at}, $d20 ],
		[ '*_in, now()', sprintf($f->{in}, $range->("date_trunc('day', now()) + interval '1 day'",
			"date_trunc('day', now()) + interval '2 days'")), 'executor', 1 ]);
	if ($f->{immutable_decoder})
	{
		my $d = sprintf($f->{immutable_decoder}, 'id');
		push @plans, [ 'decoded time with its layout, constants', "$d >= '$d3' AND $d < '$d2'", 'plan', $d3 ];
	}
	for my $p (@plans)
	{
		my ($what, $where, $when, $at) = @$p;
		# A day after today by now() (a number), or a literal.
		my $at_sql = $at =~ /^\d+$/ ? "date_trunc('day', now()) + interval '$at days'" : "timestamptz '$at'";
		# One transaction: now() is the same for the expectation and the plan.
		my $out = $node->safe_psql('postgres', qq{
BEGIN;
SELECT t.partition_of('$parent', '$bound', $at_sql);
EXPLAIN (COSTS OFF) SELECT * FROM $table WHERE $where;
COMMIT;});
		my ($want, $plan) = split /\n/, $out, 2;
		my ($read, $pruned_at) = plan_of($plan);
		is("$read at $pruned_at", "$want at $when", "$name: $what: only the day's partition, pruned at $when")
		  or diag($plan);
	}
	# A prepared statement's generic plan: pruned at executor start.
	my $plan = $node->safe_psql('postgres', qq{
SET plan_cache_mode = force_generic_plan;
PREPARE q(timestamptz, timestamptz) AS SELECT * FROM $table WHERE $f->{decoder}(id) >= \$1 AND $f->{decoder}(id) < \$2;
EXPLAIN (COSTS OFF) EXECUTE q('$d20', '$d19');});
	my ($read, $pruned_at) = plan_of($plan);
	is("$read at $pruned_at", $node->safe_psql('postgres', "SELECT t.partition_of('$parent', '$bound', '$d20')") . ' at executor',
		"$name: decoded time, parameters of a generic plan: only the day's partition, pruned at executor start")
	  or diag($plan);

	# Retention of ten days: the partition twenty days old goes (detached and
	# kept, or dropped), with its rows; the one three days old stays.
	my $old = $node->safe_psql('postgres', "SELECT t.partition_of('$parent', '$bound', '$d20')");
	$node->safe_psql('postgres', "UPDATE partman.part_config SET retention = $f->{retention},
                                  retention_keep_table = $f->{keep_table} WHERE parent_table = '$parent'");
	($ret, $out, $err) = $node->psql('postgres', "SET client_min_messages = warning; SELECT partman.run_maintenance('$parent')");
	is("$ret $err", '0 ', "$name: run_maintenance with retention succeeds and warns of nothing");
	is( $node->safe_psql('postgres', qq{
SELECT count(*) FILTER (WHERE note = 'old'), count(*) FILTER (WHERE note = 'past'),
       to_regclass('$old') IS NOT NULL,
       EXISTS (SELECT FROM pg_inherits WHERE inhrelid = to_regclass('$old'))
  FROM $table}),
		'0|15|' . substr($f->{keep_table}, 0, 1) . '|f',
		"$name: retention " . ($f->{keep_table} eq 'true' ? 'detaches' : 'drops') . ' the old partition, keeps the newer');
}

# pg_partman takes no encoder for a bigint column: the id sets are id
# intervals (docs/pg_partman.md).
$node->safe_psql('postgres', 'CREATE TABLE public.e_events (id bigint NOT NULL PRIMARY KEY) PARTITION BY RANGE (id)');
is( $node->safe_psql('postgres', q{SELECT t.sqlstate_of($$SELECT partman.create_parent('public.e_events', 'id', '1000',
          p_time_encoder := 'public.snowflake_floor', p_time_decoder := 'public.snowflake_to_timestamptz')$$)}),
	'P0001', 'pg_partman refuses a time encoder for a bigint control column');

# crid's decoder of text is the uuid one's.
is( $node->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE uuid_v7_text_to_timestamptz(id::text) IS DISTINCT FROM uuid_v7_to_timestamptz(id))
  FROM public.u_events}),
	'0', 'uuid_v7_text_to_timestamptz of the text is uuid_v7_to_timestamptz of the uuid');

$node->stop;
done_testing();
