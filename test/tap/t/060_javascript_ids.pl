# A server minting on the snowflake preset javascript (crid.snowflake_layout
# = 'javascript': units of 1 s, time 30 | node 7 | sequence 16, bits=53):
# every id it mints is at most 2^53 - 1, exact as a JavaScript number.
#
# 1. Settings: a layout setting beside the width settings, a sign-bit layout,
#    an unknown one and an epoch in the future stop the start, naming them.
# 2. Leases: a server with crid.node_id = 'lease' leases a node of the
#    layout's 128 from a registry and mints on it.
# 3. One node mints 200,000 ids in one statement: three seconds' worth of
#    its 65,536 a second, so it waits for the next second (exhaustion_waits),
#    and every id is distinct, increasing, at most 2^53 - 1, on its node and
#    in the second it was minted in; nodes outside the layout or kept for
#    backfills are refused with their SQLSTATE.
# 4. High-water mark: after a clean restart and after a crash (immediate
#    stop) ids are greater than every id before.
# 5. Clock policy under a fake clock: a step back within crid.clock_borrow_ms
#    keeps ids increasing; a step back beyond it is refused naming the drift.
# 6. Genes: a layout of 53 bits with 3 gene bits mints every gene in the
#    low bits (snowflake_next(node, gene) and the fill trigger).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $max_safe = '9007199254740991';

# 1. Settings refused at start, each naming what is wrong.
my $bad = PostgreSQL::Test::Cluster->new('js_bad');
$bad->init;
$bad->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\n");
for my $case (
	[ "crid.snowflake_layout = 'javascript'\ncrid.snowflake_node_bits = 8\n",
		qr/crid\.snowflake_layout "javascript" is set, and so is crid\.snowflake_epoch or a crid\.snowflake_\*_bits setting/,
		'a layout beside a width setting' ],
	[ "crid.snowflake_node_bits = 10\ncrid.snowflake_layout = 'discord'\n",
		qr/crid\.snowflake_layout "discord" uses the sign bit/, 'a sign-bit layout' ],
	[ "crid.snowflake_layout = 'ecmascript'\n", qr/unknown snowflake layout "ecmascript"/, 'an unknown layout' ],
	[ "crid.snowflake_layout = 'epoch=2999-01-01,unit=1s,node=7,sequence=16,bits=53'\n",
		qr/its epoch is in the future/, 'an epoch in the future' ])
{
	my ($conf, $says, $what) = @$case;
	$bad->append_conf('postgresql.conf', $conf);
	my $log_offset = -s $bad->logfile;
	ok(!$bad->start(fail_ok => 1), "$what stops the server start");
	like(substr(slurp_file($bad->logfile), $log_offset), $says, 'the log says why');
}

# 2. Leases: a node of the layout leased from a registry.
my $registry = crid_node('js_registry');
$registry->safe_psql('postgres', "CREATE ROLE crid_fleet LOGIN;\n" . fleet_grants('crid_fleet'));
my $leaser = crid_node(
	'js_leaser',
	conf => sprintf(
		"crid.snowflake_layout = 'javascript'\ncrid.node_id = 'lease'\ncrid.snowflake_nodes = '100-127'\n"
		  . "crid.registry = 'host=%s port=%d dbname=postgres user=crid_fleet'\n",
		$registry->host, $registry->port));
ok($leaser->poll_query_until('postgres', q{
SELECT snowflake_next() > 0
}), 'a server on the javascript layout leases a node and mints');
my ($leased_node, $leased_id) = split /\|/, $leaser->safe_psql('postgres', q{
SELECT p.node, id FROM (SELECT snowflake_next() AS id) x, snowflake_parse(id) p});
ok($leased_node >= 100 && $leased_node <= 127, "the leased node ($leased_node) is one of crid.snowflake_nodes");
cmp_ok($leased_id, '<=', $max_safe, 'its id is at most 2^53 - 1');
is( $registry->safe_psql('postgres',
		"SELECT count(*) FROM crid_node_leases WHERE node = $leased_node AND kind = 'lease' AND lease_until > now()"),
	'1', 'the registry holds its lease');
$leaser->stop;

# 3. Minting on one node: distinct, increasing, safe, decodable.
my $js = crid_node('js_server', conf => "crid.snowflake_layout = 'javascript'\ncrid.node_id = 127\n"
	  . "crid.backfill_node = 126\n");
