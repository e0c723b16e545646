# UUIDv7 across sessions and restarts: concurrent sessions never produce a
# duplicate, the server-wide order holds with crid preloaded, ids after a
# restart sort after ids before it, and the same holds per backend without
# preloading.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use Test::More;

my $node = crid_node('uuidv7');
$node->safe_psql('postgres', 'CREATE UNLOGGED TABLE ids (u uuid, who int, n int)');

# Two sessions fill `ids` at once; then no id repeats, and each session saw
# its own ids strictly increasing while the other was generating.
sub two_sessions_check
{
	my ($on, $label) = @_;
	my $fill = sub {
		"INSERT INTO ids SELECT uuid_generate_v7(), $_[0], n FROM generate_series(1, 200000) n";
	};
	$on->safe_psql('postgres', 'TRUNCATE ids');
	run_in_parallel($on, $fill->(1), $fill->(2));
	is($on->safe_psql('postgres', 'SELECT count(*), count(DISTINCT u) FROM ids'),
		'400000|400000', "$label: two concurrent sessions, 400,000 ids, no duplicate");
	is( $on->safe_psql(
			'postgres', q{
		SELECT count(*) FROM (SELECT u, lag(u) OVER (PARTITION BY who ORDER BY n) AS prev FROM ids) s
		WHERE prev >= u}),
		'0',
		"$label: each session strictly increasing");
}

two_sessions_check($node, 'server-wide order');

my $before = $node->safe_psql('postgres', 'SELECT u FROM ids ORDER BY u DESC LIMIT 1');
$node->restart;
my $after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($after gt $before, 'an id minted after a restart sorts after every id before it');

$node->stop('immediate');
$node->start;
$after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($after gt $before, 'and after a crash (immediate shutdown) too');

# crid.uuidv7_order = backend: per-backend order, still no duplicate.
# The two sessions below start after a new session sees the setting, so
# they run with it too; if the reload never takes, the check after it would
# test server-wide order again under this name.
$node->safe_psql('postgres', "ALTER SYSTEM SET crid.uuidv7_order = 'backend'");
$node->reload;
ok($node->poll_query_until('postgres', "SELECT current_setting('crid.uuidv7_order') = 'backend'"),
	'the reload sets crid.uuidv7_order = backend');
two_sessions_check($node, 'crid.uuidv7_order = backend');

# Without preloading: per-backend monotonic, still no duplicates across sessions.
my $plain = crid_node('uuidv7_not_preloaded', preload => 0);
$plain->safe_psql('postgres', 'CREATE UNLOGGED TABLE ids (u uuid, who int, n int)');
two_sessions_check($plain, 'not preloaded');

done_testing();
