# A registry database, or its extension, created while the server runs:
# the first crid_next() after CREATE DATABASE and CREATE EXTENSION crid waits
# for the worker to find them, within crid.allocation_timeout, however long
# the worker's own pause has grown meanwhile. No restart, and no hint to
# restart while it waits.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

# A generous timeout: this test asserts that the first id comes, never how
# fast.
my $node = crid_node('registry_created_later',
	conf => "crid.registry_database = 'later'\ncrid.allocation_timeout = '20s'\n",
	open => 0);
my $worker_waits_for_database = q{
SELECT count(*) = 1 FROM pg_stat_activity
 WHERE backend_type = 'crid block reserver' AND datid IS NULL};

# --- The database does not exist --------------------------------------------
$node->poll_query_until('postgres', $worker_waits_for_database)
  or die 'the worker does not wait for the database';
is($node->safe_psql('postgres', 'SELECT state FROM crid_registry_status()'),
	'no_database', 'the worker says it waits for the registry database');
my ($ret, $out, $err) = $node->psql('postgres', q{SET crid.allocation_timeout = '1s'; SELECT crid_next()});
isnt($ret, 0, 'a crid_next() with a short timeout fails meanwhile');
like($err, qr/HINT:  Create database "later" and run CREATE EXTENSION crid in it/, 'naming what to create');
unlike($err, qr/HINT:  [^\n]*\brestart the server/, 'and no restart');

# The worker's pause between its own checks grows (1 s, 2 s, 4 s, ... up
# to a minute): once it has lived past 32 s, its next check of its own is
# more than crid.allocation_timeout away.
$node->poll_query_until('postgres', qq{
SELECT clock_timestamp() - backend_start > interval '33 s' FROM pg_stat_activity
 WHERE backend_type = 'crid block reserver' AND datid IS NULL})
  or die 'the worker waiting for the database did not live on';
$node->safe_psql('postgres', 'CREATE DATABASE later');
$node->safe_psql('later', 'CREATE EXTENSION crid');
($ret, $out, $err) = $node->psql('later', 'SELECT crid_next() > 0');
is($ret, 0, 'the first crid_next() after CREATE DATABASE and CREATE EXTENSION succeeds')
  or diag($err);
is($out, 't', 'with an id');
is($node->safe_psql('later', 'SELECT count(DISTINCT crid_next()) FROM generate_series(1, 5000)'),
	'5000', 'and minting goes on');

# --- The database exists, the extension does not ------------------------------
$node->safe_psql('postgres', 'CREATE DATABASE later_too');
$node->append_conf('postgresql.conf', "crid.registry_database = 'later_too'\n");
$node->restart;
$node->poll_query_until('postgres', "SELECT state = 'no_extension' FROM crid_registry_status()")
  or die 'the worker did not find the database without the extension';
# Each attempt that finds no extension grows the worker's pause (200 ms,
# 400 ms, ... up to 10 s): let it grow past a few seconds.
$node->poll_query_until('postgres', q{
SELECT clock_timestamp() - backend_start > interval '8 s' FROM pg_stat_activity
 WHERE backend_type = 'crid block reserver' AND datname = 'later_too'})
  or die 'the worker connected to the database did not live on';
$node->safe_psql('later_too', 'CREATE EXTENSION crid');
($ret, $out, $err) = $node->psql('later_too', 'SELECT crid_next() > 0');
is($ret, 0, 'the first crid_next() after CREATE EXTENSION in the registry database succeeds')
  or diag($err);
is($out, 't', 'with an id');

done_testing();
