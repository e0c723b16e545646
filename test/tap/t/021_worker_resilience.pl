# The crid block reserver against what can go wrong around it: hostile
# settings and objects of the registry database's owner, settings that are
# wrong only together after a reload, a registry that fails, a lock held on
# it, and a registry database that does not exist. Minting never stops for
# longer than the cause lasts, each cause is logged once, and the timeout
# error's hint names the cause.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

# Blocks of crid.block_size whatever the rate (crid.max_blocks_per_second =
# 0): the failures below must be met once a loop used up the reserve, and
# blocks grown for the fast loops would make that reserve large. Minting
# that must succeed waits up to 30 s for a block (a loaded machine can stall
# the worker for seconds); the sessions that must time out set 1 or 2 s.
my $node = crid_node('worker_resilience',
	conf => "crid.registry_database = 'registry'\ncrid.block_size = 1000\ncrid.threshold = 400\n"
	  . "crid.allocation_timeout = '30s'\ncrid.max_blocks_per_second = 0\n",
	start => { fail_ok => 0 });
$node->safe_psql('postgres', q{CREATE ROLE alice LOGIN; CREATE DATABASE registry OWNER alice});
$node->safe_psql('registry', 'CREATE EXTENSION crid');

# Enough ids that the worker must reserve several blocks meanwhile.
sub mints
{
	my ($count) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT count(DISTINCT crid_next()) = $count FROM generate_series(1, $count)");
	return $ret == 0 && $out eq 't';
}
sub restart_worker
{
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver'");
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)") if $pid;
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'crid block reserver' AND pid <> 0"
		  . ($pid ? " AND pid <> $pid" : ''))
	  or die 'the worker did not come back';
}
sub log_since
{
	my ($offset) = @_;
	return substr(slurp_file($node->logfile), $offset);
}
sub count_of
{
	my ($text, $pattern) = @_;
	my @hits = $text =~ /$pattern/g;
	return scalar @hits;
}

# --- The registry database's owner: settings and objects --------------------
# Everything alice may do as the owner of the registry database, none of
# which may change what the superuser worker runs or stop it.
$node->safe_psql('registry', q{
SET ROLE alice;
ALTER DATABASE registry SET default_transaction_read_only = on;
ALTER DATABASE registry SET statement_timeout = '1ms';
ALTER DATABASE registry SET lock_timeout = '1ms';
ALTER DATABASE registry SET idle_in_transaction_session_timeout = '1ms';
ALTER DATABASE registry SET default_transaction_isolation = 'serializable';
ALTER DATABASE registry SET synchronous_commit = off;
ALTER DATABASE registry SET search_path = public, pg_catalog;
ALTER DATABASE registry SET exit_on_error = on;
CREATE TABLE public.hijack_log (what text);
GRANT INSERT ON public.hijack_log TO PUBLIC;
CREATE FUNCTION public.crid_allocate(ts bigint, block_size bigint, x int DEFAULT 0) RETURNS bigint
    LANGUAGE sql AS $$ INSERT INTO public.hijack_log VALUES ('crid_allocate') RETURNING 0::bigint $$;
CREATE FUNCTION public.int8pl_trap(bigint, bigint) RETURNS bigint
    LANGUAGE sql AS $$ INSERT INTO public.hijack_log VALUES ('+') RETURNING $1 OPERATOR(pg_catalog.+) $2 $$;
CREATE OPERATOR public.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.int8pl_trap);
CREATE FUNCTION public.quote_ident(name) RETURNS text
    LANGUAGE sql AS $$ INSERT INTO public.hijack_log VALUES ('quote_ident') RETURNING pg_catalog.quote_ident($1::text) $$;
});
$node->safe_psql('postgres', 'SET ROLE alice; ALTER DATABASE registry WITH ALLOW_CONNECTIONS false');
restart_worker();
ok(mints(20000), "the worker reserves although the owner set read-only, timeouts, serializable, "
	  . "a search_path, exit_on_error and ALLOW_CONNECTIONS false, and planted crid_allocate, + and quote_ident");
$node->safe_psql('postgres', 'ALTER DATABASE registry WITH ALLOW_CONNECTIONS true');
# The owner's 1 ms statement_timeout and exit_on_error would fail this check
# itself on a loaded machine: the connection's own options take precedence.
is( $node->safe_psql(
		'registry', 'SELECT count(*) FROM public.hijack_log',
		connstr => $node->connstr('registry')
		  . " options='-c statement_timeout=0 -c lock_timeout=0 -c default_transaction_read_only=off'"),
	'0',
	'none of the planted objects ran');
is($node->safe_psql('postgres', "SELECT value FROM crid_stats() WHERE metric = 'registry_failures'"), '0',
	'and no reservation failed');
$node->safe_psql('postgres', 'ALTER DATABASE registry RESET ALL');

