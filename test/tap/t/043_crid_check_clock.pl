# crid_check() on a member of a fleet reports a clock that is off from the
# registry's: by more than the skew the fleet allows (max_skew_ms in the
# registry's crid_registry_state), or by more than half of it, with the
# offset the block reserver measured and the fix, which the test runs. The
# registry server runs under libfaketime with its own clock file (its
# backends read a wall clock that many seconds off, as a host whose NTP
# failed would give them), the member on the real clock; the registry's
# clock is moved while both run: 3 s behind, then ahead by three quarters
# of the skew allowed then, then 70 s ahead, beyond any max_skew_ms.
use strict;
use warnings;
use FindBin;
use File::Spec;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

# The test's own processes (psql) and the member read the real clock.
fake_clock('+0');
my $registry_clock = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir()) . '/registry_clock';
# The registry's clock: `seconds` off the real one, from its next reading.
sub set_registry_clock
{
	my ($seconds) = @_;
	open(my $fh, '>', "$registry_clock.new") or die "cannot write $registry_clock.new: $!";
	printf $fh "%+d\n", $seconds;
	close $fh;
	rename("$registry_clock.new", $registry_clock) or die "cannot rename $registry_clock.new: $!";
}
set_registry_clock(0);

my $registry;
{
	local $ENV{FAKETIME_TIMESTAMP_FILE} = $registry_clock;
	$registry = crid_node('clock_registry', preload => 0);
}
$registry->safe_psql('postgres', "CREATE ROLE crid_fleet LOGIN;\n" . fleet_grants('crid_fleet'));
my $member = crid_node('clock_member', open => 0,
	conf => sprintf("crid.registry = 'host=%s port=%d dbname=postgres user=crid_fleet'\n"
		  . "crid.block_size = 1000\ncrid.threshold = 500\ncrid.allocation_timeout = '60s'\n",
		$registry->host, $registry->port));

# The registry's clock minus the test's, in ms, as the registry's backends
# read it.
# The registry's clock minus this test's, bracketed by this test's clock
# before and after the query: (at most, at least). A loaded machine can take
# a second to start psql and read its answer, so a check that the registry
# is behind uses the first and one that it is ahead the second.
sub registry_offset_ms
{
	my $before = int(Time::HiRes::time() * 1000);
	my $theirs = $registry->safe_psql('postgres', 'SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint');
	my $after = int(Time::HiRes::time() * 1000);
	return ($theirs - $after, $theirs - $before);
}

# Serves a few blocks' worth of crid ids, so that the block reserver
# reserves (and measures the registry's clock) again.
sub reserve_again
{
	$member->safe_psql('postgres', 'SELECT count(crid_next()) FROM generate_series(1, 2500)');
}

# The member's clock_skew row ("detail|fix"), waiting up to two minutes for
# it to be there (`present`) or gone, reserving meanwhile; '' when none.
sub clock_skew
{
	my ($present) = @_;
	my $deadline = time() + 120;
	while (1)
	{
		reserve_again();
		my $row = $member->safe_psql('postgres',
			q{SELECT detail || '|' || fix FROM crid_check() WHERE problem = 'clock_skew'});
		return $row if ($row ne '') == $present || time() > $deadline;
		sleep 1;
	}
}

# What the block reserver last measured: offset_ms and uncertainty_ms.
sub measured
{
	return split /\|/, $member->safe_psql('postgres', 'SELECT offset_ms, uncertainty_ms FROM crid_registry_clock()');
}

# --- clocks in step: nothing to report --------------------------------------
ok($member->poll_query_until('postgres', 'SELECT crid_next() > 0'), 'the member mints on the registry');
reserve_again();
my ($offset, $uncertainty) = measured();
cmp_ok(abs($offset), '<=', $uncertainty + 500, "clocks in step: the reserver measures them so ($offset ms, to within $uncertainty ms)");
is($member->safe_psql('postgres', q{SELECT count(*) FROM crid_check() WHERE problem = 'clock_skew'}), '0',
	'clocks in step: crid_check() reports no clock');

