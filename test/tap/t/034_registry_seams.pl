# A fleet whose registry goes backwards never serves an id twice, whichever
# node reserves next: three crid servers and a Go client (the library's plain
# upsert) share one registry while it is truncated mid-stream, with a quiet
# member holding a block of the very second the others keep using, and
# members restarted meanwhile. Every server's clock is frozen at one second
# a minute in the past (libfaketime): the members' workers find their own
# clocks ahead of the registry's and reserve by the registry's (PostgreSQL
# 15 starts background workers where libfaketime may leave them the real
# clock), so every block lands in that second, and a registry that starts
# that second again at 0 would hand the same sequences out at once. The
# test moves the clock on when the registry, having noticed, waits for its
# clock to pass the seconds it refuses. The registry servers' own workers
# reserve elsewhere: only the fleet's reservations, checked by the
# registry's sessions on the fake clock, reach its table. Then the registry runs as a primary and a streaming standby that
# misses the last reservations (replication cut, the primary killed, the
# standby promoted), the members following it through a multi-host
# connection string.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $frozen = time - 60;
sub frozen_at
{
	my @t = gmtime($frozen);
	return sprintf("%04d-%02d-%02d %02d:%02d:%02d", $t[5] + 1900, $t[4] + 1, @t[ 3, 2, 1, 0 ]);
}
my $set_clock = fake_clock(frozen_at());
sub advance
{
	$frozen += $_[0];
	$set_clock->(frozen_at());
}

my $ids = id_tally();    # every id served in this test, by any node

# --- the registry and its fleet ---------------------------------------------
my $registry = crid_node('seams_registry', open => 0, init => { allows_streaming => 1 },
	conf => "crid.registry_database = 'not_the_fleets'\n");
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
} . fleet_grants('crid_fleet') . q{
CREATE TABLE go_ids (id bigint);
GRANT INSERT ON go_ids TO crid_fleet;
});
advance(4);    # past the seconds a new registry table refuses
my $conninfo = sprintf('host=%s port=%d dbname=postgres user=crid_fleet', $registry->host, $registry->port);
my $member_conf = "crid.registry = '$conninfo'\ncrid.block_size = 1000\ncrid.threshold = 500\n"
  . "crid.allocation_timeout = '60s'\n";
my @members = map { crid_node("seams_$_", conf => $member_conf, open => 0) } ('a', 'b', 'c');
my ($a, $b, $c) = @members;
# The quiet member takes one big block and then stays quiet.
my $quiet = crid_node('seams_quiet', conf => "crid.registry = '$conninfo'\ncrid.block_size = 1000000\n"
	  . "crid.threshold = 0\ncrid.allocation_timeout = '60s'\n", open => 0);

sub mint
{
	my ($node, $count) = @_;
	return $node->safe_psql('postgres', "SELECT crid_next() FROM generate_series(1, $count)");
}
my $second = sub { $_[0] >> 32 };

$ids->add(mint($quiet, 10));
my ($quiet_first) = split /\n/, mint($quiet, 1);
$ids->add($quiet_first);
$ids->add(mint($_, 3000)) for @members;
my $go = go_client_sql(table => 'crid_allocations', into => 'go_ids', rounds => 20);
$registry->safe_psql('postgres', $go);
$ids->add($registry->safe_psql('postgres', 'SELECT id FROM go_ids'));
is($ids->repeats, 0, 'a sound registry: three members, a quiet one and the Go client share it');
is( $registry->safe_psql('postgres', 'SELECT count(DISTINCT id >> 32) FROM go_ids'),
	'1', 'the frozen clock keeps every block in one second');
$registry->safe_psql('postgres', 'TRUNCATE go_ids');    # tallied already
my $used_second = $second->($quiet_first);
is( $registry->safe_psql('postgres', "SELECT next_seq > 1000000 FROM crid_allocations WHERE ts = $used_second"),
	't', 'the quiet member and the others took blocks of the same second');

