# crid never keeps the server from starting because of history or its own
# files: a changed snowflake layout, a damaged crid_high_water and a damaged
# crid_registry_mark each let the server start, stop only the family that
# depends on them (ERROR 55000 with the ways out), say so once in the log and
# in crid_stats(), and a superuser function restores minting with ids
# greater than before.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

# Restarts follow each other within a second here, and each may resume ids
# up to the mark's lead ahead of the clock: a wide borrow window keeps that
# from refusing ids (the refusal is 002_snowflake_clock.pl's subject).
my $node = crid_node('availability', conf => "crid.node_id = 1\ncrid.clock_borrow_ms = 10000\n");
$node->safe_psql('postgres', q{
CREATE TABLE sf (phase text, id bigint);
CREATE TABLE uu (phase text, id uuid);
CREATE TABLE cr (phase text, id bigint);
CREATE ROLE app LOGIN;
GRANT ALL ON sf, uu, cr TO app;
});
sub mint_all
{
	my ($phase) = @_;
	$node->safe_psql('postgres', qq{
INSERT INTO sf SELECT '$phase', snowflake_next() FROM generate_series(1, 2000);
INSERT INTO uu SELECT '$phase', uuid_generate_v7() FROM generate_series(1, 2000);
INSERT INTO cr SELECT '$phase', crid_next() FROM generate_series(1, 2000);});
}
# Every id of `after` is greater than every id before it.
sub above
{
	my ($table, $after) = @_;
	return $node->safe_psql('postgres',
		"SELECT (SELECT id FROM $table WHERE phase = '$after' ORDER BY id LIMIT 1) > "
		  . "(SELECT id FROM $table WHERE phase <> '$after' ORDER BY id DESC LIMIT 1)");
}
sub stat_of
{
	my ($family, $metric) = @_;
	return $node->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE family = '$family' AND metric = '$metric'");
}
sub fails_with
{
	my ($sql, $pattern, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	isnt($ret, 0, "$name: refused");
	like($err, $pattern, "$name: says why and the way out");
	like($err, qr/ERROR:  55000/, "$name: SQLSTATE 55000");
}
sub count_in_log
{
	my ($offset, $pattern) = @_;
	my @hits = substr(slurp_file($node->logfile), $offset) =~ /$pattern/g;
	return scalar @hits;
}

mint_all('first');

# --- A changed snowflake layout (a narrower sequence field) ---------------------
$node->stop;
$node->append_conf('postgresql.conf', "crid.snowflake_sequence_bits = 10\n");
my $offset = -s $node->logfile;
ok($node->start(fail_ok => 1), 'a changed snowflake layout: the server starts');
is(count_in_log($offset, qr/WARNING:  crid: the snowflake layout changed/), 1, 'with one WARNING at start');
fails_with('SELECT snowflake_next()',
	qr/the snowflake layout changed.*Ids were minted as "[^"]*sequence=12.*this server is set to "[^"]*sequence=10.*crid_accept_layout/s,
	'snowflake_next');
is(stat_of('snowflake', 'layout_changed'), '1', 'crid_stats() shows it');
$node->safe_psql('postgres', q{
INSERT INTO uu SELECT 'layout', uuid_generate_v7() FROM generate_series(1, 2000);
INSERT INTO cr SELECT 'layout', crid_next() FROM generate_series(1, 2000);});
is(above('uu', 'layout'), 't', 'UUIDv7 mints, above every earlier UUIDv7: it does not depend on the layout');
is(above('cr', 'layout'), 't', 'crid mints');
is($node->safe_psql('postgres', 'SELECT count(*) FROM sf'), '2000', 'ordinary SQL works');
my ($ret, $out, $err) = $node->psql('postgres', 'SET ROLE app; SELECT crid_accept_layout()');
like($err, qr/permission denied for function crid_accept_layout/, 'an ordinary role cannot accept it');
($ret, $out, $err) = $node->psql('postgres', 'SELECT crid_accept_layout()');
like($err, qr/ids greater than every old one start only at .* ahead of the clock/,
	'a narrower field would need ids far in the future: refused, saying when');