is( $js->safe_psql('postgres', 'SELECT snowflake_layout()'),
	'epoch=2026-01-01,unit=1000ms,time=30,node=7,sequence=16,gene=0,sign=false,order=time,node,sequence,bits=53',
	'snowflake_layout() is the javascript preset');
$js->safe_psql('postgres', q{
CREATE TABLE minted AS
SELECT n, clock_timestamp() AS before, snowflake_next() AS id, clock_timestamp() AS after
FROM generate_series(1, 200000) AS n});
is( $js->safe_psql('postgres', qq{
SELECT count(*), count(DISTINCT id), max(id) <= $max_safe, min(id) > 0,
       bool_and(p.node = 127),
       bool_and(p.ts >= date_trunc('second', before) AND p.ts <= after + interval '1 second')
FROM minted, snowflake_parse(id) p}),
	'200000|200000|t|t|t|t',
	'200,000 ids: distinct, positive, at most 2^53 - 1, on node 127, in the second they were minted in '
	  . '(or at most crid.clock_borrow_ms ahead)');
is( $js->safe_psql('postgres', q{
SELECT bool_and(id > prev) FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM minted) x WHERE prev IS NOT NULL}),
	't', 'in minting order, each id greater than the one before');
cmp_ok(
	$js->safe_psql('postgres',
		"SELECT value FROM crid_stats() WHERE family = 'snowflake' AND node = 127 AND metric = 'exhaustion_waits'"),
	'>=', 1, 'the 65,537th id of a second waited for the next second');
my ($ok, $out, $err) = $js->psql('postgres', 'SELECT snowflake_next(128)', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:\s+22003: snowflake node 128 is out of range/, 'node 128 is outside the layout: 22003');
($ok, $out, $err) = $js->psql('postgres', 'SELECT snowflake_next(126)', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:\s+22023: snowflake node 126 is crid\.backfill_node/, 'the backfill node is refused: 22023');
is( $js->safe_psql('postgres', q{
SELECT snowflake_pack(now() - interval '1 day', 126, 5) = snowflake_pack(now() - interval '1 day', 126, 5, 'javascript')}),
	't', 'snowflake_pack on the server layout is the javascript layout');

# 4. High-water mark: after a restart and after a crash, ids are greater.
my $before = $js->safe_psql('postgres', 'SELECT max(id) FROM minted');
for my $mode ('fast', 'immediate')
{
	my $last = $js->safe_psql('postgres', 'SELECT snowflake_next()');
	$js->stop($mode);
	$js->start;
	my $after = $js->safe_psql('postgres', 'SELECT snowflake_next()');
	cmp_ok($after, '>', $last, "after a $mode stop the next id is greater than the last one before");
	cmp_ok($after, '<=', $max_safe, 'and at most 2^53 - 1');
}

# crid_check() on this layout: a key of its ids is not named (they stay
# below 2^53 for 34 years), one holding an id above 2^53 - 1 is; a table it
# may not read, or with row-level security, is named as unread; crid_next
# keys (crid.timestamp_bits 31 here) pass 2^53 - 1 within a year.
$js->safe_psql('postgres', qq{
CREATE ROLE js_owner LOGIN;
CREATE ROLE js_checker LOGIN;
CREATE TABLE t_safe (id bigint PRIMARY KEY DEFAULT snowflake_next(), v int);
INSERT INTO t_safe (v) SELECT g FROM generate_series(1, 100) g;
CREATE TABLE t_big (id bigint PRIMARY KEY DEFAULT snowflake_next(), v int);
INSERT INTO t_big (v) VALUES (1);
INSERT INTO t_big VALUES (9007199254740993, 2);
CREATE TABLE t_rls (id bigint PRIMARY KEY DEFAULT snowflake_next(), v int);
ALTER TABLE t_rls ENABLE ROW LEVEL SECURITY;
CREATE TABLE t_crid (id bigint PRIMARY KEY DEFAULT crid_next(), v int);
CREATE SCHEMA hidden AUTHORIZATION js_owner;
SET ROLE js_owner;
CREATE TABLE hidden.t_hidden (id bigint PRIMARY KEY DEFAULT public.snowflake_next(), v int);
RESET ROLE;
GRANT SELECT ON t_safe, t_big, t_rls, t_crid TO js_checker;
});
is( $js->safe_psql('postgres', q{
SET ROLE js_checker;
SELECT string_agg(format('%s %s%s', object, problem,
                         CASE WHEN detail ~ 'already passes' THEN ' (already)'
                              WHEN detail ~ 'within a year' THEN ' (within a year)'
                              WHEN detail ~ 'may not read' THEN ' (may not read)'
                              WHEN detail ~ 'row-level security' THEN ' (row-level security)' ELSE '' END),
                  ', ' ORDER BY object)
FROM crid_check_json_keys()}),
	'hidden.t_hidden.id json_key_unread (may not read), public.t_big.id json_key_unsafe (already), '
	  . 'public.t_crid.id json_key_unsafe (within a year), public.t_rls.id json_key_unread (row-level security)',
	'crid_check_json_keys() as an ordinary role on the javascript layout: names the key past 2^53 - 1, the crid '
	  . 'key, and the ones it did not read');
