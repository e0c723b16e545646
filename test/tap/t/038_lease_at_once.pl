# Snowflake node leases minted on at once where that is safe, and only there
# (docs/fleet.md, "Snowflake node ids in a fleet: leases and registered nodes"):
# a fresh server on a fresh
# registry mints its first id long before a lease TTL and a fifth could have
# passed; a node its holder released at a clean stop is minted on at once by
# the next server; after a lease row was deleted, after the lease table was
# truncated, and after its holder was killed with SIGKILL, the next holder's
# first id is not before the wait. Node choice among 2^14 nodes takes a free
# node in a few primary-key probes. The test asserts values the registry and
# the servers give (mint_from, lease_until, the ids' times) and SQLSTATEs,
# never how fast anything ran.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $registry = crid_node('at_once_registry');
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
CREATE ROLE crid_holder LOGIN;
} . fleet_grants('crid_fleet') . fleet_grants('crid_holder'));
sub registry_conf
{
	my ($role, $ttl) = @_;
	return sprintf("crid.registry = 'host=%s port=%d dbname=postgres user=%s'\ncrid.node_lease_ttl = '%s'\n",
		$registry->host, $registry->port, $role, $ttl);
}
sub reg { return $registry->safe_psql('postgres', $_[0]) }

# first_id(seconds): the first snowflake id this server mints, trying until
# it may (refusals with 55000 are skipped), or NULL after `seconds`.
my $first_id = q{
CREATE FUNCTION first_id(seconds float8) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until LOOP
        BEGIN
            RETURN snowflake_next();
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            PERFORM pg_sleep(0.05);
        END;
    END LOOP;
    RETURN NULL;
END $$};
sub leaser
{
	my ($name, $conf) = @_;
	my $server = crid_node($name, conf => $conf . "crid.node_id = 'lease'\n");
	$server->safe_psql('postgres', $first_id);
	return $server;
}
# The SQLSTATE and message of snowflake_next() on `server` now ('' when it
# mints).
sub refusal
{
	my ($server) = @_;
	my ($ret, $out, $err) = $server->psql('postgres', 'SELECT snowflake_next()',
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return $ret == 0 ? '' : $err;
}
# Every id `server` minted on `node` in `seconds`, skipping refusals.
sub mint_for
{
	my ($server, $seconds) = @_;
	return $server->safe_psql('postgres', qq{
DO \$\$ BEGIN CREATE TEMP TABLE minted(id bigint); END \$\$;
DO \$\$
DECLARE until timestamptz := clock_timestamp() + interval '$seconds s';
BEGIN
    WHILE clock_timestamp() < until LOOP
        BEGIN
            INSERT INTO minted SELECT snowflake_next() FROM generate_series(1, 20);
        EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
        END;
        PERFORM pg_sleep(0.005);
    END LOOP;
END \$\$;
SELECT coalesce(min(id), 0) || ' ' || coalesce(max(id), 0) || ' ' || count(*) FROM minted});
}

# --- a fresh server on a fresh registry mints at once ----------------------------
# Leases of 60 s: a node that had to wait would be minted on only 72 s after
# it was taken. 2^14 nodes, every one of them free to lease.
my $layout = "crid.snowflake_node_bits = 14\ncrid.snowflake_sequence_bits = 8\n";
is(reg('SELECT whole FROM crid_node_lease_state'), 't',
	'the registry has seen its new lease table whole since it was made');
my $fresh = leaser('at_once_fresh', registry_conf('crid_fleet', '60s') . $layout);
my $fresh_id = $fresh->safe_psql('postgres', 'SELECT first_id(60)');
isnt($fresh_id, '', 'a fresh server with crid.node_id = lease mints a snowflake id');
my $node = $fresh->safe_psql('postgres', "SELECT (snowflake_parse($fresh_id)).node");
is( $fresh->safe_psql('postgres',
		"SELECT snowflake_to_timestamptz($fresh_id) < pg_postmaster_start_time() + interval '30 s'"),
	't', "... its first id (node $node) is of its first 30 s, long before a TTL and a fifth (72 s)");
is(reg("SELECT mint_from IS NULL FROM crid_node_leases WHERE node = $node"),
	't', '... the registry let it mint at once: the node never had a row (mint_from is NULL)');
is(reg("SELECT count(*) FROM crid_node_lease_ledger WHERE node = $node"), '1', '... and its ledger has the node now');
unlike(slurp_file($fresh->logfile), qr/Its earlier holder cannot be shown to have stopped/, '... nor did it say it waits');

# --- a clean release: the next holder mints at once, above the earlier ids -------
my ($fresh_lo, $fresh_hi, $fresh_n) = split / /, mint_for($fresh, 1);
cmp_ok($fresh_n, '>', 0, 'the first server mints more');
$fresh->stop;
is(reg("SELECT released_at IS NOT NULL AND lease_until <= now() FROM crid_node_leases WHERE node = $node"),
	't', 'a clean stop released its node');
my $next = leaser('at_once_next',
	registry_conf('crid_fleet', '60s') . $layout . "crid.snowflake_nodes = '$node'\n");
my $next_id = $next->safe_psql('postgres', 'SELECT first_id(60)');
is($next->safe_psql('postgres', "SELECT (snowflake_parse($next_id)).node"), $node,
	'another server takes the released node');
is( $next->safe_psql('postgres',
		"SELECT snowflake_to_timestamptz($next_id) < pg_postmaster_start_time() + interval '30 s'"),
	't', '... and mints on it at once, within its first 30 s');
cmp_ok($next_id, '>', $fresh_hi, '... above every id of the earlier holder');
is(reg("SELECT mint_from IS NULL AND released_at IS NULL FROM crid_node_leases WHERE node = $node"),
	't', '... the registry let it mint at once (mint_from is NULL), and the row is held again');
$next->stop;

# --- node choice among 2^14 nodes: a few primary-key probes ----------------------
# In a database of its own: 2,000 of 16,384 nodes held by live servers; each
# take finds a free node among at most 16 random probes, none of them held.
$registry->safe_psql('postgres', 'CREATE DATABASE probes');
$registry->safe_psql('probes', q{
CREATE EXTENSION crid;
INSERT INTO crid_node_leases (node, holder, token, kind, lease_until, renewed_at, high_water_ms)
SELECT n, 'a live server', 'live' || n, 'lease', now() + interval '1 hour', now(), 0
  FROM (SELECT DISTINCT (random() * 16383)::int AS n FROM generate_series(1, 2300) LIMIT 2000) s;
CREATE TABLE took AS
SELECT i, t.* FROM generate_series(1, 200) i,
     LATERAL crid_node_lease_take('{0}', '{16383}', 'taker', 'taker' || i, 0, 60000, 72000) t;
});
is( $registry->safe_psql('probes', q{
SELECT count(*) = 200 AND count(DISTINCT node) = 200 AND max(probed) <= 16 AND bool_and(raise_to IS NULL)
  FROM took t WHERE NOT EXISTS (SELECT FROM crid_node_leases l WHERE l.node = t.node AND l.holder <> 'taker')}),
	't', '200 takes among 2^14 nodes, 2,000 held: 200 different free nodes, at most 16 probes each');
is($registry->safe_psql('probes', 'SELECT sum(probed) < 400 FROM took'),
	't', '... about 1.14 probes a take (fewer than 2 on average)');
is( $registry->safe_psql('probes',
		q{SELECT count(*) FROM crid_node_leases WHERE holder = 'taker' AND mint_from IS NULL}),
	'200', '... each minted on at once: none of them ever had a row');
my ($ret, $out, $err) = $registry->psql('probes',
	q{SELECT crid_node_lease_take('{0}', '{65536}', 'x', 'x', 0, 60000, 72000)}, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/22023/, 'a range past the widest layout is refused: 22023');

# --- a lease row deleted: its next holder waits -------------------------------------
# Leases of 20 s: the wait is 24 s. The earlier holder reaches the registry as
# a role that may not insert lease rows after its row is gone, so that it
# does not take its node back first.
my $holder = leaser('at_once_holder', registry_conf('crid_holder', '20s') . "crid.snowflake_nodes = '8'\n");
isnt($holder->safe_psql('postgres', 'SELECT first_id(60)'), '', 'a holder leases node 8 and mints');
my $deleted_at = reg('BEGIN; REVOKE INSERT ON crid_node_leases FROM crid_holder; DELETE FROM crid_node_leases WHERE node = 8;'
	  . ' SELECT now(); COMMIT');
my $taker = leaser('at_once_taker', registry_conf('crid_fleet', '20s') . "crid.snowflake_nodes = '8'\n");
$registry->poll_query_until('postgres', "SELECT count(*) = 1 FROM crid_node_leases WHERE node = 8")
  or die 'node 8 was not taken';
my $mint_from = reg('SELECT mint_from FROM crid_node_leases WHERE node = 8');
isnt($mint_from, '', 'the row was deleted: its next holder is told to wait (mint_from is set)');
is(reg(qq{SELECT '$mint_from'::timestamptz >= '$deleted_at'::timestamptz + interval '24 s'}), 't',
	'... a TTL and a fifth after it took the node, which it did after the row was deleted');
my $wait = refusal($taker);
if (reg("SELECT now() < '$mint_from'::timestamptz") eq 't')
{
	like($wait, qr/55000/, '... meanwhile snowflake_next() refuses with 55000');
	like($wait, qr/Node 8 is this server's in the registry, but an earlier holder of it may still mint/, '... saying why');
}
my $taker_id = $taker->safe_psql('postgres', 'SELECT first_id(120)');
is($taker->safe_psql('postgres', "SELECT snowflake_to_timestamptz($taker_id) >= '$mint_from'::timestamptz"),
	't', '... its first id is not before the wait');
reg('GRANT INSERT ON crid_node_leases TO crid_holder');

# --- the lease table truncated: its next holder waits ------------------------------
# Now the taker holds node 8; the earlier holder wants it back and may take
# it once the row is gone, which the taker may not (its role loses INSERT).
my ($taker_lo, $taker_hi, $taker_n) = split / /, mint_for($taker, 1);
cmp_ok($taker_n, '>', 0, 'the taker mints on node 8');
my $truncated_at =
  reg('BEGIN; REVOKE INSERT ON crid_node_leases FROM crid_fleet; TRUNCATE crid_node_leases; SELECT now(); COMMIT');
$registry->poll_query_until('postgres', "SELECT count(*) = 1 FROM crid_node_leases WHERE node = 8")
  or die 'node 8 was not taken after the truncation';
$mint_from = reg('SELECT mint_from FROM crid_node_leases WHERE node = 8');
isnt($mint_from, '', 'the table was truncated: the next holder of node 8 is told to wait');
is(reg('SELECT whole OR reason NOT LIKE $$the table was %$$ FROM crid_node_lease_state'), 'f',
	'... the registry saw the table change');
is( reg(qq{SELECT since >= '$truncated_at'::timestamptz AND '$mint_from'::timestamptz >= since + interval '24 s'
             FROM crid_node_lease_state}),
	't', '... and waits a TTL and a fifth from when it saw the change, after the truncation');
$wait = refusal($holder);
like($wait, qr/55000/, '... meanwhile snowflake_next() of the holder refuses with 55000')
  if reg("SELECT now() < '$mint_from'::timestamptz") eq 't';
my $again_id = $holder->safe_psql('postgres', 'SELECT first_id(120)');
is($holder->safe_psql('postgres', "SELECT snowflake_to_timestamptz($again_id) >= '$mint_from'::timestamptz"),
	't', '... its first id is not before the wait');
cmp_ok($again_id, '>', $taker_hi, '... and above every id the taker minted before the truncation');
reg('GRANT INSERT ON crid_node_leases TO crid_fleet');

# --- a holder killed with SIGKILL: its node is taken only once its lease lapsed ---
$holder->kill9;
my $lease_until = reg('SELECT lease_until FROM crid_node_leases WHERE node = 8');
if (reg("SELECT now() < '$lease_until'::timestamptz") eq 't')
{
	$wait = refusal($taker);
	like($wait, qr/55000/, 'the holder was killed: while its lease runs, the taker refuses with 55000');
}
my $after_kill = $taker->safe_psql('postgres', 'SELECT first_id(120)');
isnt($after_kill, '', 'the taker takes node 8 in the end');
is($taker->safe_psql('postgres', "SELECT snowflake_to_timestamptz($after_kill) >= '$lease_until'::timestamptz"),
	't', "... its first id is not before the killed holder's lease lapsed");
cmp_ok($after_kill, '>', $again_id, '... and above the killed holder\'s ids');

$taker->stop;
$registry->stop;
done_testing();
