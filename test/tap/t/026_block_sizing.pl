# Blocks that size themselves: under a sustained high rate of crid_next()
# the block reserver grows its blocks so that it reserves at most
# crid.max_blocks_per_second of them a second (it would need hundreds a
# second of crid.block_size), and once the load stops its blocks come back
# to crid.block_size. Counts and bounds only, no speed: the one clock read
# here turns the bound per second into a bound for the time that passed (a
# slower machine only widens it), and the small crid.block_size makes even a
# slow machine's load a high rate for it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my ($base, $threshold, $per_second) = (100, 50, 4);
my $node = crid_node('block_sizing',
	conf => "crid.block_size = $base\ncrid.threshold = $threshold\ncrid.max_blocks_per_second = $per_second\n");
$node->safe_psql('postgres', 'CREATE TABLE ids (id bigint); CREATE TABLE stop_load ()');

sub stats
{
	my %s = split /[|\n]/, $node->safe_psql('postgres',
		"SELECT metric, value FROM crid_stats() WHERE family = 'crid' AND metric IN
		   ('blocks_reserved', 'ids_served', 'block_size_now', 'block_size_largest', 'reserve_target', 'sync_waits')");
	return \%s;
}
sub stat_now { return stats()->{ $_[0] } }

$node->poll_query_until('postgres',
	"SELECT value = $base FROM crid_stats() WHERE family = 'crid' AND metric = 'block_size_now'")
  or die 'the block reserver did not size its first block';
is(stat_now('block_size_now'), $base, 'an idle server reserves blocks of crid.block_size');

# The load: one session minting as fast as it can until told to stop, and one
# keeping 200,000 of the ids for the uniqueness check.
my $load = psql_start($node->connstr('postgres'), q{
DO $$
BEGIN
    LOOP
        PERFORM count(crid_next()) FROM generate_series(1, 200000);
        EXIT WHEN EXISTS (SELECT FROM stop_load);
    END LOOP;
END $$});
my $kept = psql_start($node->connstr('postgres'),
	map { 'INSERT INTO ids SELECT crid_next() FROM generate_series(1, 20000)' } 1 .. 10);

# Under the load the blocks grow far past the base ...
$node->poll_query_until('postgres',
	"SELECT value >= 64 * $base FROM crid_stats() WHERE family = 'crid' AND metric = 'block_size_now'")
  or die 'the blocks did not grow under the load';
# ... and after a few seconds for the reserve to settle, the worker reserves
# at most crid.max_blocks_per_second blocks a second. The bound for the
# interval: that many a second, one more for the edges of the interval, and
# the four extra blocks of reserve each backend wait may add.
sleep 3;
my $t0 = time;
my $before = stats();
sleep 5;
my $after = stats();
my $seconds = time - $t0;
my $blocks = $after->{blocks_reserved} - $before->{blocks_reserved};
my $served = $after->{ids_served} - $before->{ids_served};
my $waits = $after->{sync_waits} - $before->{sync_waits};
# The bound: that many a second, the edges of the interval, the four extra
# blocks of reserve each backend wait may add, and as many again for the
# few small blocks each change of the load's pace costs before the size
# follows it.
my $bound = 2 * ($per_second * ($seconds + 2) + 4 * $waits);
note("over ${seconds}s: $served ids served, $blocks blocks reserved, $waits waits; bound $bound");
cmp_ok($blocks, '>', 0, 'the worker reserved meanwhile');
cmp_ok($served / $blocks, '>', 16 * $base, '... blocks more than 16 times crid.block_size on average');
cmp_ok($blocks, '<=', $bound, '... and at most crid.max_blocks_per_second a second (with the margins above)');

$node->safe_psql('postgres', 'INSERT INTO stop_load DEFAULT VALUES');
psql_finish($load, 'the load');
psql_finish($kept, 'the session keeping ids');

# Once the load stopped, the blocks come back to crid.block_size, and the
# reserve to crid.threshold.
$node->poll_query_until('postgres',
	"SELECT value = $base FROM crid_stats() WHERE family = 'crid' AND metric = 'block_size_now'")
  or die 'the blocks did not shrink back after the load';
is(stat_now('block_size_now'), $base, 'after the load the next block is of crid.block_size again');
$node->poll_query_until('postgres',
	"SELECT value = $threshold FROM crid_stats() WHERE family = 'crid' AND metric = 'reserve_target'")
  or die 'the reserve did not shrink back after the load';
is(stat_now('reserve_target'), $threshold, '... and the reserve is crid.threshold again');
my $largest = stat_now('block_size_largest');
cmp_ok($largest, '>=', 64 * $base, 'the largest block reserved was a grown one');
cmp_ok($largest, '<=', 2**32 / 64, '... never more than 1/64 of a second');

# Grown and shrunk, no id came twice: the ids kept during the load, and
# after it from the large blocks still in the ring and new small ones.
$node->safe_psql('postgres', 'INSERT INTO ids SELECT crid_next() FROM generate_series(1, 100000)');
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ids'), '300000|300000',
	'300,000 ids minted across the growth and the shrink, all distinct');
done_testing();
