# crid ids: never reissued across concurrent sessions, an outside node that
# speaks the registry protocol in plain SQL, a terminated backend, a kill -9
# crash, an immediate shutdown, and a pg_dump/restore of the registry; a
# missing registry database is a clear error until it is fixed; blocks grow
# when a gene loop drains them faster than blocks of crid.block_size last.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

# Small blocks, so every test below goes through many reservations.
my $node = crid_node('crid_blocks',
	conf => "crid.block_size = 1000\ncrid.threshold = 400\nrestart_after_crash = on\ncrid.allocation_timeout = '60s'\ncrid.max_blocks_per_second = 4\n");
$node->safe_psql('postgres', 'CREATE TABLE ids (id bigint, source text)');

# A trap for the superuser worker: an exact-type quote_ident(name) in public,
# as any role with CREATE there could plant it. The worker must never call it.
$node->safe_psql('postgres', q{
CREATE TABLE hijack_log (at timestamptz);
CREATE FUNCTION public.quote_ident(name) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.hijack_log VALUES (now());
    RETURN pg_catalog.quote_ident($1::text);
END $$;
});

# Ids a session printed (not stored), so those of a session that dies count too.
sub minted_by_psql
{
	my ($count) = @_;
	my $out = $node->safe_psql('postgres', "SELECT crid_next() FROM generate_series(1, $count)");
	return split /\n/, $out;
}
my $ids = id_tally();

# Three sessions minting while an outside node reserves blocks of the same
# seconds through the registry protocol in plain SQL and mints from them.
my $outside = q{
DO $$
DECLARE
    second bigint;
    start bigint;
BEGIN
    FOR i IN 1 .. 300 LOOP
        second := floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00'));
        INSERT INTO crid_allocations AS a (ts, next_seq) VALUES (second, 100)
            ON CONFLICT (ts) DO UPDATE SET next_seq = a.next_seq + EXCLUDED.next_seq
            RETURNING next_seq - 100 INTO start;
        INSERT INTO ids SELECT (second << 32) | (start + g), 'outside' FROM generate_series(0, 99) g;
        COMMIT;
    END LOOP;
END $$};
my $session = sub { "INSERT INTO ids SELECT crid_next(), 'session $_[0]' FROM generate_series(1, 100000)" };
run_in_parallel($node, $session->(1), $session->(2), $session->(3), $outside);
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM ids'), '330000|330000',
	'three sessions and an outside node on one registry: 330,000 ids, all distinct');
is($node->safe_psql('postgres', 'SELECT count(*) FROM hijack_log'), '0',
	'the worker never ran a function planted in public');
$ids->add($node->safe_psql('postgres', 'SELECT id FROM ids'));

# A terminated backend: the ids it was handed are never handed out again.
my $victim = $node->background_psql('postgres');
my $victim_ids = $victim->query_safe('SELECT string_agg(crid_next()::text, E\'\n\') FROM generate_series(1, 5000)');
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($victim_pid)");
eval { $victim->quit };
$ids->add($victim_ids);
$ids->add(minted_by_psql(20000));
is($ids->repeats, 0, 'after a terminated backend: nothing reissued');

# A crash: kill -9 of a backend makes the postmaster rebuild shared memory;
# what was left of the reserved blocks is a gap, never reused.
$ids->add(minted_by_psql(3000));
my $crashing = $node->background_psql('postgres');
my $crash_pid = $crashing->query_safe('SELECT pg_backend_pid()');
my $log_offset = -s $node->logfile;
kill 'KILL', $crash_pid;
eval { $crashing->quit };
# A poll could be answered before the postmaster noticed the crash: wait for
# the log to show the restart, and its end.
$node->wait_for_log(qr/all server processes terminated; reinitializing.*database system is ready to accept connections/s,
	$log_offset);
$ids->add(minted_by_psql(20000));
is($ids->repeats, 0, 'after kill -9 and crash recovery: nothing reissued');

# An immediate shutdown (no checkpoint) and a restart.
$ids->add(minted_by_psql(3000));
$node->stop('immediate');
$node->start;
$ids->add(minted_by_psql(20000));
is($ids->repeats, 0, 'after an immediate shutdown: nothing reissued');

# The worker stopped: the postmaster starts it again within a second, and
# callers that run out of ids meanwhile wait for it (crid.allocation_timeout).
my $worker_pid = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'crid block reserver'");
$node->safe_psql('postgres', "SELECT pg_terminate_backend($worker_pid)");
$ids->add(minted_by_psql(30000));
is($ids->repeats, 0, 'worker terminated: generation resumes, nothing reissued');
# Waited for: blocks sized for the rate may hold all 30,000 ids, so the
# minting above need not have waited for the new worker.
ok( $node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'crid block reserver' AND pid <> $worker_pid"),
	'a new worker took over');

