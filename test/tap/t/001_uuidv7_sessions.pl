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

my $fill = sub {
	my ($who) = @_;
	return "INSERT INTO ids SELECT uuid_generate_v7(), $who, n FROM generate_series(1, 200000) n";
};
run_in_parallel($node, $fill->(1), $fill->(2));

is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT u) FROM ids'),
	'400000|400000', 'two concurrent sessions: 400,000 ids, no duplicate');
is( $node->safe_psql(
		'postgres', q{
	SELECT count(*) FROM (SELECT u, lag(u) OVER (PARTITION BY who ORDER BY n) AS prev FROM ids) s
	WHERE prev >= u}),
	'0',
	'each session saw strictly increasing ids while the other was generating');

my $before = $node->safe_psql('postgres', 'SELECT u FROM ids ORDER BY u DESC LIMIT 1');
$node->restart;
my $after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($after gt $before, 'an id minted after a restart sorts after every id before it');

$node->stop('immediate');
$node->start;
$after = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
ok($after gt $before, 'and after a crash (immediate shutdown) too');

# crid.uuidv7_order = backend: per-backend order, still no duplicate.
$node->safe_psql('postgres', "ALTER SYSTEM SET crid.uuidv7_order = 'backend'");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('crid.uuidv7_order') = 'backend'");
$node->safe_psql('postgres', 'TRUNCATE ids');
run_in_parallel($node, $fill->(1), $fill->(2));
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT u) FROM ids'),
	'400000|400000', 'crid.uuidv7_order = backend: two concurrent sessions, no duplicate');
is( $node->safe_psql(
		'postgres', q{
	SELECT count(*) FROM (SELECT u, lag(u) OVER (PARTITION BY who ORDER BY n) AS prev FROM ids) s
	WHERE prev >= u}),
	'0',
	'crid.uuidv7_order = backend: each backend strictly increasing');

# Without preloading: per-backend monotonic, still no duplicates across sessions.
my $plain = crid_node('uuidv7_not_preloaded', preload => 0);
$plain->safe_psql('postgres', 'CREATE UNLOGGED TABLE ids (u uuid, who int, n int)');
run_in_parallel($plain, $fill->(1), $fill->(2));
is($plain->safe_psql('postgres', 'SELECT count(*), count(DISTINCT u) FROM ids'),
	'400000|400000', 'not preloaded: two concurrent sessions, no duplicate');
is( $plain->safe_psql(
		'postgres', q{
	SELECT count(*) FROM (SELECT u, lag(u) OVER (PARTITION BY who ORDER BY n) AS prev FROM ids) s
	WHERE prev >= u}),
	'0',
	'not preloaded: each backend strictly increasing');

done_testing();
