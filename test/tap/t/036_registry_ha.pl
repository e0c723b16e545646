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
	$m->safe_psql('postgres', q{
CREATE FUNCTION mint_for(seconds float8) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until LOOP
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

# Mints on both members for `seconds` while `event` happens, and tallies.
sub through
{
	my ($seconds, $what, $event) = @_;
	my @streams = map { psql_start($_->connstr('postgres'), "SELECT * FROM mint_for($seconds)") } @members;
	$event->();
	$ids->add(psql_finish($streams[$_], $members[$_]->name . " during $what")) for 0 .. $#members;
	is($ids->repeats, 0, "$what: no id served twice");
}

through(8, 'a planned failover', sub {
	sleep 1;
	$paf->perform_failover;
	is($paf->wait_primary(not => 'node1'), 'node2', 'node2 is the primary now');
});
like($paf->psql($client, 'SELECT reason FROM crid_registry_state'),
	qr/timeline 1, .* and is system \d+, timeline 2,/, 'the registry recorded the new timeline');

through(12, 'a killed primary', sub {
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
through(12, 'a killed primary with asynchronous replication', sub {
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
