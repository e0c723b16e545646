# Snowflake settings: a bad layout stops the server start with a message
# naming the setting; genes in the low bits; a server restricted to its own
# nodes; several sessions on one node and on two nodes never collide.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# A layout without 32 time bits is refused at start.
my $bad = PostgreSQL::Test::Cluster->new('bad_layout');
$bad->init;
$bad->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\ncrid.snowflake_node_bits = 16\ncrid.snowflake_sequence_bits = 16\n");
ok(!$bad->start(fail_ok => 1), 'a layout with 31 time bits stops the server start');
like(slurp_file($bad->logfile), qr/crid\.snowflake_node_bits \(16\) \+ crid\.snowflake_sequence_bits \(16\)/,
	'the log names the settings');

# An epoch in the future is refused at start.
$bad->append_conf('postgresql.conf', "crid.snowflake_node_bits = 10\ncrid.snowflake_sequence_bits = 12\ncrid.snowflake_epoch = '2999-01-01 00:00:00+00'\n");
ok(!$bad->start(fail_ok => 1), 'an epoch in the future stops the server start');
like(slurp_file($bad->logfile), qr/crid\.snowflake_epoch "2999-01-01 00:00:00\+00" is in the future/, 'the log names it');

# crid.epoch is checked at start too: not a date, or 'now' (which would give
# every process its own epoch), stops the start naming the setting.
$bad->append_conf('postgresql.conf', "crid.snowflake_epoch = '2026-01-01 00:00:00+00'\ncrid.epoch = 'now'\n");
ok(!$bad->start(fail_ok => 1), "crid.epoch = 'now' stops the server start");
like(slurp_file($bad->logfile), qr/crid\.epoch must be an absolute date and time/, 'the log names crid.epoch');
$bad->append_conf('postgresql.conf', "crid.epoch = '2026-13-45'\n");
ok(!$bad->start(fail_ok => 1), 'a crid.epoch that is no date stops the server start');

# Relative times pass PostgreSQL's timestamp parser but name another time in
# every process and on every day: refused for both epochs, naming the setting.
for my $setting ('crid.epoch', 'crid.snowflake_epoch')
{
	for my $relative ('00:00 yesterday', '04:05:06 tomorrow', 'today')
	{
		$bad->append_conf('postgresql.conf',
			"crid.epoch = '2026-01-01 00:00:00+00'\ncrid.snowflake_epoch = '2026-01-01 00:00:00+00'\n$setting = '$relative'\n");
		my $log_offset = -s $bad->logfile;
		ok(!$bad->start(fail_ok => 1), "$setting = '$relative' stops the server start");
		like(substr(slurp_file($bad->logfile), $log_offset), qr/\Q$setting\E must be an absolute date and time/,
			'naming the setting');
	}
}
# crid.backfill_node must be a node of the layout: 256 fits 10
# node bits, not 8.
$bad->append_conf('postgresql.conf',
	"crid.epoch = '2026-01-01 00:00:00+00'\ncrid.snowflake_epoch = '2026-01-01 00:00:00+00'\n"
	  . "crid.snowflake_node_bits = 8\ncrid.backfill_node = 256\n");
my $log_offset = -s $bad->logfile;
ok(!$bad->start(fail_ok => 1), 'a crid.backfill_node outside the layout stops the server start');
like(substr(slurp_file($bad->logfile), $log_offset),
	qr/crid\.backfill_node 256 is outside the snowflake nodes of this server's layout \(0 to 255\)/,
	'the log names the setting and the limit');
$bad->append_conf('postgresql.conf', "crid.snowflake_node_bits = 10\n");
$bad->append_conf('postgresql.conf', "crid.epoch = '2026-01-01 00:00:00+00'\ncrid.snowflake_epoch = 'Jan 1 2026 UTC'\n");
ok($bad->start(fail_ok => 1), 'an absolute epoch in another spelling is accepted');
is($bad->safe_psql('postgres', 'SHOW crid.backfill_node'), '256', 'and crid.backfill_node 256 with 10 node bits');
$bad->stop;

