# A highly available registry: pg_auto_failover (a monitor, a primary and a
# secondary, started by the test on loopback) holds crid's registry, and two
# crid servers reach it through the formation's multi-host URI
# (target_session_attrs=read-write). They mint crid ids and snowflake ids on
# leased nodes while the registry goes through a planned failover, then the
# primary dies (kill -9 of its whole process group, as a machine that fails),
# then, replication made asynchronous, dies again: the workers follow every
# promotion, notice the new timeline before reserving there, and no id is
# served twice.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PafCluster;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $paf = PafCluster->new;
$paf->start_monitor;
$paf->start_node('node1', dbname => 'ids');
$paf->start_node('node2', dbname => 'ids');
is($paf->wait_primary, 'node1', 'the formation: node1 primary, node2 secondary');
my $uri = $paf->uri;
like($uri, qr{^postgres://127\.0\.0\.1:\d+,127\.0\.0\.1:\d+/ids\?target_session_attrs=read-write}, 'its multi-host URI');
my $client = "$uri&connect_timeout=2";
$paf->psql($client, 'CREATE EXTENSION crid');

# Two crid servers on the registry: crid ids from it, snowflake nodes leased
# from it (crid.node_lease_ttl 20 s: a failover takes seconds).
my $member_conf = "crid.registry = '$uri&connect_timeout=2'\ncrid.registry_timeout = '3s'\n"
  . "crid.block_size = 2000\ncrid.threshold = 1000\ncrid.allocation_timeout = '60s'\n"
  . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '0-1'\ncrid.node_lease_ttl = '20s'\n";
my @members = map { crid_node("ha_$_", conf => $member_conf) } ('a', 'b');
for my $m (@members)
{
	# Mints until a row in mint_stop says to stop (or for `seconds` at most,
	# short of psql_start's timeout), skipping refusals.
	$m->safe_psql('postgres', q{
CREATE UNLOGGED TABLE mint_stop ();
CREATE FUNCTION mint_until_stopped(seconds float8) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until AND NOT EXISTS (SELECT FROM mint_stop) LOOP
        BEGIN
            RETURN NEXT crid_next();
            FOR i IN 1 .. 10 LOOP
                RETURN NEXT snowflake_next();
            END LOOP;
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            NULL;  -- a lease that may have lapsed while the registry moved
        END;
        PERFORM pg_sleep(0.0005);
    END LOOP;
END $$});
	ok($m->poll_query_until('postgres', 'SELECT snowflake_next() > 0 AND crid_next() > 0'),
		$m->name . ' mints crid and snowflake ids through the formation');
}
my $ids = id_tally();

# crid_stats() of a member: ids of crid blocks reserved and served, and
# snowflake ids minted, "reserved served snowflake".
sub minted
{
	my ($m) = @_;
	return $m->safe_psql('postgres', q{
SELECT (SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'ids_reserved') || ' '
    || (SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'ids_served') || ' '
    || (SELECT coalesce(sum(value), 0) FROM crid_stats() WHERE family = 'snowflake' AND metric = 'ids')});
}

# Mints on both members while `event` happens, until each has served ids
# the event could not have seen: crid ids of a block reserved after it
# ended, and snowflake ids minted after that. A block server hands out its
# blocks in the order they were reserved, so once a member served more ids
# than it had reserved when the event ended, it serves from a block
# reserved since. The blocks reserved before may be many (a member that
# waited for blocks keeps more in reserve), so the test mints crid ids of
# its own too, in bursts it tallies, to get through them sooner. Then the
# tally of every id of the members must have no id twice.
sub through
{
	my ($what, $event) = @_;
	$_->safe_psql('postgres', 'TRUNCATE mint_stop') for @members;
	my @streams = map { psql_start($_->connstr('postgres'), 'SELECT * FROM mint_until_stopped(170)') } @members;
	$event->();
	for my $m (@members)
	{
		my $then = minted($m);
		my ($reserved, undef, $snowflake) = split / /, $then;
		my $deadline = time() + 120;
		my $now;
		while (1)
		{
			my ($ret, $out) = $m->psql('postgres', 'SELECT crid_next() FROM generate_series(1, 5000)');
			$ids->add($out) if $ret == 0;
			$now = minted($m);
			my (undef, $served_now, $snowflake_now) = split / /, $now;
			last if $served_now > $reserved && $snowflake_now > $snowflake;
			last if time() > $deadline;
			sleep 1;
		}
		my (undef, $served_now, $snowflake_now) = split / /, $now;
		ok($served_now > $reserved && $snowflake_now > $snowflake,
			"$what: " . $m->name . ' serves crid ids of a block reserved after it, and mints snowflake ids')
		  or diag("crid ids reserved and served, snowflake ids minted: $then when it ended, $now at last");
	}
	$_->safe_psql('postgres', 'INSERT INTO mint_stop DEFAULT VALUES') for @members;
	$ids->add(psql_finish($streams[$_], $members[$_]->name . " during $what")) for 0 .. $#members;
	note("$what: " . $ids->distinct . ' distinct ids tallied so far');
	is($ids->repeats, 0, "$what: no id served twice");
}

through('a planned failover', sub {
	sleep 1;
	$paf->perform_failover;
	is($paf->wait_primary(not => 'node1'), 'node2', 'node2 is the primary now');
});
like($paf->psql($client, 'SELECT reason FROM crid_registry_state'),
	qr/timeline 1, .* and is system \d+, timeline 2,/, 'the registry recorded the new timeline');

through('a killed primary', sub {
	sleep 1;
	$paf->kill_node('node2');
	is($paf->wait_primary(not => 'node2'), 'node1', 'node1 is promoted');
});
$paf->restart_node('node2');
$paf->wait_stable;

# Asynchronous replication: what the primary commits may never reach the
# standby. The members' blocks of that time are lost to the registry, and
# the promoted node refuses the seconds they used.
$paf->set_replication_quorum($_, 0) for qw(node1 node2);
$paf->wait_stable;
is($paf->psql($client, 'SHOW synchronous_standby_names'), '', 'replication is asynchronous now');
my $primary = $paf->wait_primary;
through('a killed primary with asynchronous replication', sub {
	sleep 1;
	$paf->kill_node($primary);
	isnt($paf->wait_primary(not => $primary), $primary, 'the other node is promoted');
});
for my $m (@members)
{
	is($m->safe_psql('postgres', 'SELECT state FROM crid_registry_status()'), 'serving', $m->name . ' serves again');
	like(slurp_file($m->logfile), qr/the registry went backwards, or may have: its table changed/,
		$m->name . ' noticed the registry changed');
}
cmp_ok($ids->distinct, '>', 10000, 'ids were minted all along');

$_->stop for @members;
my @problems = $paf->stop_all;
is(join(', ', @problems), '', 'the formation stopped cleanly');
done_testing();
