# A fleet's registry behind pgbouncer (Debian's, on loopback): three crid
# servers reserve their blocks and lease their snowflake nodes through it,
# two in transaction pooling on a single server connection shared with a Go
# client (the library's upsert in plain SQL), one in session pooling beside
# another Go client. pgbouncer is restarted, then the registry behind it
# fails over to its streaming standby (the primary stopped hard, replication
# asynchronous, pgbouncer pointed at the promoted standby and reloaded).
# Every id is tallied: none is served twice; afterwards every worker
# serves again, each member on a node of its own whose live lease row the
# promoted registry holds. Then, in transaction pooling,
# settings another client leaves on the pooled server connection
# (read-only, a search_path) change nothing the workers run; a standby
# behind pgbouncer takes no reservation, though target_session_attrs =
# read-write let the worker in; and a member in statement pooling leases,
# renews and reserves, since each of its transactions is one round trip.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PgBouncer;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

PgBouncer::binary();
my $ids = id_tally();           # crid ids, the members' and the Go clients'
my $snowflakes = id_tally();    # the members' snowflake ids

# --- the registry, a primary and its streaming standby, behind pgbouncer -----
my $primary = crid_node('pool_primary', preload => 0, init => { allows_streaming => 1 });
$primary->safe_psql('postgres', "CREATE ROLE crid_fleet LOGIN;\n" . fleet_grants('crid_fleet'));
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('pool_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

my $bouncer = PgBouncer->new(users => ['crid_fleet']);
# The registry's database under three aliases, one per pooling mode; in
# transaction mode one server connection serves every client in turn.
sub aim
{
	my ($node) = @_;
	$bouncer->target('ids_tx', $node, pool_mode => 'transaction', pool_size => 1);
	$bouncer->target('ids_session', $node, pool_mode => 'session');
	$bouncer->target('ids_statement', $node, pool_mode => 'statement');
}
aim($primary);
$bouncer->start;
my $tx = $bouncer->connstr('ids_tx', 'crid_fleet');

# --- the members ----------------------------------------------------------------
# Leases of 10 s, renewed every 3.3 s: a pgbouncer restart or a promotion
# takes a second or two.
my $member_conf = "crid.registry_timeout = '3s'\ncrid.block_size = 2000\ncrid.threshold = 1000\n"
  . "crid.allocation_timeout = '60s'\ncrid.node_id = 'lease'\ncrid.snowflake_nodes = '0-3'\n"
  . "crid.node_lease_ttl = '10s'\n";
my %registry_of = (
	pool_tx_a => "$tx target_session_attrs=read-write connect_timeout=2",
	pool_tx_b => "$tx connect_timeout=2",
	pool_session => $bouncer->connstr('ids_session', 'crid_fleet') . ' connect_timeout=2');
my @members = map { crid_node($_, open => 0, conf => "crid.registry = '$registry_of{$_}'\n$member_conf") }
  qw(pool_tx_a pool_tx_b pool_session);
my ($tx_a, $tx_b, $session) = @members;
for my $m (@members)
{
	# Mints until a row in mint_stop says to stop (or for `seconds` at most,
	# short of psql_start's timeout), skipping refusals: "c <crid id>" and
	# "s <snowflake id>" lines.
	$m->safe_psql('postgres', q{
CREATE UNLOGGED TABLE mint_stop ();
CREATE TABLE served (id bigint);
CREATE FUNCTION mint_until_stopped(seconds float8) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until AND NOT EXISTS (SELECT FROM mint_stop) LOOP
        BEGIN
            RETURN NEXT 'c ' || crid_next();
            FOR i IN 1 .. 10 LOOP
                RETURN NEXT 's ' || snowflake_next();
            END LOOP;
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            NULL;  -- a lease that may have lapsed while the registry moved
        END;
        PERFORM pg_sleep(0.0005);
    END LOOP;
END $$});
	ok($m->poll_query_until('postgres', 'SELECT snowflake_next() > 0 AND crid_next() > 0'),
		$m->name . ' mints crid and snowflake ids through pgbouncer');
	like($m->safe_psql('postgres', 'SELECT registry FROM crid_registry_status()'),
		qr/port=@{[ $bouncer->port ]} dbname=ids_/, '... which its worker reaches');
}

# --- Go clients -----------------------------------------------------------------
# A Go service of the crid library: one reservation of 100 sequences per
# connection, with the library's upsert on the unqualified table (the
# role's search_path finds it), retried after an error (a refused second,
# pgbouncer restarting, the registry failing over) for a minute at most.
# It writes "ts|next_seq" for each reservation the registry committed.
my $go_upsert = q{INSERT INTO crid_allocations AS t (ts, next_seq)
VALUES (floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00'))::bigint, 100)
ON CONFLICT (ts) DO UPDATE SET next_seq = t.next_seq + 100 RETURNING t.ts, t.next_seq};
my $go_loop = q{
fails=0
while [ ! -e "$1" ]; do
    if psql -XAtq -v ON_ERROR_STOP=1 -d "$2" -c "$3" >>"$4" 2>>"$5"; then
        fails=0
    else
        fails=$((fails + 1))
        [ $fails -le 600 ] || exit 1
        sleep 0.1
    fi
done};
my $go_clients = 0;
sub go_start
{
	my ($connstr) = @_;
	my $file = PostgreSQL::Test::Utils::tempdir() . '/go_' . ++$go_clients;
	my $run = IPC::Run::start([ 'bash', '-c', $go_loop, 'go', "$file.stop", $connstr, $go_upsert, "$file.out", "$file.err" ],
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return { run => $run, file => $file, connstr => $connstr };
}
sub go_finish
{
	my ($go) = @_;
	append_to_file("$go->{file}.stop", '');
	my $ok = $go->{run}->finish;
	ok($ok, "the Go client on $go->{connstr} kept reserving")
	  or diag(-e "$go->{file}.err" ? slurp_file("$go->{file}.err") : 'no errors written');
	my $blocks = 0;
	for (split /\n/, -e "$go->{file}.out" ? slurp_file("$go->{file}.out") : '')
	{
		my ($ts, $next) = split /\|/;
		$ids->add(map { ($ts << 32) | ($next - 100 + $_) } 0 .. 99);
		$blocks++;
	}
	return $blocks;
}

# --- minting through an event ---------------------------------------------------
# crid_stats() of a member: "crid ids reserved, crid ids served, snowflake ids".
sub minted
{
	my ($m) = @_;
	return $m->safe_psql('postgres', q{
SELECT (SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'ids_reserved') || ' '
    || (SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'ids_served') || ' '
    || (SELECT coalesce(sum(value), 0) FROM crid_stats() WHERE family = 'snowflake' AND metric = 'ids')});
}

sub tally
{
	for (split /\n/, join("\n", @_))
	{
		my ($kind, $id) = split / /;
		($kind eq 'c' ? $ids : $snowflakes)->add($id);
	}
}

# Mints on `members` (and, with go => 1, runs a Go client in each pooling
# mode) while `event` happens, until each member has served crid ids of a
# block reserved after it ended and snowflake ids minted after that (bursts
# of the test's own get through the blocks reserved before sooner); then no
# id of the tally may have come twice.
sub through
{
	my ($what, $event, %opt) = @_;
	my @on = @{ $opt{members} || \@members };
	$_->safe_psql('postgres', 'TRUNCATE mint_stop') for @on;
	# A stream ends well within psql_start's timeout (180 s by default): at
	# most 120 s of minting, and a crid_next() that waits for a block gives
	# up after 10 s (the members' own 60 s could carry a stream past it).
	my @streams = map {
		psql_start($_->connstr('postgres'), "SET crid.allocation_timeout = '10s'", 'SELECT * FROM mint_until_stopped(120)')
	} @on;
	my @go = $opt{go} ? map { go_start($bouncer->connstr($_, 'crid_fleet')) } 'ids_tx', 'ids_session' : ();
	$event->();
	for my $m (@on)
	{
		my $then = minted($m);
		my ($reserved, undef, $snowflake) = split / /, $then;
		my $deadline = time() + 120;
		my ($now, $fresh);
		while (1)
		{
			my ($ret, $out) = $m->psql('postgres', q{SELECT 'c ' || crid_next() FROM generate_series(1, 5000)});
			tally($out) if $ret == 0;
			$now = minted($m);
			my (undef, $served_now, $snowflake_now) = split / /, $now;
			$fresh = $served_now > $reserved && $snowflake_now > $snowflake;
			last if $fresh || time() > $deadline;
			sleep 1;
		}
		ok($fresh, "$what: " . $m->name . ' serves crid ids of a block reserved after it, and mints snowflake ids')
		  or diag("crid ids reserved and served, snowflake ids minted: $then when it ended, $now at last");
	}
	$_->safe_psql('postgres', 'INSERT INTO mint_stop DEFAULT VALUES') for @on;
	tally(psql_finish($streams[$_], $on[$_]->name . " during $what")) for 0 .. $#on;
	cmp_ok(go_finish($_), '>', 0, "$what: the Go client reserved") for @go;
	note("$what: " . $ids->distinct . ' crid and ' . $snowflakes->distinct . ' snowflake ids tallied so far');
	is($ids->repeats + $snowflakes->repeats, 0, "$what: no id served twice");
}

through('pgbouncer restarted', sub { sleep 2; $bouncer->restart }, go => 1);

through('the registry failed over behind pgbouncer', sub {
	sleep 2;
	$primary->stop('immediate');
	$standby->promote;
	aim($standby);
	$bouncer->reload;
}, go => 1);
for my $m (@members)
{
	like(slurp_file($m->logfile), qr/the registry went backwards, or may have: its table changed/,
		$m->name . ' noticed the new timeline behind pgbouncer');
	ok($m->poll_query_until('postgres', q{SELECT state = 'serving' FROM crid_registry_status()}),
		'... and its worker is serving again');
}
# Each member leases a node of its own in the promoted registry, and the
# registry's live rows are exactly the members' nodes.
my @nodes = sort map {
	$_->safe_psql('postgres', q{SELECT value FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_node'})
} @members;
is(join(',', @nodes), join(',', sort keys %{ { map { $_ => 1 } @nodes } }), 'the members hold distinct nodes: ' . join(',', @nodes));
ok($standby->poll_query_until('postgres',
		"SELECT string_agg(node::text, ',' ORDER BY node::text) = '" . join(',', @nodes) . "' FROM crid_node_leases WHERE lease_until > now()"),
	'the promoted registry has a live lease row for each of them, and no other');

# --- transaction pooling: what another client leaves on the server connection ---
$standby->safe_psql('postgres', 'SET default_transaction_read_only = on; SET search_path = nowhere', connstr => $tx);
# pgbouncer carries such a setting to the next client unless it tracks the
# parameter (PostgreSQL reports default_transaction_read_only to clients):
# one that does gives each client its own value, and the workers meet
# nothing to resist (seen with PgBouncer 1.26 before PostgreSQL 18; 1.18
# before 15 and 1.24 before 17 carry it).
my $left = $standby->safe_psql('postgres', 'SHOW default_transaction_read_only', connstr => $tx);
if ($left eq 'on')
{
	pass('another client left the pooled server connection read-only');
}
else
{
	note('this pgbouncer gives each client its own default_transaction_read_only: nothing is left on the connection');
}
through('a pooled server connection left read-only, with a search_path', sub { }, members => [ $tx_a, $tx_b ]);
$standby->safe_psql('postgres', 'RESET ALL', connstr => $tx);

# --- a standby behind pgbouncer takes no reservation -----------------------------
$standby->backup('base2');
my $standby2 = PostgreSQL::Test::Cluster->new('pool_standby2');
$standby2->init_from_backup($standby, 'base2', has_streaming => 1);
$standby2->start;
$bouncer->target('ids_tx', $standby2, pool_mode => 'transaction', pool_size => 1);
$bouncer->reload;
my $until_refused = q{
SET crid.allocation_timeout = '2s';
DO $$
DECLARE
    got bigint[] := '{}';
BEGIN
    BEGIN
        LOOP
            got := got || crid_next();
        END LOOP;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        INSERT INTO served SELECT unnest(got);
        RAISE NOTICE 'refused after % ids', cardinality(got);
    END;
END $$};
my ($ret, $out, $err) = $tx_a->psql('postgres', $until_refused);
like($err, qr/refused after \d+ ids/, 'pgbouncer pointed at a standby: crid_next() serves the reserve, then refuses');
ok($tx_a->poll_query_until('postgres',
		q{SELECT detail ~ '(read-write mode during recovery|read-only)' FROM crid_registry_status()}),
	'... and the worker says the registry is read-only, though target_session_attrs = read-write let it in');
aim($standby);
$bouncer->reload;
ok($tx_a->poll_query_until('postgres', 'SELECT crid_next() > 0'), 'pgbouncer back on the primary: minting resumes');
$tx_a->safe_psql('postgres', 'INSERT INTO served SELECT crid_next() FROM generate_series(1, 20000)');
tally(map { "c $_" } split /\n/, $tx_a->safe_psql('postgres', 'SELECT id FROM served'));
is($ids->repeats, 0, 'nothing was reissued around the standby');

# --- statement pooling: every transaction of the worker is one round trip -------
# pgbouncer in statement mode ends a client whose transaction outlives a
# round trip. The worker sends BEGIN, its statements and COMMIT together,
# for blocks and for lease rounds alike, so a member leases a node, renews
# its lease and reserves blocks through a statement-mode pool.
my $statement = crid_node('pool_statement', open => 0,
	conf => "crid.registry = '" . $bouncer->connstr('ids_statement', 'crid_fleet') . "'\n$member_conf");
ok($statement->poll_query_until('postgres', 'SELECT snowflake_next() > 0 AND crid_next() > 0'),
	'statement pooling: the member leases a node and reserves blocks');
my $first_until = $statement->safe_psql('postgres', 'SELECT lease_until FROM crid_registry_status()');
ok( $statement->poll_query_until(
		'postgres', "SELECT lease_until > '$first_until' AND lease_problem IS NULL FROM crid_registry_status()"),
	'... renews its lease there');
tally(split /\n/, $statement->safe_psql('postgres',
	q{SELECT 'c ' || crid_next() FROM generate_series(1, 20000)
	  UNION ALL SELECT 's ' || snowflake_next() FROM generate_series(1, 20000)}));
is($ids->repeats + $snowflakes->repeats, 0, '... and serves no id another member served');

cmp_ok($ids->distinct, '>', 100000, 'crid ids were minted all along');
$_->stop for @members, $statement, $standby2, $standby;
$bouncer->stop;
done_testing();
