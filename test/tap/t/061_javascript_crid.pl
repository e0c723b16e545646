# crid ids JavaScript reads exactly: crid.timestamp_bits = 40 leaves 23
# sequence bits (8,388,608 ids a second across a fleet), so an id is
# ts << 23 | seq, at most 2^53 - 1 while ts < 2^30: for 34.02 years from
# crid.epoch (docs/javascript.md). The Go library with
# WithFormat(WithTimestampBits(40), WithSequenceBits(23)) writes the same
# numbers from the same registry rows.
#
# 1. A crid server on that layout and a Go service (the library's upsert in
#    plain SQL, ids composed with 23 sequence bits) share one registry:
#    every id distinct, at most 2^53 - 1, decoded by crid_parse to the
#    second it was reserved in.
# 2. The layout's boundaries: the first id, the last id below 2^53 (the
#    last sequence of second 2^30 - 1) and the first id above it (second
#    2^30), decoded back; crid_reserve and crid_pack for a past second.
# 3. Queries by time (crid_in's index range, the planner hook on
#    crid_to_timestamptz) and partitions by time (family crid) on it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $max_safe = '9007199254740991';

my $node = crid_node('js_crid', conf => "crid.timestamp_bits = 40\n");
sub sql { return $node->safe_psql('postgres', $_[0]) }

# 1. A crid server and a Go service on one registry.
sql(q{
CREATE TABLE ids (id bigint NOT NULL, source text NOT NULL DEFAULT 'go');
CREATE TABLE started AS SELECT now() AS at;
INSERT INTO ids (id, source) SELECT crid_next(), 'crid' FROM generate_series(1, 50000)});
sql(go_client_sql(table => 'crid_allocations', into => 'ids', rounds => 20, sequence_bits => 23));
sql(q{INSERT INTO ids (id, source) SELECT crid_next(), 'crid' FROM generate_series(1, 50000)});
is( sql(qq{
SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE source = 'go'), max(id) <= $max_safe, min(id) > 0,
       bool_and(p.ts >= date_trunc('second', (SELECT at FROM started)) - interval '1 second'
                AND p.ts <= clock_timestamp())
FROM ids, crid_parse(id) p}),
	'102000|102000|2000|t|t|t',
	'crid_next and a Go service (23 sequence bits) on one registry: distinct ids, all at most 2^53 - 1, '
	  . 'decoded to the second they were reserved in');

# 2. Boundaries.
is( sql(qq{
SELECT crid_pack('2026-01-01 00:00:00+00', 0),
       crid_pack('2026-01-01 00:00:00.999+00', 8388607),
       crid_pack(timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => 1073741823), 8388607),
       crid_pack(timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => 1073741824), 0)}),
	"0|8388607|$max_safe|9007199254740992",
	'first id of the first second, last of it, last id below 2^53 (second 2^30 - 1), first id above (second 2^30)');
is( sql(qq{SELECT ts, sequence, registry_ts FROM crid_parse($max_safe)}),
	'2060-01-10 13:37:03+00|8388607|1073741823', 'the last id below 2^53 decodes to 2060-01-10 13:37:03 UTC');
my ($ok, $out, $err) = $node->psql('postgres', "SELECT crid_pack('2030-01-01+00', 8388608)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:\s+22003/, 'a sequence beyond 23 bits: 22003');
is( sql(q{
SELECT s, crid_pack('2026-06-01 12:00:00+00', s) = (crid_floor('2026-06-01 12:00:00+00') | s)
FROM (SELECT crid_reserve('2026-06-01 12:00:00.5+00', 1000) AS s) x}),
	'0|t', 'crid_reserve and crid_pack for a past second, on the 23-bit sequence');

# 3. Queries and partitions by time.
sql(q{
CREATE TABLE events (id bigint PRIMARY KEY CHECK (id >= 0), v int);
INSERT INTO events SELECT crid_pack('2026-03-01+00'::timestamptz + i * interval '1 minute', i), i
FROM generate_series(0, 2999) i;
ANALYZE events});
is( sql(q{
SELECT count(*) FROM events WHERE crid_to_timestamptz(id) >= '2026-03-01 10:00+00'
                              AND crid_to_timestamptz(id) < '2026-03-01 11:00+00'}),
	'60', 'an hour of ids by the decoded time');
like(sql(q{
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM events WHERE crid_to_timestamptz(id) >= '2026-03-01 10:00+00'
                                           AND crid_to_timestamptz(id) < '2026-03-01 11:00+00'}),
	qr/Index Cond: \(\(id >= '?43063758028800'?(::bigint)?\) AND \(id <= '?43093957017599'?(::bigint)?\)\)/,
	'the planner hook makes it the id range of the 23-bit layout');
is(sql(q{SELECT count(*) FROM events WHERE crid_in(id, '[2026-03-01 10:00, 2026-03-01 11:00)')}), '60', 'crid_in');
sql(q{
CREATE TABLE readings (id bigint NOT NULL, v int) PARTITION BY RANGE (id);
SELECT crid_partition_create('readings', interval '1 day', '2026-03-01+00', '2026-03-02+00', family => 'crid');
INSERT INTO readings SELECT crid_pack('2026-03-01+00'::timestamptz + i * interval '1 hour', i), i
FROM generate_series(0, 47) i});
is( sql(q{
SELECT string_agg(format('%s:%s:%s', tableoid::regclass, n, ok), ',' ORDER BY tableoid::regclass::text)
FROM (SELECT tableoid, count(*) AS n,
             bool_and(date_trunc('day', crid_to_timestamptz(id)) = to_date(right(tableoid::regclass::text, 8), 'YYYYMMDD')) AS ok
      FROM readings GROUP BY tableoid) x}),
	'readings_p20260301:24:t,readings_p20260302:24:t', 'partitions by day hold the ids of their day');

done_testing();