is( $js->safe_psql('postgres', q{
SELECT string_agg(object, ', ' ORDER BY object) FROM crid_check() WHERE problem LIKE 'json_key%'}),
	'public.t_big.id, public.t_crid.id, public.t_rls.id',
	'crid_check() as a superuser: hidden.t_hidden, which it reads, holds safe ids and is not named');
# The planner hook on the server's 53-bit layout: a key kept within it by
# a CHECK constraint is range-scanned; the answer is the one without the hook.
like(
	$js->safe_psql('postgres', q{
CREATE TABLE t_checked (id bigint PRIMARY KEY DEFAULT snowflake_next() CHECK (id BETWEEN 0 AND 9007199254740991));
INSERT INTO t_checked SELECT FROM generate_series(1, 1000);
ANALYZE t_checked;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM t_checked WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour'}),
	qr/Index Cond: \(id >= /, 'a decoded-time predicate on a checked key of the server layout is an index range');
is( $js->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM t_checked WHERE snowflake_to_timestamptz(id) >= now() - interval '1 hour')
       || ' ' || (SELECT count(*) FROM t_checked WHERE id + 0 >= 0 AND snowflake_to_timestamptz(id + 0) >= now() - interval '1 hour')}),
	'1000 1000', 'the same rows as the predicate left as written');
$js->stop;

# 5. The clock policy, under a fake clock.
my $set_clock = fake_clock('+0');
my $clocked = crid_node('js_clock', conf => "crid.snowflake_layout = 'javascript'\ncrid.node_id = 3\n");
my $id0 = $clocked->safe_psql('postgres', 'SELECT snowflake_next()');
$set_clock->('-0.5');
my $back = $clocked->safe_psql('postgres', q{
SELECT min(id) FROM (SELECT snowflake_next() AS id FROM generate_series(1, 1000)) x});
cmp_ok($back, '>', $id0, 'a clock 0.5 s back: ids continue above the last (borrowed)');
$set_clock->('-5');
($ok, $out, $err) = $clocked->psql('postgres', 'SELECT snowflake_next()', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:\s+55000: .*crid\.clock_borrow_ms/s, 'a clock 5 s back is refused naming crid.clock_borrow_ms');
$set_clock->('+0');
ok($clocked->poll_query_until('postgres', "SELECT snowflake_next() > $back"), 'the clock back: minting resumes, above');
$clocked->stop;
delete $ENV{LD_PRELOAD};

# 6. Genes on a 53-bit layout: 16 nodes, 8 genes.
my $genes = crid_node('js_genes', conf =>
	  "crid.snowflake_layout = 'epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53'\ncrid.node_id = 9\n");
is( $genes->safe_psql('postgres', qq{
SELECT count(*), bool_and(id_gene(id, 3) = g), bool_and(p.gene = g AND p.node = 9), max(id) <= $max_safe
FROM generate_series(0, 7) g, LATERAL (SELECT snowflake_next(9, g) AS id) x, snowflake_parse(id) p}),
	"8|t|t|t", 'snowflake_next(node, gene): every gene in the low bits, at most 2^53 - 1');
is( $genes->safe_psql('postgres', qq{
CREATE TABLE accounts (id bigint PRIMARY KEY, tenant int NOT NULL);
CREATE TRIGGER fill BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'snowflake', 'tenant');
INSERT INTO accounts (tenant) SELECT t FROM generate_series(1, 64) t;
SELECT count(*), bool_and(id_gene(id, 3) = gene_of(tenant::bigint, 3)), max(id) <= $max_safe FROM accounts}),
	'64|t|t', 'the fill trigger: the gene of each row in its id, at most 2^53 - 1');
$genes->stop;

done_testing();