like($err, qr/force => true/, 'naming the way to accept it anyway');
like($node->safe_psql('postgres', 'SELECT crid_accept_layout(force => true)'), qr/^\d{4}-/, 'forced: accepted');
is(stat_of('snowflake', 'layout_changed'), '0', 'crid_stats() shows it resolved');
is($node->safe_psql('postgres', 'SELECT snowflake_next() > 0'), 't', 'snowflake ids are minted again');

# A wider field after ids of the narrower one: accepted without force, and
# every new id is greater than every id minted before.
$node->safe_psql('postgres', "DELETE FROM sf; INSERT INTO sf SELECT 'narrow', snowflake_next() FROM generate_series(1, 3000)");
$node->stop;
$node->append_conf('postgresql.conf', "crid.snowflake_sequence_bits = 14\n");
$node->start;
fails_with('SELECT snowflake_next()', qr/sequence=10.*sequence=14/s, 'a wider layout before it is accepted');
like($node->safe_psql('postgres', 'SELECT crid_accept_layout()'), qr/^\d{4}-/, 'a wider field is accepted without force');
$node->safe_psql('postgres', "INSERT INTO sf SELECT 'wide', snowflake_next() FROM generate_series(1, 3000)");
is(above('sf', 'wide'), 't', 'every id after the accepted change is greater than every id before');
is($node->safe_psql('postgres', 'SELECT crid_accept_layout() IS NULL'), 't', 'accepting again: nothing to do');
$offset = -s $node->logfile;
$node->restart;
is(count_in_log($offset, qr/WARNING:  crid/), 0, 'after a restart the accepted layout is the layout of the mark');
$node->safe_psql('postgres', "INSERT INTO sf SELECT 'restarted', snowflake_next() FROM generate_series(1, 1000)");
is(above('sf', 'restarted'), 't', 'and ids still grow');

# --- A damaged crid_high_water ----------------------------------------------------
mint_all('before_damage');
$node->stop;
my $mark_file = $node->data_dir . '/crid_high_water';
# The newest id may be ahead of the clock (by the mark's lead after restarts):
# a repair names a time no earlier than the newest id, as a DBA would.
my ($newest_ms) = slurp_file($mark_file) =~ /unix_ms (\d+)/;
append_to_file($mark_file, "garbage\n");
$offset = -s $node->logfile;
ok($node->start(fail_ok => 1), 'a damaged crid_high_water: the server starts');
is(count_in_log($offset, qr/WARNING:  crid: "crid_high_water" is damaged: snowflake ids and server-ordered UUIDv7 ids are refused/), 1, 'with one WARNING');
fails_with('SELECT snowflake_next()', qr/snowflake ids cannot be minted: "crid_high_water" is damaged.*crid_reset_high_water/s,
	'snowflake_next on a damaged mark');
fails_with('SELECT uuid_generate_v7()', qr/UUIDv7 ids cannot be minted in server-wide order.*crid_reset_high_water/s,
	'uuid_generate_v7 on a damaged mark');
is(stat_of('snowflake', 'high_water_damaged') . stat_of('uuidv7', 'high_water_damaged'), '11', 'crid_stats() shows it');
$node->safe_psql('postgres', "INSERT INTO cr SELECT 'damaged', crid_next() FROM generate_series(1, 2000)");
is(above('cr', 'damaged'), 't', 'crid ids are minted meanwhile');
($ret, $out, $err) = $node->psql('postgres', "SELECT crid_reset_high_water(now() - interval '1 hour')");
like($err, qr/is earlier than the clock minus crid\.clock_borrow_ms/, 'a repair with a time in the past is refused');
($ret, $out, $err) = $node->psql('postgres', "SET ROLE app; SELECT crid_reset_high_water(now())");
like($err, qr/permission denied for function crid_reset_high_water/, 'an ordinary role cannot repair');
$node->poll_query_until('postgres', "SELECT clock_timestamp() > to_timestamp($newest_ms / 1000.0)");
$node->safe_psql('postgres', "SELECT crid_reset_high_water(clock_timestamp())");
is(stat_of('snowflake', 'high_water_damaged') . stat_of('uuidv7', 'high_water_damaged'), '00', 'repaired');
mint_all('repaired');
is(above('sf', 'repaired'), 't', 'snowflake ids after the repair are greater than before');
is(above('uu', 'repaired'), 't', 'UUIDv7 ids too');
like(slurp_file($mark_file), qr/^crid_high_water 2\n/, 'the file is whole again');

