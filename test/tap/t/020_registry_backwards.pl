# A registry that went backwards (TRUNCATE crid_allocations, DROP and CREATE
# EXTENSION while ids stream, a restart on an older registry) never makes the
# server hand out an id twice: it notices, says so once per event, counts it
# in crid_stats(), and moves on past the seconds the registry refuses. The
# server's clock is frozen (libfaketime), so every block lands in one second
# and a registry that starts that second again at 0 would repeat ids at once;
# after each event the test moves the frozen clock on, since the registry
# takes reservations again only once its clock has passed the seconds lost
# reservations may hold.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

# A frozen wall clock half an hour after now; monotonic clocks (latch
# timeouts) run. advance() moves it on by whole seconds. Half an hour, not a
# few seconds: on PostgreSQL 15 the postmaster restarts the block reserver
# under the fake clock only while that clock is ahead of the real one by the
# worker's restart interval (fake_clock_for_workers), and on a loaded
# machine the real clock caught up with one 5 s ahead before the first
# restart, so the reserver came back a minute later on the real clock and
# its blocks spread over two seconds.
my $frozen = time + 1800;
sub frozen_at
{
	my @t = gmtime($frozen);
	return sprintf("%04d-%02d-%02d %02d:%02d:%02d", $t[5] + 1900, $t[4] + 1, @t[ 3, 2, 1, 0 ]);
}
my $set_clock = fake_clock(frozen_at(), block_reserver => 1);
sub advance
{
	$frozen += $_[0];
	$set_clock->(frozen_at());
}

my $node = crid_node('registry_backwards', conf => "crid.block_size = 1000\ncrid.threshold = 400\n", open => 0);
advance(4);    # past the seconds a new registry table refuses
$node->safe_psql('postgres', 'CREATE TABLE ids (id bigint)');
sub mint
{
	my ($count) = @_;
	$node->safe_psql('postgres', "INSERT INTO ids SELECT crid_next() FROM generate_series(1, $count)");
}
sub distinct
{
	return $node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids');
}
sub regressions
{
	return $node->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE metric = 'registry_regressions'");
}
sub log_count
{
	my ($pattern) = @_;
	my @hits = slurp_file($node->logfile) =~ /$pattern/g;
	return scalar @hits;
}

mint(5000);
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id >> 32) FROM ids'), '1', 'the frozen clock puts every block in one second');

# TRUNCATE: the registry starts that second at 0 again. More ids than the
# ring of published blocks can hold (32 blocks), so new blocks are needed.
$node->safe_psql('postgres', 'TRUNCATE crid_allocations');
# The first writer after it, here this check, notices the table changed and
# refuses every second up to a couple beyond the clock: move the clock on.
$node->safe_psql('postgres', "SELECT FROM crid_registry_check('crid_allocations')");
advance(4);
mint(40000);
is(distinct(), 't', 'after TRUNCATE crid_allocations: no id handed out twice');
cmp_ok(regressions(), '>=', 1, 'crid_stats() counts the registry going backwards');
is(log_count(qr/WARNING:  crid: the registry went backwards/), regressions(), 'one WARNING per event');
like(slurp_file($node->logfile), qr/WARNING:  crid: the registry went backwards, or may have: its table changed/,
	'the truncated table was noticed by its new identity');

# DROP and CREATE EXTENSION while a session streams ids: the stream stops at
# its 200,000th row on an advisory lock the test holds, so the DROP lands
# after the first 199,999 ids and before the rest.
$node->safe_psql('postgres', q{
CREATE FUNCTION stream_gate() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_lock_shared(25);
    RETURN true;
END $$});
my $gate = $node->background_psql('postgres');
$gate->query_safe('SELECT pg_advisory_lock(25)');
# To a file: a pipe nobody reads while the test waits would stall the stream.
my $streamed_file = $node->basedir . '/streamed';
my $stream = psql_start($node->connstr('postgres'), [ '-o', $streamed_file ],
	'COPY (SELECT crid_next() FROM generate_series(1, 400000) g WHERE g <> 200000 OR stream_gate()) TO STDOUT');
ok( $node->poll_query_until(
		'postgres', "SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 25 AND NOT granted"),
	'the stream waits at its gate, half-way');
my $before = regressions();
$node->safe_psql('postgres', 'BEGIN; DROP EXTENSION crid; CREATE EXTENSION crid; COMMIT;');
advance(4);
$gate->query_safe('SELECT pg_advisory_unlock(25)');
$gate->quit;
psql_finish($stream, 'the stream');
my $out = slurp_file($streamed_file);
mint(5000);
$node->safe_psql('postgres', 'CREATE TEMP TABLE streamed (id bigint)');
my @streamed = split /\n/, $out;
is(scalar(@streamed), 400000, 'the stream got every id it asked for');
my $ids = id_tally()->add(@streamed, $node->safe_psql('postgres', 'SELECT id FROM ids'));
is($ids->repeats, 0, 'after DROP and CREATE EXTENSION mid-stream: no id handed out twice');
cmp_ok(regressions(), '>', $before, 'and it was noticed');

# The registry mark makes a restart keep the guarantee: a server restarted on
# an older copy of the registry (here: an empty one, as right after CREATE
# EXTENSION or the restore of an old dump) starts after every second it used.
ok(-f $node->data_dir . '/crid_registry_mark', 'the registry mark is on disk');
$node->safe_psql('postgres', 'CREATE DATABASE older');
$node->safe_psql('older', 'CREATE EXTENSION crid');
$node->append_conf('postgresql.conf', "crid.registry_database = 'older'\n");
my $log_offset = -s $node->logfile;
$node->restart;
advance(4);
mint(5000);
$ids->add($node->safe_psql('postgres', 'SELECT id FROM ids ORDER BY id DESC LIMIT 5000'));
is($ids->repeats, 0, 'restarted on an older registry: no id handed out twice');
is(distinct(), 't', 'and every stored id is distinct');
like(substr(slurp_file($node->logfile), $log_offset), qr/the row of second \d+, where this server reserved sequences up to \d+, is gone/,
	'the missing row of a second it used was noticed after the restart');

done_testing();
