# Snowflake node leases at their seams: a lease row deleted, or the lease
# table truncated, while its holder mints; a server cloned from a live one
# (its data directory copied, started with the same host name, port and data
# path, as copied VMs and containers are); a clean restart and a killed one;
# the backfill node; what the worker says and shows. Two servers never mint
# the same id: a node whose earlier holder cannot be shown to have stopped is
# minted on only a full lease TTL and a fifth after it was taken.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $ttl_ms = 4000;

my $registry = crid_node('lease_seams_registry');
$registry->safe_psql('postgres', q{
CREATE ROLE crid_fleet LOGIN;
} . fleet_grants('crid_fleet') . q{
});
my $conninfo = sprintf('host=%s port=%d dbname=postgres user=crid_fleet', $registry->host, $registry->port);
my $fleet_conf = "crid.registry = '$conninfo'\ncrid.node_lease_ttl = '${ttl_ms}ms'\n";
# The earlier holders below reach the registry as a role of their own, so
# the test can keep one from taking its node back for a while.
$registry->safe_psql('postgres', q{
CREATE ROLE crid_holder LOGIN;
} . fleet_grants('crid_holder') . q{
});
my $holder_conf = sprintf("crid.registry = 'host=%s port=%d dbname=postgres user=crid_holder'\n",
	$registry->host, $registry->port);

# Mints for `seconds` in bursts, skipping refusals (a lease not held yet, or
# given up), and returns every id it got.
my $mint_for = q{
CREATE FUNCTION mint_for(seconds float8) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
BEGIN
    WHILE clock_timestamp() < until LOOP
        BEGIN
            FOR i IN 1 .. 20 LOOP
                RETURN NEXT snowflake_next();
            END LOOP;
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            NULL;
        END;
        PERFORM pg_sleep(0.001);
    END LOOP;
END $$};
sub leaser
{
	my ($name, $nodes, %opt) = @_;
	my $node = crid_node($name, conf => $fleet_conf . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '$nodes'\n"
		  . ($opt{conf} || ''), init => $opt{init});
	$node->safe_psql('postgres', $mint_for);
	return $node;
}
sub holds
{
	my ($server) = @_;
	return $server->poll_query_until('postgres',
		"SELECT value >= 0 FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_node'");
}
sub node_of { return ($_[0] >> 12) & 1023 }
sub ids_on
{
	my ($node, $out) = @_;
	return grep { node_of($_) == $node } split /\n/, $out;
}
my $ids = id_tally();

