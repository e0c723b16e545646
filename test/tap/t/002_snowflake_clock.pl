# The snowflake clock policy against a server whose clock really moves
# (libfaketime): back within crid.clock_wait_ms waits, within crid.clock_borrow_ms
# borrows, beyond it refuses naming the drift; then restarts and crashes with
# the clock behind never give an id smaller than one handed out before.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

# The server (and every backend) reads its clock through libfaketime, which
# applies the offset in a file on every read.
my $set_clock_offset = fake_clock('+0');
sub set_clock_offset { $set_clock_offset->(@_) }

my $node = crid_node('snowflake_clock', conf => "crid.clock_wait_ms = 5\ncrid.clock_borrow_ms = 1000\nrestart_after_crash = on\n");
$node->safe_psql('postgres', 'CREATE TABLE ids (phase text, id bigint)');

sub mint
{
	my ($phase, $count) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids SELECT '$phase', snowflake_next(1) FROM generate_series(1, $count)");
}
sub all_increasing
{
	my ($before, $after) = @_;
	return $node->safe_psql(
		'postgres', qq{
		SELECT (SELECT min(id) FROM ids WHERE phase = '$after') > (SELECT max(id) FROM ids WHERE phase = '$before')});
}
sub counter
{
	my ($metric) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(sum(value), 0) FROM crid_stats() WHERE family = 'snowflake' AND node = 1 AND metric = '$metric'");
}

mint('start', 20000);

# A setting by reload (ALTER SYSTEM, or RESET back to the file's $value),
# seen by new sessions before the test goes on.
sub set_setting
{
	my ($name, $value, $reset) = @_;
	my $alter = $reset ? "ALTER SYSTEM RESET $name" : "ALTER SYSTEM SET $name = $value";
	$node->safe_psql('postgres', "$alter; SELECT pg_reload_conf()");
	$node->poll_query_until('postgres', "SELECT setting = '$value' FROM pg_settings WHERE name = '$name'")
	  or die "$name did not become $value";
}

# Back within crid.clock_wait_ms: the generator waits it out. The clock steps
# back while a session mints without pause, so the step lands behind its last
# id (between two sessions the clock would have moved past the last id by
# itself). The step is 500 ms in a 2 s window: on a loaded machine a session
# can be off the CPU for a few ms at the moment of a step and then find the
# clock past its last id, but not for half a second, twenty times. Another
# step follows only if the session minted since the last one without
# waiting: no id is ahead of the clock, so no step puts the clock more than
# 500 ms behind an id, and the generator never borrows.
set_setting('crid.clock_wait_ms', 2000);
$node->safe_psql('postgres', 'CREATE TABLE stop_minting (stop boolean); CREATE TABLE minted (backwards bigint)');
my ($waits_before, $borrows_before) = (counter('clock_waits'), counter('clock_borrows'));
my $minter = psql_start(
	$node->connstr('postgres'), q{
DO $$
DECLARE
    previous bigint := 0;
    id bigint;
    first_id bigint;
    backwards bigint := 0;
BEGIN
    LOOP
        FOR i IN 1 .. 1000 LOOP
            id := snowflake_next(1);
            backwards := backwards + (id <= previous)::int;
            first_id := coalesce(first_id, id);
            previous := id;
        END LOOP;
        EXIT WHEN EXISTS (SELECT FROM stop_minting);
    END LOOP;
    INSERT INTO ids VALUES ('back_step', first_id), ('back_step', previous);
    INSERT INTO minted VALUES (backwards);
END $$});
my $offset_ms = 0;
for my $step (1 .. 20)
{
	my $ids = counter('ids');
	$node->poll_query_until('postgres',
		"SELECT sum(value) > $ids FROM crid_stats() WHERE family = 'snowflake' AND node = 1 AND metric = 'ids'")
	  or die 'the session does not mint';
	last if counter('clock_waits') > $waits_before;
	$offset_ms += 500;
	set_clock_offset(sprintf('-%.3f', $offset_ms / 1000));
	usleep(10_000);
}
$node->safe_psql('postgres', 'INSERT INTO stop_minting VALUES (true)');
psql_finish($minter, 'the minting session');
cmp_ok(counter('clock_waits'), '>', $waits_before,
	"clock stepped back by 500 ms ($offset_ms ms in all), crid.clock_wait_ms 2 s: the generator waited");
is(counter('clock_borrows'), $borrows_before, '... and borrowed no id ahead of the clock');
is($node->safe_psql('postgres', 'SELECT backwards FROM minted'), '0', '... and each id was greater than the one before');
is(all_increasing('start', 'back_step'), 't', '... and than every id before the steps');
set_setting('crid.clock_wait_ms', 5, 'reset');

# Back within crid.clock_borrow_ms: ids continue ahead of the clock. The
# step and the window are wide (30 s back in a 60 s window), so that however
# long the next session takes to start on a loaded machine, the clock is
# still behind the last id when it mints: a step of a few hundred ms could
# be over before the first call.
set_setting('crid.clock_borrow_ms', 60000);
set_clock_offset(sprintf('-%.3f', ($offset_ms + 30000) / 1000));
mint('back_borrow', 20000);
is(all_increasing('back_step', 'back_borrow'), 't', 'clock 30 s back, within the borrow window: every id greater than before');
cmp_ok(counter('clock_borrows'), '>', 0, 'and those ids were borrowed from a logical clock');

