# The fleet under registry messages delayed, lost and replayed: each member
# reaches the registry through a proxy the test controls (test/tap/lib/
# FaultProxy.pm), one snowflake node is shared by more members than it can
# serve, and clients mint throughout. Every id served is recorded in one
# table, and the run fails on one id served twice, or on a fleet that does
# not mint again within three lease TTLs of the faults healing.
#
# Schedules (each run CRID_FAULT_ROUNDS times, 1 by default; make
# test-faults runs more), with timing drawn from a seed printed first
# (CRID_FAULT_SEED reruns one):
#
# - late_release: the holder's open registry connection stalls (its bytes
#   held, new connections pass); its worker is terminated and sends its
#   release on the stalled connection; the restarted worker takes its row
#   back on a new one; the stall heals and the old release arrives. It must
#   change nothing the new worker did.
# - lost_take: the holder's clock is ahead (libfaketime) and it is cut off
#   until its lease lapses; the waiter's take commits but its answer is
#   dropped; the waiter takes its own row back and must start above the
#   bound the old holder wrote, as the lost answer would have told it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use FaultProxy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

my $seed = $ENV{CRID_FAULT_SEED} || (time() * 1000 % 1_000_000_007);
my $rounds = $ENV{CRID_FAULT_ROUNDS} || 1;
my @schedules = split /,/, ($ENV{CRID_FAULT_SCHEDULES} || 'late_release,lost_take,lost_blocks');
diag("fault suite seed $seed (CRID_FAULT_SEED=$seed reruns it), $rounds round(s)");
srand($seed);

my $ttl_ms = 6000;
my $node = 6;

# The clock of the old holder in lost_take: ahead by more than max_skew_ms.
my $set_clock = fake_clock('+0', block_reserver => 1);
my %faked = map { $_ => $ENV{$_} } qw(LD_PRELOAD FAKETIME_TIMESTAMP_FILE FAKETIME_NO_CACHE FAKETIME_DONT_FAKE_MONOTONIC);
sub real_clock { delete @ENV{ keys %faked } }
sub faked_clock { @ENV{ keys %faked } = values %faked }
real_clock();
$set_clock->('+5');

my $registry = crid_node('faults_registry');
$registry->safe_psql('postgres', "CREATE ROLE crid_fleet LOGIN;\n" . fleet_grants('crid_fleet')
	  . 'CREATE TABLE minted (schedule text, round int, member text, id bigint);');

# Clients: snowflake ids (kind 's') or crid ids ('c') for a while, in
# bursts; a refusal is a line 'e:SQLSTATE', and the client goes on.
my $mint_for = q{
CREATE FUNCTION mint_for(seconds float8, kind text DEFAULT 's') RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until LOOP
        BEGIN
            FOR i IN 1 .. CASE kind WHEN 's' THEN 50 ELSE 20 END LOOP
                RETURN NEXT CASE kind WHEN 's' THEN snowflake_next() ELSE crid_next() END;
            END LOOP;
            PERFORM pg_sleep(0.002);
        EXCEPTION WHEN OTHERS THEN
            RETURN NEXT 'e:' || SQLSTATE;
            PERFORM pg_sleep(0.01);
        END;
    END LOOP;
END $$};

my $members = 0;
# A member leasing node 6 through a proxy of its own.
sub member
{
	my ($name, %opt) = @_;
	my $proxy = FaultProxy->new($registry);
	my $m = crid_node(
		$name . '_' . ++$members,
		conf => "crid.registry = '" . $proxy->connstr('postgres', 'crid_fleet') . "'\n"
		  . "crid.registry_timeout = '1s'\ncrid.node_lease_ttl = '${ttl_ms}ms'\ncrid.allocation_timeout = '500ms'\n"
		  . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '$node'\n",
		open => 0);    # (its own crid_allocations is not its registry)
	$m->safe_psql('postgres', $mint_for);
	return { node => $m, proxy => $proxy, name => $name };
}
sub holds
{
	my ($m) = @_;
	return $m->{node}->safe_psql('postgres',
		"SELECT value = $node FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_node'") eq 't';
}
sub renewals
{
	my ($m) = @_;
	return $m->{node}->safe_psql('postgres', "SELECT sum(value) FROM crid_stats() WHERE metric = 'lease_renewals'");
}
sub wait_until
{
	my ($what, $seconds, $check) = @_;
	my $until = time() + $seconds;
	while (time() < $until)
	{
		return 1 if $check->();
		usleep(50_000);
	}
	diag("timed out waiting for $what");
	return 0;
}
sub worker_pid
{
	my ($pg) = @_;
	return $pg->safe_psql('postgres', "SELECT pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver'");
}
sub mint_start
{
	my ($m, $seconds, $kind) = @_;
	$kind ||= 's';
	return psql_start($m->{node}->connstr('postgres'), "SELECT * FROM mint_for($seconds, '$kind')");
}
# Records the ids a client got, and counts its refusals by SQLSTATE in
# %errors; returns how many ids.
my %errors;
sub record
{
	my ($schedule, $round, $m, $session) = @_;
	my $out = psql_finish($session, "the client of $m->{name}");
	my $file = PostgreSQL::Test::Utils::tempdir() . "/ids_${schedule}_${round}_$m->{name}";
	open(my $fh, '>', $file) or die;
	my $ids = 0;
	for (split /\n/, $out)
	{
		if (/^e:(\w+)$/) { $errors{"$schedule $round"}{$1}++; next }
		print $fh "$schedule\t$round\t$m->{name}\t$_\n";
		$ids++;
	}
	close $fh;
	$registry->safe_psql('postgres', "\\copy minted FROM '$file'");
	return $ids;
}
sub errors_text
{
	my ($key) = @_;
	my $e = $errors{$key} || {};
	return join(', ', map { "$_ x$e->{$_}" } sort keys %$e) || 'none';
}
sub duplicates
{
	my ($schedule, $round) = @_;
	# (Sorted, not hashed: crid ids of a few seconds share their hashes,
	# hashint8 folding the second onto the sequence, and a hash aggregate of
	# a million of them takes minutes.)
	return $registry->safe_psql('postgres', qq{
SET enable_hashagg = off;
SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) n FROM minted
 WHERE schedule = '$schedule' AND round = $round GROUP BY id HAVING count(*) > 1) d});
}
# The fleet mints on node 6 again within three TTLs: one member or another.
sub fleet_mints_again
{
	my (@ms) = @_;
	my $healed = time();
	my $ok = wait_until('a member minting on node 6', 3 * $ttl_ms / 1000, sub {
		for my $m (@ms)
		{
			my ($ret) = $m->{node}->psql('postgres', 'SELECT snowflake_next()');
			return 1 if $ret == 0;
		}
		return 0;
	});
	return ($ok, time() - $healed);
}