# crid 0.1.0 wrote the mark as two lines without a checksum: still read.
$node->stop;
my ($ms) = slurp_file($mark_file) =~ /unix_ms (\d+)/;
my ($layout) = slurp_file($mark_file) =~ /snowflake_layout (\S+)/;
open(my $fh, '>', $mark_file) or die;
print $fh "$ms\n$layout\n";
close $fh;
$offset = -s $node->logfile;
$node->start;
is(count_in_log($offset, qr/WARNING:  crid/), 0, "crid 0.1.0's high-water file is read without a warning");
mint_all('from_0_1_file');
is(above('sf', 'from_0_1_file'), 't', 'and ids continue above it');

# --- A damaged crid_registry_mark -----------------------------------------------
$node->stop;
my $registry_file = $node->data_dir . '/crid_registry_mark';
ok(-f $registry_file, 'the registry mark exists');
my ($newest_s) = slurp_file($registry_file) =~ /unix_s (\d+)/;
open($fh, '>', $registry_file) or die;
print $fh "\x00\x01garbage";
close $fh;
$offset = -s $node->logfile;
ok($node->start(fail_ok => 1), 'a damaged crid_registry_mark: the server starts');
is(count_in_log($offset, qr/WARNING:  crid: "crid_registry_mark" is damaged: crid ids are refused/), 1, 'with one WARNING');
fails_with('SELECT crid_next()', qr/crid ids cannot be minted: "crid_registry_mark" is damaged.*crid_reset_high_water/s,
	'crid_next on a damaged registry mark');
fails_with('SELECT crid_next(3, 4)', qr/crid ids cannot be minted: "crid_registry_mark" is damaged.*crid_reset_high_water/s,
	'crid_next(gene, bits) too, at once, on the same path');
is(stat_of('crid', 'registry_mark_damaged'), '1', 'crid_stats() shows it');
is($node->safe_psql('postgres', 'SELECT snowflake_next() > 0 AND uuid_generate_v7() IS NOT NULL'),
	't', 'snowflake and UUIDv7 are minted meanwhile');
$node->poll_query_until('postgres', "SELECT clock_timestamp() > to_timestamp($newest_s + 1)");
$node->safe_psql('postgres', "SELECT crid_reset_high_water(clock_timestamp())");
$node->poll_query_until('postgres', 'SELECT crid_next() > 0') or die 'crid minting did not resume';
$node->safe_psql('postgres', "INSERT INTO cr SELECT 'registry_repaired', crid_next() FROM generate_series(1, 2000)");
is(above('cr', 'registry_repaired'), 't', 'crid ids after the repair are greater than before');
is(stat_of('crid', 'registry_mark_damaged'), '0', 'and crid_stats() shows it repaired');
is(stat_of('crid', 'registry_regressions'), '0', 'a repaired mark is no sign of a registry that went backwards');