# pg_dump keeps the registry (an extension configuration table); a server
# whose registry is the restored copy continues after every reserved block.
# The worker may reserve while pg_dump runs: the dump takes the snapshot of
# a session that reads the rows in it, so both see the same rows.
my $dump = $node->basedir . '/registry.dump';
my $registry_rows = q{SELECT string_agg(ts || ':' || next_seq, ' ' ORDER BY ts) FROM crid_allocations};
my $snapshot_holder = $node->background_psql('postgres');
my $snapshot = $snapshot_holder->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT pg_export_snapshot()');
my $dumped_rows = $snapshot_holder->query_safe($registry_rows);
$node->command_ok([ 'pg_dump', '-Fc', "--snapshot=$snapshot", '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump of the registry database');
$snapshot_holder->query_safe('COMMIT');
$snapshot_holder->quit;
$node->safe_psql('postgres', 'CREATE DATABASE restored');
# The restored registry table is new to crid: it refuses the seconds around
# its creation (it may be a re-created one that lost reservations), and the
# rows pg_restore copies in are writes like any other. Restore once the
# newest second of the dump lies well before that.
$node->poll_query_until('postgres',
	"SELECT floor(extract(epoch FROM clock_timestamp() - timestamptz '2026-01-01 00:00:00+00')) > max(ts) + 3 FROM crid_allocations")
  or die 'the clock did not move on';
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore into a new database');
isnt($dumped_rows, '', 'the registry had rows when it was dumped');
is($node->safe_psql('restored', $registry_rows), $dumped_rows, 'the registry rows came along, every second and next_seq');
$node->append_conf('postgresql.conf', "crid.registry_database = 'restored'\n");
$node->restart;
$ids->add($node->safe_psql('restored', 'SELECT crid_next() FROM generate_series(1, 20000)'));
is($ids->repeats, 0, 'generation from the restored registry: nothing reissued');

# A registry database that does not exist: a clear error within the timeout.
$node->append_conf('postgresql.conf', "crid.registry_database = 'registry_later'\ncrid.allocation_timeout = '1s'\n");
$node->restart;
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT crid_next()');
isnt($ret, 0, 'no registry database: crid_next fails');
like($err, qr/no block within crid\.allocation_timeout \(1000 ms\)/, 'within the timeout');
like($err, qr/registry database does not exist|not running|still connecting/, 'saying the worker cannot reach the registry');
like($err, qr/registry_later/, 'and naming the database');

# The database exists but has no crid extension.
$node->safe_psql('postgres', 'CREATE DATABASE registry_later');
$node->poll_query_until('postgres',
	"SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'crid block reserver' AND datname = 'registry_later'")
  or die 'the worker did not connect';
$node->poll_query_until('postgres', "SELECT state = 'no_extension' FROM crid_registry_status()")
  or die 'the worker did not look for the extension';
($ret, $out, $err) = $node->psql('postgres', 'SELECT crid_next()');
like($err, qr/does not have the crid extension/, 'registry database without the extension: said so');

# Fixed: generation resumes.
$node->safe_psql('registry_later', 'CREATE EXTENSION crid');
$node->poll_query_until('postgres', 'SELECT crid_next() > 0') or die 'generation did not resume';
$ids->add(minted_by_psql(5000));
is($ids->repeats, 0, 'once the registry exists, generation resumes without reissuing');

# A gene of 4 bits takes up to 16 registry ids per id. With blocks of 16
# the ring holds 32 such ids, far fewer than one registry commit lasts, so
# the worker has to grow its blocks for the rate the loop uses registry ids
# at: the ids must stay distinct and carry their gene, and the blocks
# reserved meanwhile average more than 16. (A restart first: the ring would
# still hold blocks the loads above grew, and serve the loop from them.)
$node->safe_psql('postgres', "ALTER SYSTEM SET crid.block_size = 16");
$node->restart;
$node->poll_query_until('postgres', "SELECT current_setting('crid.block_size') = '16'")
  or die 'crid.block_size was not set';
my $reserved = q{SELECT string_agg(value::text, '|' ORDER BY metric) FROM crid_stats()
                 WHERE family = 'crid' AND metric IN ('blocks_reserved', 'ids_reserved')};
my ($blocks_before, $ids_before) = split /\|/, $node->safe_psql('postgres', $reserved);
my @gene_ids = split /\n/, $node->safe_psql('postgres', 'SELECT crid_next(5, 4) FROM generate_series(1, 100000)');
my ($blocks_after, $ids_after) = split /\|/, $node->safe_psql('postgres', $reserved);
is(scalar(grep { ($_ & 15) != 5 } @gene_ids), 0, 'crid_next(5, 4) from growing blocks: every id carries gene 5');
$ids->add(@gene_ids);
is($ids->repeats, 0, 'and none repeats an id minted before');
cmp_ok(($ids_after - $ids_before) / ($blocks_after - $blocks_before), '>', 16,
	'the worker reserved blocks larger than crid.block_size for the rate of the loop');
$node->safe_psql('postgres', "ALTER SYSTEM RESET crid.block_size; SELECT pg_reload_conf()");

# 330,000 + 5,000 + 20,000 + 3,000 + 20,000 + 3,000 + 20,000 + 30,000 + 20,000 + 5,000 + 100,000
is($ids->distinct, 556000, 'every id minted above was checked: 556,000, all distinct');
done_testing();