my %summary;
for my $round (1 .. $rounds)
{
	for my $schedule (@schedules)
	{
		my $r = { schedule => $schedule, round => $round };
		if ($schedule eq 'late_release')
		{
			late_release($r);
		}
		elsif ($schedule eq 'lost_take')
		{
			lost_take($r);
		}
		elsif ($schedule eq 'lost_blocks')
		{
			lost_blocks($r);
		}
		else
		{
			die "unknown schedule $schedule";
		}
		$registry->safe_psql('postgres', 'DELETE FROM crid_node_leases');
	}
}
for my $line (sort keys %summary)
{
	diag($summary{$line});
}
done_testing();

# --- late_release ----------------------------------------------------------
sub late_release
{
	my ($r) = @_;
	my ($schedule, $round) = @$r{qw(schedule round)};
	my $holder = member('holder');
	ok(wait_until('the holder leasing node 6', 30, sub { holds($holder) }), "$schedule $round: the holder leases node 6");
	my $waiter = member('waiter');
	my $seconds = 16;
	my @clients = map { mint_start($_, $seconds) } $holder, $holder, $waiter;
	# Timing drawn from the seed: when the stall starts, and how long the
	# restarted worker has held its row when the stall heals.
	my $before = 0.5 + rand(1.5);
	my $after = 0.2 + rand(1.5);
	diag(sprintf('%s round %d: stall after %.2f s, heal %.2f s after the retake', $schedule, $round, $before, $after));
	usleep($before * 1e6);
	my $old = worker_pid($holder->{node});
	$holder->{proxy}->command('hold');
	$holder->{node}->safe_psql('postgres', "SELECT pg_terminate_backend($old)");
	ok( wait_until('the holder taking its row back', 20, sub {
				my $now = worker_pid($holder->{node});
				$now ne '' && $now ne $old && holds($holder);
			}),
		"$schedule $round: the restarted worker takes its row back on a new connection");
	usleep($after * 1e6);
	# The heal lags just behind a renewal of the holder: it then mints for
	# most of a renewal period after the old release arrived.
	my $renewals = renewals($holder);
	wait_until('a renewal of the holder', 10, sub { renewals($holder) ne $renewals });
	$holder->{proxy}->command('heal');
	my ($again, $took) = fleet_mints_again($holder, $waiter);
	# The late release changed nothing: the restarted worker's claim stands.
	usleep(0.5e6);
	is( $registry->safe_psql('postgres',
			"SELECT released_at IS NULL AND holder LIKE '%:" . $holder->{node}->port . " %' FROM crid_node_leases WHERE node = $node"),
		't', "$schedule $round: the late release left the row to the restarted worker");
	ok($again, "$schedule $round: the fleet mints on node 6 again within three TTLs of the heal");
	my $minted = 0;
	$minted += record($schedule, $round, $_->[0], $_->[1]) for ([ $holder, $clients[0] ], [ $holder, $clients[1] ], [ $waiter, $clients[2] ]);
	cmp_ok($minted, '>', 0, "$schedule $round: clients minted");
	my $dups = duplicates($schedule, $round);
	is($dups, 0, "$schedule $round: no id served twice");
	$summary{"$schedule $round"} = sprintf('%s round %d (seed %s): %d ids, %d served twice, minting again %.1f s after the heal; refusals: %s',
		$schedule, $round, $seed, $minted, $dups, $took, errors_text("$schedule $round"));
	$_->{node}->stop, $_->{proxy}->stop for $holder, $waiter;
}

