# Helpers shared by crid's TAP tests: a node with crid preloaded, and running
# several SQL scripts in parallel sessions.
package CridTest;

use strict;
use warnings;
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More ();
use Exporter 'import';

our @EXPORT = qw(crid_node registry_open fleet_grants psql_start psql_finish run_in_parallel fake_clock go_client_sql id_tally
  sqlstate_of_sql);

# A started node with crid preloaded (unless preload => 0), the extension
# created in "postgres", and any extra settings appended to its config;
# init => { ... } passes options to init (allows_streaming => 1 for standbys).
# It returns once its registry takes reservations (registry_open below),
# unless open => 0.
sub crid_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opt{init} || {} });
	my $preload = exists $opt{preload} ? $opt{preload} : 1;
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'") if $preload;
	# A node whose earlier holder may still mint (its row vanished, the lease
	# table changed) is minted on a lease TTL and a fifth after its lease is
	# taken: 6 s keeps that wait short, and still leaves the worker, which
	# renews every 2 s, two missed renewals on a loaded machine. A test's own
	# conf may set another.
	$node->append_conf('postgresql.conf', "crid.node_lease_ttl = '6s'");
	# Blocks of crid.block_size whatever the rate: the seam tests wait for a
	# block reserved after an event, and blocks sized for their loops would
	# hold millions of ids by then. test/tap/t/026_block_sizing.pl and 004
	# turn the sizing on.
	$node->append_conf('postgresql.conf', "crid.max_blocks_per_second = 0");
	$node->append_conf('postgresql.conf', $opt{conf}) if $opt{conf};
	$node->start(%{ $opt{start} || {} });
	$node->safe_psql('postgres', 'CREATE EXTENSION crid');
	registry_open($node) unless exists $opt{open} && !$opt{open};
	return $node;
}

# Waits until the registry table `table` (crid_allocations) of database `db`
# ("postgres") on `node` takes reservations in the current second: a table
# crid sees for the first time (at CREATE EXTENSION) refuses the seconds
# around that moment for about two seconds, since it may be a re-created
# one that lost reservations made just before.
sub registry_open
{
	my ($node, $db, $table) = @_;
	$db ||= 'postgres';
	$table ||= 'crid_allocations';
	my $schema = $node->safe_psql($db,
		"SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'crid'");
	$node->poll_query_until($db, qq{
SELECT c.refused_from_ts IS NULL
    OR floor((c.now_unix_ms - extract(epoch FROM c.epoch) * 1000) / 1000) > c.floor_ts
  FROM $schema.crid_registry_check('$table') c})
	  or die 'the registry of ' . $node->name . " did not open\n";
	return;
}

# The grants docs/security.md gives a fleet's role on a registry server with
# crid installed, and nothing more: its tables, the three functions of a
# reservation and the acquisition of a leased node.
sub fleet_grants
{
	my ($role) = @_;
	return qq{
GRANT SELECT, INSERT, UPDATE ON crid_allocations, crid_node_leases TO $role;
GRANT EXECUTE ON FUNCTION crid_registry_check(regclass),
    crid_registry_reserve(regclass, bigint, bigint, bigint, bigint),
    crid_registry_upsert(regclass, bigint, bigint, bigint),
    crid_node_lease_take(integer[], integer[], text, text, bigint, bigint, bigint, integer) TO $role;
};
}

# Starts psql in the background on a connection string, each command a -c
# (stopping at the first error), plus any extra psql arguments given as an
# array reference first; psql_finish waits for it and returns its output,
# or dies with its errors, naming `what`. The output goes to a file, so a
# session that prints more than a pipe holds streams on while the test does
# other things. A session that runs past PG_TEST_TIMEOUT_DEFAULT (180 s)
# dies instead of hanging the test.
my $sessions = 0;
sub psql_start
{
	my ($connstr, @commands) = @_;
	my @extra = ref $commands[0] eq 'ARRAY' ? @{ shift @commands } : ();
	my $session = { file => PostgreSQL::Test::Utils::tempdir() . '/psql_' . ++$sessions . '.out', err => '' };
	$session->{run} = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', @extra, '-d', $connstr, map { ('-c', $_) } @commands ],
		'>', $session->{file}, '2>', \$session->{err},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return $session;
}

