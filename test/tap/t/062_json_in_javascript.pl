# Ids as JavaScript reads them: node's JSON.parse and npm's pg driver (the
# published packages, installed by test/harness/npm-package.sh) on what a
# server sends.
#
# 1. The JavaScript-safe layouts: snowflake ids of the preset javascript
#    (crid.snowflake_layout) and crid ids with crid.timestamp_bits = 40:
#    the first and last id of the first and last second (every node for
#    snowflake: the layout's largest id, 2^53 - 1, among them) and 2,000
#    live ids, with their 53-bit faces and Sqids text. JSON.parse of
#    json_agg and row_to_json, and pg's int8 values parsed as numbers, give
#    every id and face exactly (a safe integer whose decimal is the
#    server's); npm's sqids decodes every text to its face.
# 2. A bigid key (the 63-bit default layout's ids, 2^63 - 1 among them):
#    row_to_json and json_agg, through pg (which JSON.parses json) and
#    through JSON.parse of their text, give every key as the string of its
#    digits. The same ids as bigint lose digits there: the test that the
#    problem is real.
# Without node and npm (the PostgreSQL 17 and 18 roots may lack them) the
# test is skipped, saying why.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

if (system('sh', '-c', 'command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1') != 0)
{
	plan skip_all => 'Node.js (node and npm) is not installed: JSON.parse and npm\'s pg cannot read the ids';
}

# The published packages, in the harness's cache (or this test's folder
# when that cache is not ours to write).
my $npm_package = "$FindBin::RealBin/../../harness/npm-package.sh";
sub npm_dir
{
	my ($name, $version) = @_;
	my ($dir, $err) = run_command([ $npm_package, $name, $version ]);
	if ($dir !~ m{/\Q$name\E$} && !$ENV{CRID_NPM_CACHE})
	{
		local $ENV{CRID_NPM_CACHE} = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir()) . '/npm';
		($dir, $err) = run_command([ $npm_package, $name, $version ]);
	}
	chomp $dir;
	ok($dir =~ m{/\Q$name\E$} && -d $dir, "npm's $name $version is installed") or diag $err;
	return $dir;
}
my $pg_dir = npm_dir('pg', '8.23.1');
my $sqids_dir = npm_dir('sqids', '0.3.0');

my $node = crid_node('json_js', conf => "crid.snowflake_layout = 'javascript'\ncrid.node_id = 127\n"
	  . "crid.timestamp_bits = 40\n");
my $user = $node->safe_psql('postgres', 'SELECT current_user');

$node->safe_psql('postgres', q{
INSERT INTO crid_public_id_keys (key_id, secret, usable_by) VALUES (1, crid_public_id_secret(), current_user::regrole);
-- 1. Ids of the JavaScript-safe layouts, their faces and text.
CREATE TABLE vectors (kind text NOT NULL, id bigint NOT NULL, face bigint, sqid text);
INSERT INTO vectors (kind, id)
SELECT DISTINCT 'snowflake corner', snowflake_pack(a, n, s)
FROM (VALUES (timestamptz '2026-01-01 00:00:00+00'), ('2060-01-10 13:37:03+00')) AS at(a),
     generate_series(0, 127) AS n, (VALUES (0), (65535)) AS seq(s);
INSERT INTO vectors (kind, id) SELECT 'snowflake live', snowflake_next() FROM generate_series(1, 1000);
INSERT INTO vectors (kind, id)
SELECT 'crid corner', crid_pack(timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => t), s)
FROM (VALUES (0), (1073741823)) AS ts(t), (VALUES (0), (8388607)) AS seq(s);
INSERT INTO vectors (kind, id) SELECT 'crid live', crid_next() FROM generate_series(1, 1000);
UPDATE vectors SET face = crid_mask(id, 1, 53), sqid = crid_mask_sqid(id, 1, 53, 'id');
-- 2. Keys of the default 63-bit layout as bigid and as bigint.
CREATE TABLE api_orders (id bigid PRIMARY KEY, total numeric);
INSERT INTO api_orders
SELECT snowflake_pack(now() - i * interval '7 minutes 3 seconds', i % 1024, i % 4096, 'crid'), i
FROM generate_series(1, 1000) i;
INSERT INTO api_orders VALUES (520646333413986304, 0), (9007199254740993, 0), (9223372036854775807, 0), (0, 0);
CREATE TABLE api_orders_bigint AS SELECT id::bigint AS id, total FROM api_orders;
});
is( $node->safe_psql('postgres', q{
SELECT count(*), max(id) = 9007199254740991, max(face) <= 9007199254740991,
       count(DISTINCT face) = count(DISTINCT id) FROM vectors}),
	'2516|t|t|t', '2,516 ids of the two layouts, 2^53 - 1 the largest, with one face below 2^53 each');