# --- a lease row deleted, then the lease table truncated, while its holder mints
my $round = 0;
for my $removal ('DELETE FROM crid_node_leases WHERE node = 5', 'TRUNCATE crid_node_leases')
{
	$round++;
	my $holder = leaser("lease_holder_$round", '5', conf => $holder_conf);
	ok(holds($holder), "the holder leases node 5 (before: $removal)");
	my $holder_stream = psql_start($holder->connstr('postgres'), 'SELECT * FROM mint_for(14)');
	$holder->poll_query_until('postgres',
		"SELECT sum(value) > 1000 FROM crid_stats() WHERE family = 'snowflake' AND metric = 'ids'")
	  or die 'the holder did not mint';
	# Once it sees its row gone the holder would lease the free node again,
	# racing the newcomer's start: it may not insert a lease row until the
	# newcomer holds the node (it still renews, and so notices).
	$registry->safe_psql('postgres', "BEGIN; REVOKE INSERT ON crid_node_leases FROM crid_holder; $removal; COMMIT;");
	my $newcomer = leaser("lease_newcomer_$round", '5');
	holds($newcomer) or die 'the newcomer did not lease node 5';
	$registry->safe_psql('postgres', 'GRANT INSERT ON crid_node_leases TO crid_holder');
	my $newcomer_stream = psql_start($newcomer->connstr('postgres'), 'SELECT * FROM mint_for(10)');
	my $newcomer_ids = psql_finish($newcomer_stream, 'the newcomer');
	my $holder_ids = psql_finish($holder_stream, 'the holder');
	my @old = ids_on(5, $holder_ids);
	my @new = ids_on(5, $newcomer_ids);
	# mint_for skips refusals: without ids on both sides the comparison
	# below would compare nothing.
	cmp_ok(scalar(@old), '>', 0, "$removal: the earlier holder minted on node 5");
	cmp_ok(scalar(@new), '>', 0, "$removal: the newcomer mints on node 5 in the end");
	my ($old_max) = sort { $b <=> $a } @old;
	my ($new_min) = sort { $a <=> $b } @new;
	cmp_ok($new_min, '>', $old_max, '... every id of it above every id of the earlier holder');
	$ids->add($holder_ids, $newcomer_ids);
	is($ids->repeats, 0, '... and no id minted twice');
	like(slurp_file($holder->logfile), qr/snowflake node 5 is no longer held by this server/,
		'the earlier holder noticed its row was gone');
	like(slurp_file($newcomer->logfile),
		qr/snowflake node 5 is leased by this server.*\n.*DETAIL:  Its earlier holder cannot be shown to have stopped/,
		'the newcomer waited before minting, and said why');
	# Its next lease round after the GRANT says so (rounds after failures are
	# paced by a backoff).
	my $err = '';
	for (1 .. 300)
	{
		(undef, undef, $err) = $holder->psql('postgres', 'SELECT snowflake_next()');
		last if $err =~ /leased by another live server/;
		usleep(100_000);
	}
	like($err, qr/every one of the 1 nodes of crid\.snowflake_nodes is leased by another live server/,
		'the earlier holder says the one node it may lease is taken');
	$_->stop for $holder, $newcomer;
	$registry->safe_psql('postgres', 'DELETE FROM crid_node_leases');
}

# --- a clone of a live server: same host name, port and data path ------------
# (Its lease lasts 12 s, copied to the clone: a clone that found it lapsed
# would still wait 14.4 s before minting, longer than the 6 s both mint, so
# the clone mints nothing even if a loaded machine stalls the original's
# renewals for seconds.)
my $original = crid_node('lease_original', conf => $fleet_conf . "crid.node_id = 9\ncrid.node_lease_ttl = '12s'\n",
	init => { allows_streaming => 1 });
