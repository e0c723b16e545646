# crid_backfill from the outside: a NOTICE per batch, progress another
# session watches while it runs, and a run cancelled mid-way that, resumed,
# ends with the same table as an uninterrupted run. No preloading needed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('backfill', preload => 0);
my $expression = 'uuid_generate_v7_deterministic(created_at, id)';
for my $t ('whole', 'cancelled')
{
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id bigint PRIMARY KEY, created_at timestamptz NOT NULL);
		INSERT INTO $t SELECT g, '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(1, 2000) g;
		ALTER TABLE $t ADD COLUMN new_id uuid;
	});
}

# Uninterrupted, with its NOTICEs: one per batch, then one at the end.
my ($stdout, $stderr);
$node->psql('postgres', "CALL crid_backfill('whole', 'new_id', '$expression', 250, '0')",
	stdout => \$stdout, stderr => \$stderr, on_error_die => 1);
my @batches = $stderr =~ /NOTICE:  crid_backfill whole\.new_id: batch (\d+), (\d+) rows done, (\d+) left, \d+ rows\/s, about (?:\d+:\d\d:\d\d|unknown time) left/g;
is(scalar(@batches) / 3, 8, 'a NOTICE for each of the 8 batches: rows done, left, rate and time left');
is("@batches[-3 .. -1]", '8 2000 0', 'the last one: 2000 rows done, 0 left');
like($stderr, qr/crid_backfill whole\.new_id: done, 2000 rows filled in 8 batches/, 'and a NOTICE when done');

# A slow run (a second between batches of 50: 40 s in all) in the background.
my ($bg_out, $bg_err) = ('', '');
my $run = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c',
	  "CALL crid_backfill('cancelled', 'new_id', '$expression', 50, '1 s')" ],
	'>', \$bg_out, '2>', \$bg_err);
my $progress = "SELECT rows_done FROM crid_backfill_progress WHERE relation = 'cancelled'::regclass AND state = 'running'";
ok($node->poll_query_until('postgres', "SELECT ($progress) >= 50"), 'another session sees the backfill running');
my $seen = $node->safe_psql('postgres', $progress);
ok($node->poll_query_until('postgres', "SELECT ($progress) > $seen"), "and its rows done growing past $seen");
is($node->safe_psql('postgres', "SELECT rows_done + rows_left = 2000 AND rows_per_second > 0 AND time_left IS NOT NULL
	FROM crid_backfill_progress WHERE relation = 'cancelled'::regclass"), 't',
	'with rows left, a rate and the time left');

# Cancel it mid-way.
my $pid = $node->safe_psql('postgres', "SELECT pid FROM crid_backfill_progress WHERE relation = 'cancelled'::regclass");
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$run->finish;
like($bg_err, qr/canceling statement due to user request/, 'the backfill was cancelled');
my ($filled, $state) = split /\|/, $node->safe_psql('postgres',
	"SELECT (SELECT count(new_id) FROM cancelled), state FROM crid_backfill_progress WHERE relation = 'cancelled'::regclass");
ok($filled > 0 && $filled < 2000 && $filled % 50 == 0, "mid-way: $filled rows filled, whole batches only");
is($state, 'interrupted', 'the progress view says interrupted');

# Resumed: it picks up after the last committed batch and ends as the
# uninterrupted run did.
$node->psql('postgres', "CALL crid_backfill('cancelled', 'new_id', '$expression', 50, '0')",
	stderr => \$stderr, on_error_die => 1);
like($stderr, qr/resuming after primary key \($filled\), @{[2000 - $filled]} rows to fill/, 'the resumed run says where it resumes');
is($node->safe_psql('postgres', 'SELECT count(*) FROM whole w FULL JOIN cancelled c USING (id)
	WHERE w.new_id IS DISTINCT FROM c.new_id OR c.new_id IS NULL'), '0',
	'cancelled and resumed ends identical to uninterrupted');
is($node->safe_psql('postgres', "SELECT state, rows_left FROM crid_backfill_progress WHERE relation = 'cancelled'::regclass"),
	'done|0', 'the progress view says done');

# A transaction open while the backfill runs, which inserts a row to fill and
# commits only after the backfill found nothing left: the backfill waits for
# it and fills its row in a final pass. The transaction (late) is held open
# by a lock that another (gate) holds; gate ends once the backfill is seen
# waiting.
$node->safe_psql('postgres', q{
	CREATE TABLE late (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, new_id uuid);
	INSERT INTO late SELECT g, '2026-01-01'::timestamptz + g * interval '1 s', NULL FROM generate_series(1, 500) g;
	CREATE TABLE gate ();
});
my $gate = psql_start($node->connstr('postgres') . ' application_name=gate',
	'BEGIN', 'LOCK TABLE gate', 'SELECT pg_sleep(3600)');
$node->poll_query_until('postgres', q{SELECT EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	WHERE a.application_name = 'gate' AND l.relation = 'gate'::regclass AND l.granted)}) or die 'gate did not lock';
my $late = psql_start($node->connstr('postgres') . ' application_name=late',
	"BEGIN; INSERT INTO late VALUES (1000, '2026-01-02', NULL); LOCK TABLE gate; COMMIT;");
$node->poll_query_until('postgres', q{SELECT EXISTS (SELECT FROM pg_stat_activity
	WHERE application_name = 'late' AND wait_event_type = 'Lock')}) or die 'late did not insert and wait';
my $backfill = psql_start($node->connstr('postgres') . ' application_name=late_backfill',
	"CALL crid_backfill('late', 'new_id', '$expression', 100, '0')");
$node->poll_query_until('postgres', q{SELECT EXISTS (SELECT FROM pg_stat_activity
	WHERE application_name = 'late_backfill' AND wait_event = 'PgSleep')})
  or die 'the backfill did not wait for the open transactions';
is($node->safe_psql('postgres', 'SELECT count(new_id) FROM late'), '500',
	'the backfill filled every row it sees, and waits for the transactions open at its end');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gate'});
eval { psql_finish($gate, 'gate') };
psql_finish($late, 'the late transaction');
psql_finish($backfill, 'the backfill');
like($backfill->{err}, qr/crid_backfill late\.new_id: nothing left; waiting for .* open now to end before a final pass/,
	'it says it waits');
like($backfill->{err}, qr/crid_backfill late\.new_id: done, 501 rows filled/, 'and is done with the late row too');
is($node->safe_psql('postgres', "SELECT count(*) FROM late WHERE new_id IS DISTINCT FROM $expression"), '0',
	'every row is filled, the one committed after the last pass included');
is($node->safe_psql('postgres', "SELECT state FROM crid_backfill_progress WHERE relation = 'late'::regclass"), 'done',
	'and the progress view says done');

$node->stop;
done_testing();