# --- the registry 3 s behind: more than max_skew_ms (1000) -------------------
set_registry_clock(-3);
cmp_ok((registry_offset_ms())[0], '<', -2500, "the registry's backends read a clock 3 s behind");
my $row = clock_skew(1);
like($row, qr/^this server's clock is \d+ ms ahead of the clock of the registry at host=\S+ port=\d+ dbname=postgres user=crid_fleet /,
	'registry 3 s behind: crid_check() reports this server ahead of the registry');
($offset, $uncertainty) = measured();
my ($reported) = $row =~ /clock is (\d+) ms/;
cmp_ok(abs($reported - 3000), '<=', $uncertainty + 500, "... by the offset measured ($reported ms, to within $uncertainty ms)");
like($row, qr/more than the 1000 ms of skew the fleet allows \(max_skew_ms of public\.crid_registry_state there\)/,
	'... more than the skew the fleet allows, and where that is set');
my ($fix) = $row =~ /\|(.*)$/s;
my ($update) = $fix =~ /^(UPDATE public\.crid_registry_state SET max_skew_ms = (\d+) WHERE registry = '[^']+');/;
ok($update, "the fix allows more skew on the registry: $fix");
like($fix, qr/or better, sync the clocks .* with NTP/, '... or, better, syncs the clocks');
my ($allowed) = $update =~ /max_skew_ms = (\d+)/;
cmp_ok($allowed, '>=', 2 * $reported, '... to twice the offset at least');
is($registry->safe_psql('postgres', "$update RETURNING max_skew_ms"), $allowed, 'the fix, run on the registry, changes its row');
is(clock_skew(0), '', 'with that skew allowed, crid_check() reports the clock no more');

# --- the registry ahead by three quarters of max_skew_ms: nearing it --------
# The skew allowed now is 2 x (3 s + the uncertainty then), rounded up to a
# second: 6 s or more. The registry goes ahead by three quarters of it, in
# whole seconds: more than half, less than all.
my $ahead = int($allowed * 3 / 4 / 1000);
set_registry_clock($ahead);
cmp_ok((registry_offset_ms())[1], '>', $ahead * 1000 - 500, "the registry's backends read a clock $ahead s ahead");
$row = clock_skew(1);
($reported) = $row =~ /clock is (\d+) ms behind the clock of the registry/;
($offset, $uncertainty) = measured();
ok(defined $reported && abs($reported - $ahead * 1000) <= $uncertainty + 500,
	"registry $ahead s ahead: crid_check() reports this server behind it, by the offset measured ($row)");
like($row, qr/over half of the $allowed ms of skew the fleet allows/, "... as over half of the $allowed ms allowed");
($fix) = $row =~ /\|(.*)$/s;
($update) = $fix =~ /^(UPDATE public\.crid_registry_state SET max_skew_ms = \d+ WHERE registry = '[^']+');/;
ok($update, "... and the fix allows more: $fix");
is($registry->safe_psql('postgres', "$update RETURNING true"), 't', 'the fix, run on the registry, changes its row');
is(clock_skew(0), '', 'with that skew allowed, crid_check() reports the clock no more');

# --- the registry 70 s ahead: no skew allowed covers it ----------------------
set_registry_clock(70);
$row = clock_skew(1);
like($row, qr/clock is \d+ ms behind the clock of the registry/, 'registry 70 s ahead: crid_check() reports it');
($fix) = $row =~ /\|(.*)$/s;
is($fix, '-- sync the clocks of this server and of the registry\'s hosts with NTP (chronyc makestep)',
	'... and, beyond the 60 s any max_skew_ms allows, the fix is NTP alone');

# crid_registry_clock() is for pg_monitor, as crid_registry_status() is.
$member->safe_psql('postgres', 'CREATE ROLE watcher LOGIN; GRANT pg_monitor TO watcher; CREATE ROLE nobody LOGIN');
like($member->safe_psql('postgres', 'SELECT offset_ms FROM crid_registry_clock()', connstr => $member->connstr('postgres') . ' user=watcher'),
	qr/^\d+$/, 'a member of pg_monitor reads crid_registry_clock()');
my ($ret, $out, $err) = $member->psql('postgres', 'SELECT * FROM crid_registry_clock()',
	connstr => $member->connstr('postgres') . ' user=nobody');
like($err, qr/permission denied for function crid_registry_clock/, 'another role does not');

$member->stop;
$registry->stop;
done_testing();
