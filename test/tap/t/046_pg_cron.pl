# crid's partition lifecycle scheduled with pg_cron (Debian's, preloaded
# beside crid, its jobs in background workers): two partition sets, one of
# UUIDv7 keys by day with a retention, one of crid ids by hour, each given
# two jobs with the same schedule, every minute, so that their runs start
# together and overlap. Rows wait in the default partitions before the
# first run, for now, for past times and, in the UUIDv7 set, for a day
# past the retention. After each job has run twice: no run failed, the
# default partitions are empty, every row sits in the partition of its
# interval, the rows past the retention are gone with their partition, and
# a row inserted through the DEFAULT lands in a partition of its own.
# Without pg_cron the test is skipped, or, under make test, fails.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('cron');
if (!$node->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_cron'}))
{
	plan skip_all => 'pg_cron is not installed' unless $ENV{CRID_REQUIRE_PREREQUISITES};
	fail('pg_cron is installed (make test requires it for this test)');
	done_testing();
	exit 1;
}
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'crid,pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 32
});
$node->restart;
registry_open($node);

$node->safe_psql('postgres', q{
CREATE EXTENSION pg_cron;
CREATE TABLE u_events (id uuid NOT NULL DEFAULT uuid_generate_v7() CHECK (crid_uuid_v7_check(id)), v text)
    PARTITION BY RANGE (id);
CREATE TABLE u_events_default PARTITION OF u_events DEFAULT;
CREATE TABLE c_events (id bigint NOT NULL DEFAULT crid_next() CHECK (id >= 0), v text)
    PARTITION BY RANGE (id);
CREATE TABLE c_events_default PARTITION OF c_events DEFAULT;
INSERT INTO u_events (v) SELECT 'now' FROM generate_series(1, 100);
INSERT INTO u_events (id, v) SELECT uuid_generate_v7(now() - interval '3 days'), 'past' FROM generate_series(1, 100);
INSERT INTO u_events (id, v) SELECT uuid_generate_v7(now() - interval '40 days'), 'retired' FROM generate_series(1, 100);
INSERT INTO c_events (v) SELECT 'now' FROM generate_series(1, 100);
INSERT INTO c_events (id, v)
SELECT crid_pack(now() - interval '3 hours', crid_reserve(now() - interval '3 hours', 1)), 'past'
  FROM generate_series(1, 100);
});
is($node->safe_psql('postgres', 'SELECT (SELECT count(*) FROM u_events_default) + (SELECT count(*) FROM c_events_default)'),
	500, 'before any run, every row waits in a default partition');

my $u_job = q{SELECT count(*) FROM crid_partition_maintain('public.u_events', '1 day', '2 days', retention => '30 days')};
my $c_job = q{SELECT count(*) FROM crid_partition_maintain('public.c_events', '1 hour', '3 hours')};
$node->safe_psql('postgres', qq{
SELECT cron.schedule('u_events a', '* * * * *', \$\$$u_job\$\$);
SELECT cron.schedule('u_events b', '* * * * *', \$\$$u_job\$\$);
SELECT cron.schedule('c_events a', '* * * * *', \$\$$c_job\$\$);
SELECT cron.schedule('c_events b', '* * * * *', \$\$$c_job\$\$);
});

# Two runs of each job: two minute boundaries, up to two minutes and a bit
# (a loaded machine may start them late), so the wait is long.
my $runs_done = q{
SELECT count(*) = 4 AND bool_and(n >= 2)
  FROM (SELECT jobid, count(*) AS n FROM cron.job_run_details
         WHERE status IN ('succeeded', 'failed') GROUP BY jobid) r};
my $ran = 0;
for (1 .. 3)
{
	last if $ran = $node->poll_query_until('postgres', $runs_done);
}
ok($ran, 'each of the four jobs ran twice');
is( $node->safe_psql('postgres', q{
SELECT coalesce(string_agg(j.jobname || ': ' || d.return_message, '; '), '')
  FROM cron.job_run_details d JOIN cron.job j USING (jobid) WHERE d.status <> 'succeeded'
   AND d.status IN ('failed', 'succeeded')}),
	'', 'no run failed, though the two jobs of a set started together');
$node->safe_psql('postgres', q{SELECT cron.unschedule(jobid) FROM cron.job});

is($node->safe_psql('postgres', 'SELECT (SELECT count(*) FROM u_events_default) + (SELECT count(*) FROM c_events_default)'),
	0, 'the default partitions are empty');
is( $node->safe_psql('postgres', q{SELECT v, count(*) FROM u_events GROUP BY v ORDER BY v}),
	"now|100\npast|100", 'the UUIDv7 rows past the retention went with their partition, the others stay');
is($node->safe_psql('postgres', q{SELECT v, count(*) FROM c_events GROUP BY v ORDER BY v}),
	"now|100\npast|100", 'every crid row stays');
# Each row's partition is named for the start of its interval (UTC), and
# none is the default.
is( $node->safe_psql('postgres', q{
SELECT count(*) FROM (
    SELECT tableoid::regclass::text AS part, to_char(uuid_v7_to_timestamptz(id) AT TIME ZONE 'UTC', 'YYYYMMDD') AS unit
      FROM u_events
    UNION ALL
    SELECT tableoid::regclass::text, to_char(crid_to_timestamptz(id) AT TIME ZONE 'UTC', 'YYYYMMDDHH24')
      FROM c_events) r
 WHERE part NOT LIKE '%_p' || unit}),
	0, 'every row sits in the partition of its day or hour');
is( $node->safe_psql('postgres', q{
INSERT INTO u_events (v) VALUES ('later');
INSERT INTO c_events (v) VALUES ('later');
SELECT count(*) FROM (SELECT tableoid FROM u_events WHERE v = 'later' UNION ALL
                      SELECT tableoid FROM c_events WHERE v = 'later') r
 WHERE tableoid IN ('u_events_default'::regclass, 'c_events_default'::regclass)}),
	0, 'a row inserted through the DEFAULT after the runs lands in a partition made ahead');

$node->stop;
done_testing();
