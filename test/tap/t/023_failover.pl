# Failover keeps ids increasing: the high-water mark travels through WAL (a
# custom resource manager), so a promoted standby whose clock is seconds
# behind its old primary's still mints snowflake ids and server-ordered
# UUIDv7 ids above every id the old primary handed out. Without the WAL
# record the standby would start from the mark of its base backup and its own
# clock, 30 s in the past, and mint below.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Each server reads its own clock file through libfaketime: the primary's is
# real, the standby's 30 s behind (within the 60 s borrow window). The new
# primary borrows only while its clock is still behind the old primary's last
# id: 30 s leave room for the catch-up, the stop and the promotion on a
# loaded machine, where 5 s did not always.
my $set_primary_clock = fake_clock('+0');
my $standby_clock = PostgreSQL::Test::Utils::tempdir() . '/standby_clock';
open(my $fh, '>', $standby_clock) or die $!;
print $fh "-30\n";
close $fh;

my $settings = "crid.node_id = 1\ncrid.clock_borrow_ms = 60000\n";
my $primary = crid_node('failover_primary', init => { allows_streaming => 1 }, conf => $settings);
$primary->safe_psql('postgres', 'CREATE TABLE ids (phase text, sf bigint, u uuid)');
$primary->backup('before_minting');

my $standby = PostgreSQL::Test::Cluster->new('failover_standby');
$standby->init_from_backup($primary, 'before_minting', has_streaming => 1);
{
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $standby_clock;
	$standby->start;
}
is($standby->safe_psql('postgres', "SELECT extract(epoch FROM now())::bigint < "
	  . $primary->safe_psql('postgres', "SELECT extract(epoch FROM now())::bigint") . " - 20"),
	't', "the standby's clock is seconds behind the primary's");

# The high-water mark of a server's file, in Unix ms.
sub mark_ms
{
	my ($node) = @_;
	my ($ms) = slurp_file($node->data_dir . '/crid_high_water') =~ /^unix_ms (\d+)$/m;
	return $ms // 'none';
}
sub mark_writes
{
	return $primary->safe_psql('postgres',
		"SELECT sum(value) FROM crid_stats() WHERE metric IN ('high_water_writes', 'high_water_keeper_writes')");
}
# The time of the newest id in `ids`, in Unix ms: the later of the newest
# snowflake id's and the newest UUIDv7's.
sub newest_ms
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{
		SELECT floor(extract(epoch FROM greatest(snowflake_to_timestamptz(max(sf)),
		                                         uuid_v7_to_timestamptz((SELECT u FROM ids ORDER BY u DESC LIMIT 1))))
		             * 1000)::bigint
		FROM ids});
}

# Minting on the primary until the mark has moved ahead twice (it moves a
# lead ahead of the clock as ids reach it), written by a backend or the
# keeper and sent to the standby through WAL.
my $writes_before = mark_writes();
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
do
{
	$primary->safe_psql('postgres',
		"INSERT INTO ids SELECT 'old', snowflake_next(1), uuid_generate_v7() FROM generate_series(1, 20000)");
} while (mark_writes() < $writes_before + 2 && time < $deadline);
cmp_ok(mark_writes(), '>=', $writes_before + 2, 'the primary moved its high-water mark while minting');
$primary->wait_for_catchup($standby, 'replay');

# The primary's mark may move on (its keeper writes ahead of the ids), never back.
my $replayed_mark = mark_ms($standby);
cmp_ok($replayed_mark, '>=', newest_ms($primary), "the standby's mark file covers the primary's newest id");
cmp_ok($replayed_mark, '<=', mark_ms($primary), "... a mark the primary wrote, replayed");
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_next(1)');
like($err, qr/during recovery/, 'the standby does not mint while it replays');

# The old primary goes away; the standby takes over with its clock behind.
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion did not finish';

$standby->safe_psql('postgres',
	"INSERT INTO ids SELECT 'new', snowflake_next(1), uuid_generate_v7() FROM generate_series(1, 20000)");
is($standby->safe_psql('postgres',
		"SELECT (SELECT min(sf) FROM ids WHERE phase = 'new') > (SELECT max(sf) FROM ids WHERE phase = 'old')"),
	't', 'after promotion, every snowflake id is greater than every id of the old primary');
is($standby->safe_psql('postgres',
		"SELECT (SELECT u FROM ids WHERE phase = 'new' ORDER BY u LIMIT 1)
		      > (SELECT u FROM ids WHERE phase = 'old' ORDER BY u DESC LIMIT 1)"),
	't', 'and every server-ordered UUIDv7 too');
is($standby->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT sf) AND count(*) = count(DISTINCT u) FROM ids'),
	't', 'no id twice');
cmp_ok($standby->safe_psql('postgres',
		"SELECT coalesce(sum(value), 0) FROM crid_stats() WHERE family = 'snowflake' AND metric = 'clock_borrows'"),
	'>', 0, 'the new primary borrowed ahead of its clock to stay above the old ids');

# The promoted server's own mark file covers what it took over: a restart
# with its clock still behind keeps the order.
$standby->safe_psql('postgres', "CHECKPOINT");
{
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $standby_clock;
	$standby->restart;
}
$standby->safe_psql('postgres',
	"INSERT INTO ids SELECT 'restarted', snowflake_next(1), uuid_generate_v7() FROM generate_series(1, 1000)");
is($standby->safe_psql('postgres',
		"SELECT (SELECT min(sf) FROM ids WHERE phase = 'restarted') > (SELECT max(sf) FROM ids WHERE phase = 'new')"),
	't', 'and after a restart of the promoted server');

# Replay is also crash recovery: an immediate stop of a primary replays its
# own marks, never lowering the file, and ids continue above.
my $mark_before_crash = mark_ms($standby);
cmp_ok($mark_before_crash, '>=', newest_ms($standby), "the promoted server's mark covers its newest id");
$standby->stop('immediate');
{
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $standby_clock;
	$standby->start;
}
cmp_ok(mark_ms($standby), '>=', $mark_before_crash, 'crash recovery replays crid records without lowering the mark');
$standby->safe_psql('postgres',
	"INSERT INTO ids SELECT 'after_crash', snowflake_next(1), uuid_generate_v7() FROM generate_series(1, 1000)");
is($standby->safe_psql('postgres',
		"SELECT (SELECT min(sf) FROM ids WHERE phase = 'after_crash') > (SELECT max(sf) FROM ids WHERE phase <> 'after_crash')
		    AND (SELECT u FROM ids WHERE phase = 'after_crash' ORDER BY u LIMIT 1)
		      > (SELECT u FROM ids WHERE phase <> 'after_crash' ORDER BY u DESC LIMIT 1)"),
	't', 'and after the crash every id is greater than every id before it');

$standby->stop;
done_testing();