ok($original->poll_query_until('postgres', 'SELECT snowflake_next() > 0'), 'the original registers static node 9');
$original->safe_psql('postgres', $mint_for);
$original->backup('clone_base');
my $copy = $original->backup_dir . '/clone_base';
my $data = $original->data_dir;
my $port = $original->port;
# The clone listens on another loopback address with the same port, and sees
# its copy at the original's data path in a mount namespace of its own.
my $sockets = PostgreSQL::Test::Utils::tempdir_short();
open(my $conf, '>>', "$copy/postgresql.conf") or die;
print $conf "listen_addresses = '127.0.0.2'\nunix_socket_directories = '$sockets'\nport = $port\n";
close $conf;
open(my $hba, '>>', "$copy/pg_hba.conf") or die;
print $hba "host all all 127.0.0.2/32 trust\n";
close $hba;
chmod 0700, $copy;
my $clone_log = $original->basedir . '/clone.log';
my @in_namespace = ('unshare', '--user', "--map-user=$<", '--map-group=' . (split / /, $()[0], '--mount',
	'--keep-caps', 'sh', '-c', qq{mount --bind "$copy" "$data" && exec pg_ctl -D "$data" -l "$clone_log" -w start});
my ($start_out, $start_err) = ('', '');
ok(IPC::Run::run(\@in_namespace, '>', \$start_out, '2>', \$start_err), 'the clone starts at the same data path')
  or diag("$start_out $start_err");
my $clone = "host=$sockets port=$port dbname=postgres";
is( scalar(`psql -XAtq -d '$clone' -c "SELECT setting FROM pg_settings WHERE name = 'data_directory'"` =~ s/\s+$//r),
	$data, 'the clone sees the same data directory path');
my $clone_stream = psql_start($clone, 'SELECT count(*) FROM mint_for(6)');
my $original_stream = psql_start($original->connstr('postgres'), 'SELECT * FROM mint_for(6)');
is(psql_finish($clone_stream, 'the clone'), '0', 'the clone mints no id on node 9 while the original lives');
my $original_ids = psql_finish($original_stream, 'the original');
cmp_ok(scalar(ids_on(9, $original_ids)), '>', 0, 'the original mints on node 9 meanwhile');
$ids->add($original_ids);
is($ids->repeats, 0, '... alone: no id of it minted twice');
my $refusal = `psql -XAtq -d '$clone' -c 'SELECT snowflake_next()' 2>&1`;
like($refusal, qr/snowflake node 9 is not held by this server/, 'the clone refuses');
like($refusal, qr/held by another live server, \S+:$port \Q$data\E/, '... naming the original, same host, port and path');
my $clone_pid = (split /\n/, slurp_file("$copy/postmaster.pid"))[0];
kill 'TERM', $clone_pid;
$original->poll_query_until('postgres', 'SELECT true');    # (the original was never touched)

# --- restarts: a clean one retakes at once, a killed one waits for the lapse ---
# (Its lease lasts 20 s: its start after a kill is sure to come before the
# earlier life's lease lapses.)
my $keeper = leaser('lease_keeper', '40', conf => "crid.node_lease_ttl = '20s'\n");
ok(holds($keeper), 'a server leases node 40');
my $restart_offset = -s $keeper->logfile;
$keeper->restart;
ok(holds($keeper), 'after a clean restart it holds node 40 again');
like(slurp_file($keeper->logfile), qr/released 1 snowflake node lease at exit/, 'it released the lease at exit');
is($keeper->safe_psql('postgres', 'SELECT count(*) > 0 FROM mint_for(0.2)'), 't', 'and mints at once');
unlike(substr(slurp_file($keeper->logfile), $restart_offset), qr/Its earlier holder cannot be shown to have stopped/,
	'without waiting for a lapse');
$keeper->stop('immediate');
$keeper->start;
is($keeper->safe_psql('postgres', 'SELECT count(*) FROM mint_for(0.2)'), '0',
	'killed and started again: its old lease belongs to its earlier life, which may still be minting');
ok(holds($keeper), '... and it leases the node once that lease lapsed');

# --- the backfill node is never leased; the worker says how things stand ------
my $first = leaser('lease_first', '30-31', conf => "crid.backfill_node = 30\n");
ok(holds($first), 'a server leases from 30-31 with crid.backfill_node = 30');
is($first->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_node'"),
	'31', '... node 31, never the backfill node');
my $second = leaser('lease_second', '30-31', conf => "crid.backfill_node = 30\n");
$second->poll_query_until('postgres', "SELECT lease_problem IS NOT NULL FROM crid_registry_status()");
like($second->safe_psql('postgres', 'SELECT lease_problem FROM crid_registry_status()'),
	qr/every one of the 1 nodes of crid\.snowflake_nodes is leased by another live server/,
	'a second server is told the truth: the one node it may lease is taken');
is($registry->safe_psql('postgres', 'SELECT count(*) FROM crid_node_leases WHERE node = 30'), '0',
	'nobody leased the backfill node');

# --- crid_registry_status() follows lease round trips too -----------------------
# A server whose registry lacks the extension at first: no block is ever
# asked for, but once the extension is there its lease rounds succeed.
$registry->safe_psql('postgres', 'CREATE DATABASE later_ids');
my $late = crid_node('lease_late',
	conf => "crid.registry = 'host=@{[ $registry->host ]} port=@{[ $registry->port ]} dbname=later_ids'\n"
	  . "crid.node_id = 'lease'\ncrid.snowflake_nodes = '50'\ncrid.node_lease_ttl = '${ttl_ms}ms'\n");
ok($late->poll_query_until('postgres', 'SELECT state FROM crid_registry_status()', 'no_extension'),
	'no crid on the registry yet: no_extension');
$registry->safe_psql('later_ids', 'CREATE EXTENSION crid');
ok($late->poll_query_until('postgres', 'SELECT state FROM crid_registry_status()', 'serving'),
	'crid created there: serving, though only leases went there');

$_->stop for $original, $keeper, $first, $second, $late;
$registry->stop;
done_testing();