# --- crid_reset_high_water on intact marks --------------------------------------
# A time before the clock minus crid.clock_borrow_ms is refused unless
# forced; force => true sets the high-water mark to the time given, even an
# hour back; unforced, a time before an intact mark leaves it where it is (a
# mark only moves forward, and the keeper and the worker may move the marks
# on meanwhile).
sub high_water_ms { my ($ms) = slurp_file($mark_file) =~ /^unix_ms (\d+)$/m; return $ms // 'none' }
sub registry_mark_s { my ($s) = slurp_file($registry_file) =~ /^unix_s (\d+)$/m; return $s // 'none' }
my $hour_ago = $node->safe_psql('postgres', "SELECT date_trunc('second', now() - interval '1 hour')");
my $hour_ago_ms = $node->safe_psql('postgres', "SELECT (extract(epoch FROM timestamptz '$hour_ago') * 1000)::bigint");
($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\nSELECT crid_reset_high_water('$hour_ago')");
like($err, qr/ERROR:  22023: crid_reset_high_water: .* is earlier than the clock minus crid\.clock_borrow_ms \(10000 ms\)/,
	'an intact mark: a time an hour back is refused (22023)');
cmp_ok(high_water_ms(), '>', $hour_ago_ms, '... and the mark stays after it');
$offset = -s $node->logfile;
$node->safe_psql('postgres', "SELECT crid_reset_high_water('$hour_ago', force => true)");
is(high_water_ms(), $hour_ago_ms, 'force => true: the high-water mark is the time given, an hour back');
ok(eval { $node->wait_for_log(qr/LOG:  crid: high-water mark reset to /, $offset); 1 }, '... as the log says');
# An id now moves the mark past it; a time 2 s before that mark is within
# the borrow window, so it is not refused, and not followed either.
$node->safe_psql('postgres', 'SELECT snowflake_next()');
my ($mark_ms, $mark_s) = (high_water_ms(), registry_mark_s());
$node->safe_psql('postgres', "SELECT crid_reset_high_water(to_timestamp(($mark_ms - 2000) / 1000.0))");
cmp_ok(high_water_ms(), '>=', $mark_ms, 'unforced, a time 2 s before the intact high-water mark does not move it back');
cmp_ok(registry_mark_s(), '>=', $mark_s, '... nor the registry mark');
is($node->safe_psql('postgres', 'SELECT snowflake_next() > 0 AND uuid_generate_v7() IS NOT NULL AND crid_next() > 0'),
	't', 'every family mints after the resets');

# --- Repairs refuse what would stop minting, and say what they keep ---------------
# Refused before either mark moves (SQLSTATE 22023), each saying how to force it.
sub refused
{
	my ($sql, $pattern, $name) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
	isnt($ret, 0, "$name: refused");
	like($err, qr/ERROR:  22023: crid_reset_high_water: $pattern.*HINT:  .*force => true/s,
		"$name: says why and how to force it");
}
# (The snowflake layout accepted above ends in 2043, before the crid layout.)
refused("SET timezone = 'UTC'; SELECT crid_reset_high_water(now() + interval '1000 years')",
	qr/\S+ \S+ is past the end of this server's snowflake layout, 2043-06-03 21:56:53\.887\+00/,
	'a time past the layouts');
refused("SELECT crid_reset_high_water(now() + interval '1 hour')",
	qr/\S+ \S+ is \d+ ms ahead of the clock, more than crid\.clock_borrow_ms \(10000 ms\)/,
	'a time beyond the borrow window');
mint_all('after_refusals');
is(above('sf', 'after_refusals') . above('cr', 'after_refusals'), 'tt', 'the refused repairs left minting alone');

# In one transaction now() is one instant: the first call moves both marks
# 5 s ahead (within the 10 s borrow window), the second asks for now() and
# keeps them, saying so.
($ret, $out, $err) = $node->psql('postgres', q{
SET timezone = 'UTC';
BEGIN;
SELECT crid_reset_high_water(now() + interval '5 s');
SELECT crid_reset_high_water(now());
SELECT date_trunc('milliseconds', now() + interval '5 s'), date_trunc('second', now() + interval '5 s');
COMMIT;});
is($ret, 0, 'a repair that keeps a later mark succeeds');
my ($kept_ms, $kept_s) = split /\|/, (split /\n/, $out)[-1];
like($err, qr/NOTICE:  crid_reset_high_water: the high-water mark stays at \Q$kept_ms\E, later than /,
	'it names the high-water mark it kept');
like($err, qr/NOTICE:  crid_reset_high_water: the registry mark stays at \Q$kept_s\E, later than the second of /,
	'and the registry mark');
# The time asked for in the marks' unit, printed first from the same
# transaction's now(), so that it is there even when the repair fails.
($ret, $out, $err) = $node->psql('postgres', q{
BEGIN;
SELECT floor(extract(epoch FROM now() + interval '6 s') * 1000)::bigint;
SELECT crid_reset_high_water(now() + interval '6 s');
COMMIT;});
is($ret, 0, 'a repair that moves both marks forward succeeds');
my ($asked_ms) = split /\n/, $out;
unlike($err, qr/NOTICE/, '... and says nothing more');
cmp_ok(high_water_ms(), '>=', $asked_ms, '... the high-water mark is at the time asked for or later');
cmp_ok(registry_mark_s(), '>=', int($asked_ms / 1000), '... and the registry mark at its second or later');
mint_all('after_kept');
is(above('sf', 'after_kept') . above('cr', 'after_kept'), 'tt', 'ids still grow');

done_testing();