sub psql_finish
{
	my ($session, $what) = @_;
	$session->{run}->finish or die "$what failed: $session->{err}";
	chomp(my $out = PostgreSQL::Test::Utils::slurp_file($session->{file}));
	return $out;
}

# Every id a test has seen, for the uniqueness checks: ->add(@outputs) takes
# psql outputs (or single ids), one id per line; ->distinct counts the ids,
# ->repeats the times an id came again, which those tests assert to be 0.
sub id_tally { return CridTest::IdTally->new }

# Runs each SQL script in its own psql session, all at once; returns their
# outputs in order and dies if any session failed.
sub run_in_parallel
{
	my ($node, @scripts) = @_;
	my @sessions = map { psql_start($node->connstr('postgres'), $_) } @scripts;
	return map { psql_finish($sessions[$_], "session $_") } 0 .. $#sessions;
}

# The wall clock of every process started from now on (servers, psql) as
# libfaketime makes it: each clock read applies the time spec in a file, an
# offset such as '+0' or '-0.5' (seconds) or a frozen time such as
# '2026-12-01 10:00:00'; monotonic clocks (latch timeouts) stay real. Without
# libfaketime the test is skipped, or, under make test (which installs it and
# sets CRID_REQUIRE_PREREQUISITES), fails: a suite must not vanish from the
# count. CRID_LIBFAKETIME names the library instead of the usual places (the
# harness's own check points it at nothing). Returns a function that writes
# a new spec.
sub fake_clock
{
	my ($spec, %opt) = @_;
	my @places =
	  defined $ENV{CRID_LIBFAKETIME}
	  ? ($ENV{CRID_LIBFAKETIME})
	  : map { "$_/faketime/libfaketime.so.1" } '/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib';
	my ($lib) = grep { -e $_ } @places;
	if (!$lib)
	{
		Test::More::plan(skip_all => 'libfaketime is not installed') unless $ENV{CRID_REQUIRE_PREREQUISITES};
		Test::More::fail('libfaketime is installed (make test requires it for this test)');
		Test::More::done_testing();
		exit 1;
	}
	# An absolute path: a server changes into its data directory (tempdir()
	# is relative when a test runs outside make installcheck).
	my $file = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir()) . '/clock';
	# A new spec replaces the file in one rename: a process reading it while
	# it is written would find it empty, and libfaketime then gives that read
	# the real time, seconds away from every other process's clock.
	my $set = sub {
		open(my $fh, '>', "$file.new") or die "cannot write $file.new: $!";
		print $fh "$_[0]\n";
		close $fh;
		rename("$file.new", $file) or die "cannot rename $file.new: $!";
	};
	$set->($spec);
	$ENV{LD_PRELOAD} = $lib;
	$ENV{FAKETIME_TIMESTAMP_FILE} = $file;
	$ENV{FAKETIME_NO_CACHE} = '1';
	$ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	fake_clock_for_workers() if $opt{block_reserver};
	return $set;
}

# PostgreSQL 15's postmaster starts background workers (and the WAL writer,
# the autovacuum launcher) from its signal handlers, while it waits in
# select(), which libfaketime wraps: a process forked there inherits
# libfaketime in the middle of a call and reads the real clock ever after,
# while client backends see the fake one. So with fake_clock(spec,
# block_reserver => 1) every start, restart and promotion of a server is
# followed by a restart of crid's block reserver, which the postmaster then
# starts from its main loop, under the fake clock. (Only for clocks ahead of
# the real one: the postmaster times the restart with both clocks, and one
# behind would delay it by the difference. The high-water keeper, which
# shows in no view, keeps the real clock; it only moves the mark ahead of
# ids, and a backend whose id catches up with the mark moves it itself.)
# From 16 on the postmaster starts every process from its main loop, so the
# workers follow the fake clock from the start and none is restarted (on 17
# the postmaster did not start a terminated reserver again within the
# poll's timeout under a fake clock).
my $workers_follow_the_fake_clock = 0;
sub fake_clock_for_workers
{
	return if $workers_follow_the_fake_clock++;
	no warnings 'redefine';
	for my $method (qw(start restart promote))
	{
		my $original = PostgreSQL::Test::Cluster->can($method);
		no strict 'refs';
		*{"PostgreSQL::Test::Cluster::$method"} = sub {
			my $node = $_[0];
			my @result = wantarray ? $original->(@_) : scalar $original->(@_);
			restart_block_reserver($node) if $node->{_pid};
			return wantarray ? @result : $result[0];
		};
	}
	return;
}