# Beyond the window: refuse, naming the drift and the setting. Back by a
# minute against a window of 1 s, for the same reason.
set_setting('crid.clock_borrow_ms', 1000, 'reset');
set_clock_offset('-60');
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(1)');
isnt($ret, 0, 'clock a minute back: snowflake_next refuses');
like($err, qr/clock moved back by \d+ ms/, 'the error names the drift');
like($err, qr/crid\.clock_borrow_ms/, 'and the setting to change');
cmp_ok(counter('clock_refusals'), '>', 0, 'refusals are counted');

# Another node is not affected by node 1's history.
is($node->safe_psql('postgres', 'SELECT snowflake_next(2) > 0'), 't', 'a fresh node mints with the clock behind');

# The clock is fixed: generation resumes, still increasing.
set_clock_offset('+0');
mint('fixed', 2000);
is(all_increasing('back_borrow', 'fixed'), 't', 'clock restored: generation resumes, ids greater');

# Restart with the clock behind by more than the borrow window: refused, not repeated.
my $uuid_before = $node->safe_psql('postgres', 'SELECT max(uuid_generate_v7()::text) FROM generate_series(1, 1000)');
$node->stop('fast');
set_clock_offset('-10');
$node->start;
my $uuid_after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($uuid_after gt $uuid_before, 'UUIDv7 after a restart 10 s behind still sorts after every id before it');
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(1)');
isnt($ret, 0, 'restarted 10 s behind: refused rather than reusing the past');
like($err, qr/clock moved back by \d+ ms/, 'with the drift in the message');

# Restart with the clock a little behind, within the borrow window.
$node->stop('fast');
set_clock_offset('+0');
$node->append_conf('postgresql.conf', "crid.clock_borrow_ms = 3000\n");
$node->start;
mint('warm', 1000);
$node->stop('fast');
set_clock_offset('-0.8');
$node->start;
mint('after_restart_behind', 5000);
is(all_increasing('warm', 'after_restart_behind'), 't', 'restart with the clock 800 ms behind: every id greater');

# A crash: kill -9 of a backend makes the postmaster rebuild shared memory.
set_clock_offset('+0');
mint('before_crash', 5000);
my $victim = $node->background_psql('postgres');
my $pid = $victim->query_safe('SELECT pg_backend_pid()');
my $log_offset = -s $node->logfile;
kill 'KILL', $pid;
eval { $victim->quit };    # its backend is gone
# A poll could be answered before the postmaster noticed the crash: wait for
# the log to show the restart, and its end.
$node->wait_for_log(qr/all server processes terminated; reinitializing.*database system is ready to accept connections/s,
	$log_offset);
set_clock_offset('-0.5');
mint('after_crash', 5000);
is(all_increasing('before_crash', 'after_crash'), 't', 'kill -9 of a backend, clock 500 ms back: every id greater');

# Immediate shutdown (no clean checkpoint), clock behind.
mint('before_immediate', 5000);
$uuid_before = $node->safe_psql('postgres', 'SELECT max(uuid_generate_v7()::text) FROM generate_series(1, 1000)');
$node->stop('immediate');
set_clock_offset('-0.5');
$node->start;
$uuid_after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($uuid_after gt $uuid_before, 'and UUIDv7 after an immediate shutdown with the clock 500 ms back');
mint('after_immediate', 5000);
is(all_increasing('before_immediate', 'after_immediate'), 't', 'immediate shutdown, clock 500 ms back: every id greater');

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'), 't', 'no id was ever handed out twice');

# While snowflake_next() waits out a clock step, pg_stat_activity says so.
$node->append_conf('postgresql.conf', "crid.clock_wait_ms = 60000\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('crid.clock_wait_ms') = '1min'");
set_clock_offset('-20');
my $waiter = $node->background_psql('postgres', on_error_stop => 0);
$waiter->query_until(qr/started/, "\\echo started\nSELECT snowflake_next(1) AS waited;\n");
ok( $node->poll_query_until('postgres',
		"SELECT wait_event_type = 'Extension' FROM pg_stat_activity WHERE query LIKE 'SELECT snowflake_next(1) AS waited%'"),
	'a snowflake_next() waiting out a clock step shows the Extension wait event');
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT snowflake_next(1) AS waited%'");
$waiter->quit;
$node->append_conf('postgresql.conf', "crid.clock_wait_ms = 5\n");
$node->reload;

# A layout change would make new ids comparable with nothing minted before:
# the server starts, but snowflake ids are refused until the old layout is
# back (or the change is accepted: 022_availability.pl).
set_clock_offset('+0');
$node->stop('fast');
$node->append_conf('postgresql.conf', "crid.snowflake_sequence_bits = 11\n");
$node->start;
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(1)');
like($err, qr/the snowflake layout changed/, 'a changed snowflake layout refuses snowflake ids');
like($err, qr/Ids were minted as "[^"]*sequence=12/, 'naming the old and the new layout');
$node->stop('fast');
$node->append_conf('postgresql.conf', "crid.snowflake_sequence_bits = 12\n");
$node->start;
mint('layout_restored', 1000);
is(all_increasing('after_immediate', 'layout_restored'), 't', 'with the layout restored, ids continue above the old ones');
$node->stop;
done_testing();