# Genes, a smaller node field, and nodes restricted to this server's own.
my $node = crid_node('snowflake_settings',
	init => { allows_streaming => 1 },
	conf => "crid.snowflake_node_bits = 8\ncrid.snowflake_gene_bits = 3\ncrid.snowflake_sequence_bits = 12\n"
	  . "crid.snowflake_nodes = '0-3,7'\ncrid.node_id = 2\ncrid.backfill_node = 3\n");
is($node->safe_psql('postgres', "SELECT (snowflake_parse(snowflake_next(1, 5))).gene, snowflake_next(1, 6) & 7"),
	'5|6', 'the gene sits in the low crid.snowflake_gene_bits');
is($node->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_next())).node'), '2', 'snowflake_next() mints for crid.node_id');
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(5)');
like($err, qr/may not mint snowflake ids for node 5/, 'a node outside crid.snowflake_nodes is refused');
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(1, 8)');
like($err, qr/gene 8 is out of range/, 'a gene beyond its bits is refused');
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(300)');
like($err, qr/allows nodes 0 to 255/, 'a node beyond the node bits is refused');
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(3, 1)');
like($err, qr/snowflake node 3 is crid\.backfill_node: live ids are not minted on it/,
	'the node kept for backfills is refused');
($ret, $out, $err) = $node->psql('postgres', 'SET crid.node_id = 3; SELECT snowflake_next()');
like($err, qr/crid\.node_id 3 is crid\.backfill_node/, 'also as crid.node_id');
is($node->safe_psql('postgres', "SELECT (snowflake_parse(snowflake_pack(now(), 3, 0, 1))).node"), '3',
	'snowflake_pack packs on it');

# The restriction follows a reload.
$node->append_conf('postgresql.conf', "crid.snowflake_nodes = '5'\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('crid.snowflake_nodes') = '5'");
is($node->safe_psql('postgres', 'SELECT snowflake_next(5) > 0'), 't', 'after a reload node 5 is allowed');

# Stress: three sessions on one node, 300,000 ids each; then two nodes at once.
$node->safe_psql('postgres', 'CREATE UNLOGGED TABLE ids (id bigint, who int, n int)');
my $fill = sub {
	my ($who, $node_no) = @_;
	return "INSERT INTO ids SELECT snowflake_next($node_no), $who, n FROM generate_series(1, 300000) n";
};
run_in_parallel($node, $fill->(1, 5), $fill->(2, 5), $fill->(3, 5));
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ids'), '900000|900000',
	'three sessions on one node: 900,000 ids, no duplicate');
is( $node->safe_psql(
		'postgres', 'SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY who ORDER BY n) AS prev FROM ids) s WHERE prev >= id'),
	'0', 'each session saw its ids strictly increasing');
$node->append_conf('postgresql.conf', "crid.snowflake_nodes = ''\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('crid.snowflake_nodes') = ''");
$node->safe_psql('postgres', 'TRUNCATE ids');
run_in_parallel($node, $fill->(1, 8), $fill->(2, 9));
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ids'), '600000|600000',
	'two sessions on two nodes: no duplicate');
is($node->safe_psql('postgres', "SELECT sum(value) FROM crid_stats() WHERE metric = 'ids' AND node IN (8, 9)"),
	'600000', 'crid_stats counts every id per node');

# A streaming standby copied from this server has its node id and high-water
# mark: it must not mint (it would repeat the primary's ids).
$node->backup('for_standby');
my $standby = PostgreSQL::Test::Cluster->new('snowflake_standby');
$standby->init_from_backup($node, 'for_standby', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_next(1)');
like($err, qr/cannot be minted during recovery/, 'a standby refuses snowflake_next');
($ret, $out, $err) = $standby->psql('postgres', 'SELECT crid_next()');
like($err, qr/cannot be minted during recovery/, 'and crid_next');
is($standby->safe_psql('postgres', 'SELECT (snowflake_parse(snowflake_floor(now()))).node'), '0', 'decoding works there');
$standby->stop;

done_testing();