# Restarts crid's block reserver on `node` once it runs (the server out of
# recovery, crid preloaded) and waits for the new one.
sub restart_block_reserver
{
	my ($node) = @_;
	my $reserver = q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver'};
	return if $node->pg_version >= 16;
	return if $node->safe_psql('postgres', 'SELECT pg_is_in_recovery()') eq 't';
	return unless $node->safe_psql('postgres', 'SHOW shared_preload_libraries') =~ /\bcrid\b/;
	$node->poll_query_until('postgres', "SELECT count(*) = 1 FROM ($reserver) r")
	  or die 'crid\'s block reserver did not start on ' . $node->name . "\n";
	my $old = $node->safe_psql('postgres', $reserver);
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($old)");
	$node->poll_query_until('postgres', "SELECT count(*) = 1 AND bool_and(pid <> $old) FROM ($reserver) r")
	  or die 'crid\'s block reserver did not come back on ' . $node->name . "\n";
	return;
}

# What a Go service using the crid library's Postgres registry does, in
# plain SQL for psql: `rounds` reservations of 100 sequences in `table` with
# the library's upsert (registry/postgres/postgres.go), each committed, and
# the ids of each block inserted into `into` (its column id). An upsert the
# registry refuses (its trigger crid_registry_guard: a second it may have
# lost reservations of, or ahead of its clock) is an error the service
# retries after a pause (pg_sleep), as its caller would.
sub go_client_sql
{
	my (%opt) = @_;
	my ($table, $into, $rounds) = @opt{qw(table into rounds)};
	# The library's sequence bits (WithSequenceBits; 32 by default).
	my $shift = $opt{sequence_bits} // 32;
	return qq{
DO \$\$
DECLARE
    second bigint;
    next bigint;
    tries integer;
BEGIN
    FOR i IN 1 .. $rounds LOOP
        tries := 0;
        LOOP
            BEGIN
                second := floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00'));
                INSERT INTO $table AS t (ts, next_seq) VALUES (second, 100)
                    ON CONFLICT (ts) DO UPDATE SET next_seq = t.next_seq + 100
                    RETURNING t.next_seq INTO next;
                EXIT;
            EXCEPTION WHEN object_not_in_prerequisite_state THEN
                tries := tries + 1;
                IF tries > 600 THEN
                    RAISE;
                END IF;
                PERFORM pg_sleep(0.05);
            END;
        END LOOP;
        INSERT INTO $into (id) SELECT (second << $shift) | (next - 100 + g) FROM generate_series(0, 99) g;
        COMMIT;
    END LOOP;
END \$\$};
}

# SQL that makes SCHEMA.sqlstate_of(statement text): runs the statement and
# returns 'ok', or the SQLSTATE it failed with (a test asserts many refusals
# in one query with it).
sub sqlstate_of_sql
{
	my ($schema) = @_;
	return qq{
CREATE FUNCTION $schema.sqlstate_of(statement text) RETURNS text LANGUAGE plpgsql AS \$\$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END \$\$;
};
}

package CridTest::IdTally;

sub new { return bless { seen => {}, repeats => 0 }, shift }

sub add
{
	my ($self, @outputs) = @_;
	for my $id (grep { length } map { split /\n/ } @outputs)
	{
		$self->{repeats}++ if $self->{seen}{$id}++;
	}
	return $self;
}

sub distinct { return scalar keys %{ $_[0]{seen} } }
sub repeats  { return $_[0]{repeats} }

1;