# --- lost_take -------------------------------------------------------------
sub lost_take
{
	my ($r) = @_;
	my ($schedule, $round) = @$r{qw(schedule round)};
	faked_clock();
	my $h = member('ahead');
	real_clock();
	ok(wait_until('the holder leasing node 6', 30, sub { holds($h) }), "$schedule $round: the holder (clock 5 s ahead) leases node 6");
	my $w = member('waiter');
	my $seconds = 20;
	my @clients = map { mint_start($_, $seconds) } $h, $h, $w;
	my $before = 0.5 + rand(1.5);
	diag(sprintf('%s round %d: the holder cut off after %.2f s', $schedule, $round, $before));
	usleep($before * 1e6);
	$h->{proxy}->command('hold_all');
	# From now the answer to every take the waiter sends is lost: those
	# before the holder's lease lapsed took nothing, the first after it
	# commits the take.
	$w->{proxy}->command('drop_after lease_take($1');
	ok( wait_until('the waiter\'s take to commit', 20, sub {
				$registry->safe_psql('postgres',
					"SELECT count(*) FROM crid_node_leases WHERE node = $node AND holder LIKE '%:"
					  . $w->{node}->port . " %'") eq '1';
			}),
		"$schedule $round: the waiter's take commits, its answer lost");
	usleep(rand(0.5) * 1e6);
	$w->{proxy}->command('pass');
	my ($again, $took) = fleet_mints_again($w);
	ok($again, "$schedule $round: the waiter mints on node 6 within three TTLs of the heal");
	my $minted = 0;
	$minted += record($schedule, $round, $_->[0], $_->[1]) for ([ $h, $clients[0] ], [ $h, $clients[1] ], [ $w, $clients[2] ]);
	my $dups = duplicates($schedule, $round);
	is($dups, 0, "$schedule $round: no id served twice");
	is( $registry->safe_psql('postgres', qq{
SELECT (SELECT min(id) FROM minted WHERE schedule = '$schedule' AND round = $round AND member = 'waiter')
     > (SELECT max(id) FROM minted WHERE schedule = '$schedule' AND round = $round AND member = 'ahead')}),
		't', "$schedule $round: every id of the waiter is above every id of the holder whose clock was ahead");
	$summary{"$schedule $round"} = sprintf('%s round %d (seed %s): %d ids, %d served twice, minting again %.1f s after the heal; refusals: %s',
		$schedule, $round, $seed, $minted, $dups, $took, errors_text("$schedule $round"));
	$h->{proxy}->command('heal');
	$_->{node}->stop, $_->{proxy}->stop for $h, $w;
}

# --- lost_blocks -----------------------------------------------------------
# crid ids: two members reserve blocks through their proxies while the
# answers to reservations are dropped, a flow is held and healed, and flows
# are reset, in an order and with pauses drawn from the seed.
sub lost_blocks
{
	my ($r) = @_;
	my ($schedule, $round) = @$r{qw(schedule round)};
	my @ms = (member('blocks_a'), member('blocks_b'));
	$_->{node}->poll_query_until('postgres', 'SELECT crid_next() > 0') for @ms;
	my @clients = map { [ $_, mint_start($_, 14, 'c') ] } @ms, @ms;
	my @faults = ('drop_after crid_registry_reserve($4', 'hold', 'reset', 'drop_replies');
	my @plan;
	for (1 .. 4)
	{
		my $m = $ms[ int(rand(2)) ];
		my $fault = $faults[ int(rand(@faults)) ];
		my $pause = 0.3 + rand(1.5);
		push @plan, sprintf('%s on %s for %.2f s', $fault, $m->{name}, $pause);
		$m->{proxy}->command($fault);
		usleep($pause * 1e6);
		$m->{proxy}->command($fault eq 'hold' ? 'heal' : 'pass');
	}
	diag("$schedule round $round: " . join('; ', @plan));
	my $healed = time();
	my $again = 1;
	for my $m (@ms)
	{
		$again &&= wait_until("$m->{name} minting crid ids", 3 * $ttl_ms / 1000, sub {
			my ($ret) = $m->{node}->psql('postgres', 'SELECT crid_next()');
			$ret == 0;
		});
	}
	my $took = time() - $healed;
	ok($again, "$schedule $round: every member mints crid ids again within three TTLs of the heal");
	my $minted = 0;
	$minted += record($schedule, $round, @$_) for @clients;
	cmp_ok($minted, '>', 0, "$schedule $round: clients minted crid ids");
	my $dups = duplicates($schedule, $round);
	is($dups, 0, "$schedule $round: no crid id served twice");
	$summary{"$schedule $round"} = sprintf('%s round %d (seed %s): %d ids, %d served twice, minting again %.1f s after the heal; refusals: %s',
		$schedule, $round, $seed, $minted, $dups, $took, errors_text("$schedule $round"));
	$_->{node}->stop, $_->{proxy}->stop for @ms;
}