# --- TRUNCATE while the members stream ids ----------------------------------
# Each stream stops halfway on an advisory lock the test holds, so the
# TRUNCATE provably lands mid-stream: 15,000 ids before it, 15,000 after.
my @gates = map {
	my $gate = $_->background_psql('postgres');
	$gate->query_safe('SELECT pg_advisory_lock(42)');
	$gate
} @members;
my @streams = map {
	psql_start($_->connstr('postgres'),
		'COPY (SELECT crid_next() FROM generate_series(1, 30000) g'
		  . ' WHERE g <> 15000 OR pg_advisory_lock_shared(42) IS NOT NULL) TO STDOUT')
} @members;
for my $m (@members)
{
	$m->poll_query_until('postgres', "SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
	  or die $m->name . ' did not stream halfway';
}
$registry->safe_psql('postgres', 'TRUNCATE crid_allocations');
for my $gate (@gates)
{
	$gate->query_safe('SELECT pg_advisory_unlock(42)');
	$gate->quit;
}
# The Go client is the first writer after it: refused, it retries, and it
# goes on only above every second the old table's reservations may hold.
my $go_after = psql_start($registry->connstr('postgres'),
	go_client_sql(table => 'crid_allocations', into => 'go_ids', rounds => 20));
# (It pauses only after a refused upsert.)
$registry->poll_query_until('postgres', "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
  or die 'the Go client was not refused';
advance(4);
psql_finish($go_after, 'the Go client after the TRUNCATE');
$ids->add(psql_finish($_, 'a stream')) for @streams;
# The quiet member serves on from its old block of the used second.
my $quiet_more = mint($quiet, 20000);
is(scalar(grep { $second->($_) == $used_second } split /\n/, $quiet_more), 20000,
	'the quiet member served on from its block of the old second');
$ids->add($quiet_more);
$ids->add($registry->safe_psql('postgres', 'SELECT id FROM go_ids'));
is($ids->repeats, 0, 'after TRUNCATE mid-stream: no id served twice by any node, the quiet one and Go included');
is( $registry->safe_psql('postgres', "SELECT count(*) FROM crid_allocations WHERE ts <= $used_second"),
	'0', 'nobody reserved in the old second again');
like( $registry->safe_psql('postgres', 'SELECT reason FROM crid_registry_state'),
	qr/^the table was system \d+, timeline 1, relation \d+ file \d+ and is /, 'the registry recorded why');
for my $m (@members)
{
	like(slurp_file($m->logfile), qr/WARNING:  crid: the registry went backwards, or may have: its table changed/,
		$m->name . ' says the registry went backwards');
}
cmp_ok($a->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE metric = 'registry_regressions'"),
	'>=', 1, 'and counts it');

# --- a member restarted meanwhile ---------------------------------------------
# The registry is truncated again while member c is down; c comes back with
# nothing in memory and must not reserve in the seconds the others used.
$c->stop;
$ids->add(mint($a, 5000));
$registry->safe_psql('postgres', 'TRUNCATE crid_allocations');
$registry->safe_psql('postgres', "SELECT FROM crid_registry_check('crid_allocations')");
advance(4);
$c->start;
$ids->add(mint($c, 5000), mint($a, 5000), mint($b, 5000));
is($ids->repeats, 0, 'a member restarted across a TRUNCATE: no id served twice');

# --- the registry fails over to a standby that missed reservations -------------
# A standby streams from the registry; the members name both in a multi-host
# connection string and follow whichever accepts writes.
$registry->backup('seams_base');
my $standby = PostgreSQL::Test::Cluster->new('seams_standby');
$standby->init_from_backup($registry, 'seams_base', has_streaming => 1);
$standby->start;
$registry->wait_for_catchup($standby);
my $both = sprintf("host=%s,%s port=%d,%d dbname=postgres user=crid_fleet target_session_attrs=read-write",
	$registry->host, $standby->host, $registry->port, $standby->port);
for my $m (@members)
{
	$m->append_conf('postgresql.conf', "crid.registry = '$both'\n");
	$m->restart;
}
# (A restarted member reserves only after the second its mark names, which
# may be the second ahead of the frozen clock the last blocks came from.)
advance(2);
$ids->add(mint($_, 3000)) for @members;
$registry->wait_for_catchup($standby);

# Cut replication: the standby keeps what it has, the primary goes on.
$standby->append_conf('postgresql.conf', "primary_conninfo = ''\n");
$standby->reload;
$standby->poll_query_until('postgres', 'SELECT count(*) = 0 FROM pg_stat_wal_receiver')
  or die 'the standby kept streaming';
# Reservations the standby never sees: minted until the registry took one.
# A member that saw backends wait for blocks keeps extra blocks in reserve
# (up to most of its ring), which may serve thousands of ids without one.
my $at_cut = $registry->safe_psql('postgres', 'SELECT max(next_seq) FROM crid_allocations');
for (1 .. 40)
{
	$ids->add(mint($_, 2000)) for @members;
	last if $registry->safe_psql('postgres', 'SELECT max(next_seq) FROM crid_allocations') > $at_cut;
}
my $lost = $registry->safe_psql('postgres', 'SELECT max(next_seq) FROM crid_allocations');
$registry->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'the standby was not promoted';
cmp_ok($standby->safe_psql('postgres', 'SELECT coalesce(max(next_seq), 0) FROM crid_allocations'), '<', $lost,
	'the promoted standby lacks the last reservations');
# The first member to reserve there notices the new timeline; its clock (the
# registry's, frozen) must move past the refused seconds.
my @after = map {
	psql_start($_->connstr('postgres'), 'COPY (SELECT crid_next() FROM generate_series(1, 20000)) TO STDOUT')
} @members;
$standby->poll_query_until('postgres', "SELECT count(*) > 0 FROM crid_registry_state WHERE reason ~ 'and is system [0-9]+, timeline 2,'")
  or die 'no member reserved on the promoted standby';
advance(4);
$ids->add(psql_finish($_, 'a member after the failover')) for @after;
is($ids->repeats, 0, 'after a failover to a standby that missed reservations: no id served twice');
like($standby->safe_psql('postgres', 'SELECT reason FROM crid_registry_state'),
	qr/timeline 1, .* and is system \d+, timeline 2,/, 'the new timeline was noticed');
is($a->safe_psql('postgres', 'SELECT state FROM crid_registry_status()'), 'serving', 'the members serve again');

# --- crid_reserve on a registry server that preloads crid ----------------------
# The fleet's registry here is database "postgres", not this server's own
# crid.registry_database; a fleet whose registry is such a database
# database is told how to reserve there.
$standby->safe_psql('postgres', 'CREATE DATABASE fleet_two');
$standby->safe_psql('fleet_two', 'CREATE EXTENSION crid');
advance(4);    # past the seconds a new registry table refuses
registry_open($standby, 'fleet_two');
my ($ret, $out, $err) = $standby->psql('fleet_two', "SELECT crid_reserve(now() - interval '1 day', 10)");
like($err, qr/set crid\.registry_database = 'fleet_two' here and restart/,
	'crid_reserve in another database names the setting that makes it work there');
$standby->append_conf('postgresql.conf', "crid.registry_database = 'fleet_two'\n");
$standby->restart;
is($standby->safe_psql('fleet_two', "SELECT crid_reserve(now() - interval '1 day', 10)"), '0',
	'... and with it, crid_reserve reserves in the fleet\'s table');

$_->stop for @members, $quiet;
$standby->stop;
done_testing();