# --- Settings wrong only together, after a reload -----------------------------
my $offset = -s $node->logfile;
$node->append_conf('postgresql.conf', "crid.block_size = 1000\ncrid.threshold = 5000\n");
$node->reload;
ok(mints(30000), 'crid.block_size = 1000 with crid.threshold = 5000 after a reload: minting goes on');
like(log_since($offset), qr/WARNING:  crid\.threshold \(5000\) is outside 0 to crid\.block_size \(1000\); using 1000/,
	'with a WARNING naming both settings');
is(count_of(log_since($offset), qr/crid\.threshold \(5000\)/), 1, 'said once');
$node->append_conf('postgresql.conf', "crid.threshold = 400\n");
$node->reload;

# --- A failing registry --------------------------------------------------------
# A constraint no reservation can satisfy: every attempt fails alike.
$offset = -s $node->logfile;
$node->safe_psql('registry', 'ALTER TABLE crid_allocations ADD CONSTRAINT broken CHECK (next_seq < 0) NOT VALID');
my ($ret, $out, $err) =
  $node->psql('postgres', "SET crid.allocation_timeout = '2s'; SELECT count(crid_next()) FROM generate_series(1, 1000000)");
isnt($ret, 0, 'a registry where every reservation fails: crid_next fails after the timeout');
like($err, qr/could not reserve a block/, 'saying the worker could not reserve');
like($err, qr/DETAIL:  .*violates check constraint "broken"/, 'with its last error');
like($err, qr/HINT:  The worker retries with a growing pause/, 'and a hint for that cause');
($ret, $out, $err) = $node->psql('postgres', "SET crid.allocation_timeout = '2s'; SELECT crid_next()");
isnt($ret, 0, 'still failing a moment later');
is(count_of(log_since($offset), qr/crid: could not reserve a block/), 1,
	'the repeated failure is logged once');
$node->safe_psql('registry', 'ALTER TABLE crid_allocations DROP CONSTRAINT broken');
$node->reload;    # a reload ends the worker's pause at once
$node->poll_query_until('postgres', 'SELECT crid_next() > 0') or die 'generation did not resume';
ok(mints(5000), 'the registry fixed: minting resumes');
like(log_since($offset), qr/crid: reserving blocks again/, 'and the log says so');

# --- A lock on the registry table ----------------------------------------------
my $locker = $node->background_psql('registry');
$locker->query_safe('BEGIN; LOCK TABLE crid_allocations IN EXCLUSIVE MODE');
# The waiter waits the file's 30 s, long enough for the poll to see it on a
# loaded machine; it is cancelled once seen.
my $waiter = $node->background_psql('postgres', on_error_stop => 0);
$waiter->query_until(qr/started/, "\\echo started\nSELECT count(crid_next()) FROM generate_series(1, 1000000);\n");
ok( $node->poll_query_until('postgres',
		"SELECT wait_event_type = 'Extension' FROM pg_stat_activity WHERE query LIKE 'SELECT count(crid_next())%'"),
	'a crid_next() waiting for a block shows the Extension wait event');
($ret, $out, $err) = $node->psql('postgres',
	"SET crid.allocation_timeout = '2s'; SELECT count(crid_next()) FROM generate_series(1, 1000000)");
like($err, qr/waiting for a lock in the registry database/, 'the timeout names the lock the worker waits for');
like($err, qr/HINT:  A session in database "registry" holds a lock on crid_allocations/, 'and says where to look');
$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT count(crid_next())%'");
$waiter->quit;
$locker->query_safe('COMMIT');
$locker->quit;
ok(mints(5000), 'the lock released: minting resumes');

# --- A registry database that does not exist -----------------------------------
$node->append_conf('postgresql.conf', "crid.registry_database = 'later'\n");
$offset = -s $node->logfile;
$node->restart;
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'crid block reserver' AND datid IS NULL")
  or die 'the worker does not wait for the database';
($ret, $out, $err) = $node->psql('postgres', "SET crid.allocation_timeout = '1s'; SELECT crid_next()");
like($err, qr/the registry database does not exist/, 'crid_next names the cause');
like($err, qr/HINT:  Create database "later"/, 'and the way out');
# The worker that waits has checked for the database again (after 1 s,
# then 2 s more) once it has lived 4 s: until then no other worker may start
# and fail to connect.
ok( $node->poll_query_until(
		'postgres', "SELECT clock_timestamp() - backend_start > interval '4 s' FROM pg_stat_activity
		             WHERE backend_type = 'crid block reserver' AND datid IS NULL"),
	'the worker waiting for the database has lived through several of its checks');
my $log = log_since($offset);
is(count_of($log, qr/FATAL:  database "later" does not exist/), 1, 'the missing database is a FATAL once, not every second');
is(count_of($log, qr/LOG:  crid: database "later" \(crid\.registry_database\) does not exist/), 1,
	'and the worker says once that it waits for it');
$node->safe_psql('postgres', 'CREATE DATABASE later');
$node->safe_psql('later', 'CREATE EXTENSION crid');
$node->poll_query_until('postgres', 'SELECT crid_next() > 0') or die 'generation did not resume';
like(log_since($offset), qr/crid: database "later" exists now/, 'the worker noticed the database');
ok(mints(5000), 'and minting works');

done_testing();