my $dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
my $script = "$dir/read_ids.js";
open(my $fh, '>', $script) or die "cannot write $script: $!";
print $fh <<'JS';
// Reads what the server sends as an application would, and prints one JSON
// object of counts: every check is "how many of N were exact".
const [pgDir, sqidsDir, host, port, user] = process.argv.slice(2);
const pg = require(pgDir);
const Sqids = require(sqidsDir).default;
(async () => {
  const out = {};
  const client = new pg.Client({ host, port: Number(port), user, database: 'postgres' });
  await client.connect();
  // The server's decimal text beside each value, to compare with.
  const exact = (n, text) => typeof n === 'number' && Number.isSafeInteger(n) && String(n) === text;

  // 1a. JSON.parse of json_agg's text (the json column read as text).
  let r = await client.query(`SELECT json_agg(json_build_object('id', id, 'face', face, 'sqid', sqid,
                                   'id_text', id::text, 'face_text', face::text))::text AS j FROM vectors`);
  const rows = JSON.parse(r.rows[0].j);
  const sqids = new Sqids();
  out.json_agg = [rows.length, rows.filter(x => exact(x.id, x.id_text) && exact(x.face, x.face_text)).length];
  out.sqids = [rows.length, rows.filter(x => sqids.decode(x.sqid.slice(3))[0] === x.face && x.sqid.startsWith('id_')).length];
  // 1b. row_to_json per row, as pg hands json columns over (JSON.parse'd).
  r = await client.query(`SELECT row_to_json(v) AS j, id::text AS id_text, face::text AS face_text FROM vectors v`);
  out.row_to_json = [r.rows.length, r.rows.filter(x => exact(x.j.id, x.id_text) && exact(x.j.face, x.face_text)).length];
  // 1c. int8 values themselves, parsed as numbers (pg's default is a string).
  pg.types.setTypeParser(20, v => Number(v));
  r = await client.query(`SELECT id, face, id::text AS id_text, face::text AS face_text FROM vectors`);
  out.int8_as_number = [r.rows.length, r.rows.filter(x => exact(x.id, x.id_text) && exact(x.face, x.face_text)).length];
  r = await client.query(`SELECT max(id) AS id, max(id)::text AS id_text FROM vectors`);
  out.largest = [1, exact(r.rows[0].id, r.rows[0].id_text) && r.rows[0].id === Number.MAX_SAFE_INTEGER ? 1 : 0];

  // 2. bigid keys through row_to_json and json_agg: strings of their digits.
  r = await client.query(`SELECT row_to_json(o) AS j, id::text AS id_text FROM api_orders o`);
  out.bigid_row_to_json = [r.rows.length, r.rows.filter(x => typeof x.j.id === 'string' && x.j.id === x.id_text).length];
  r = await client.query(`SELECT json_agg(o ORDER BY id)::text AS j, json_agg(id::text ORDER BY id) AS texts FROM api_orders o`);
  const agg = JSON.parse(r.rows[0].j);
  out.bigid_json_agg = [agg.length, agg.filter((x, i) => typeof x.id === 'string' && x.id === r.rows[0].texts[i]).length];
  // The same ids as bigint: JSON.parse rounds those above 2^53 - 1.
  r = await client.query(`SELECT json_agg(o ORDER BY id)::text AS j, json_agg(id::text ORDER BY id) AS texts FROM api_orders_bigint o`);
  const lossy = JSON.parse(r.rows[0].j);
  out.bigint_json_agg = [lossy.length, lossy.filter((x, i) => String(x.id) === r.rows[0].texts[i]).length];
  await client.end();
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
JS
close $fh;

my ($stdout, $stderr) = run_command([ 'node', $script, $pg_dir, $sqids_dir, $node->host, $node->port, $user ]);
my $got = eval { require JSON::PP; JSON::PP::decode_json($stdout) };
ok($got, 'the node script ran and reported') or diag "stdout: $stdout\nstderr: $stderr";
$got ||= {};
is_deeply($got->{json_agg}, [ 2516, 2516 ], 'JSON.parse of json_agg: every id and face exact');
is_deeply($got->{sqids}, [ 2516, 2516 ], "npm's sqids decodes every 53-bit face's text to the face");
is_deeply($got->{row_to_json}, [ 2516, 2516 ], 'row_to_json through pg: every id and face exact');
is_deeply($got->{int8_as_number}, [ 2516, 2516 ], 'pg with int8 parsed as numbers: every id and face exact');
is_deeply($got->{largest}, [ 1, 1 ], 'the largest id, 2^53 - 1, is Number.MAX_SAFE_INTEGER');
is_deeply($got->{bigid_row_to_json}, [ 1004, 1004 ], 'bigid keys through row_to_json: strings of their digits');
is_deeply($got->{bigid_json_agg}, [ 1004, 1004 ], 'bigid keys through json_agg and JSON.parse: strings of their digits');
my $lossy = $got->{bigint_json_agg} || [ 0, 0 ];
is($lossy->[0], 1004, 'the same keys as bigint through json_agg');
cmp_ok($lossy->[1], '<', 1004, "as bigint, JSON.parse rounds some of them ($lossy->[1] of 1004 exact)");

done_testing();
