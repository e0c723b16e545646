# The worker's session is its own: the owner of the registry database sets
# every setting a database default can steer (ALTER DATABASE ... SET role,
# session_authorization, search_path, read-only transactions, timeouts,
# serializable isolation) and the server restarts. The block reserver
# applies those defaults when it connects; it must pin its own values over
# them, so crid_next() keeps minting in another database, new blocks are
# reserved, and the snowflake node lease rounds run on.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('worker_session', open => 0, conf => qq{
crid.registry_database = 'reg'
crid.node_id = 'lease'
crid.snowflake_nodes = '0-7'
});
$node->safe_psql('postgres', 'CREATE ROLE reg_owner LOGIN');
$node->safe_psql('postgres', 'CREATE DATABASE reg OWNER reg_owner');
$node->safe_psql('reg', 'CREATE EXTENSION crid');
registry_open($node, 'reg');
like($node->safe_psql('postgres', 'SELECT crid_next()'), qr/^\d+$/, 'crid_next() mints before the defaults');

# Every default the database's owner may set for it (PGC_USERSET ones, and
# role and session_authorization, which apply before the worker runs any
# SQL). transaction_timeout exists from PostgreSQL 17.
my @defaults = (
	q{role = reg_owner},
	q{session_authorization = reg_owner},
	q{search_path = reg_owner},
	q{default_transaction_read_only = on},
	q{default_transaction_isolation = serializable},
	q{default_transaction_deferrable = on},
	q{statement_timeout = 1},
	q{lock_timeout = 1},
	q{idle_in_transaction_session_timeout = 1},
	q{idle_session_timeout = 1},
	q{application_name = 'not crid'},
	q{DateStyle = 'SQL, DMY'},
	q{IntervalStyle = 'sql_standard'},
	q{TimeZone = 'Pacific/Kiritimati'},
	q{extra_float_digits = -15},
	q{bytea_output = escape},
	q{row_security = off},
	q{transform_null_equals = on});
push @defaults, q{transaction_timeout = 1}
  if $node->safe_psql('postgres', q{SELECT count(*) FROM pg_settings WHERE name = 'transaction_timeout'}) eq '1';
# PL/pgSQL's settings too: once PL/pgSQL is loaded in the owner's session,
# they are its owner's to set.
push @defaults, q{plpgsql.extra_errors = 'all'};
for my $setting (@defaults)
{
	my ($out, $err);
	$node->psql('postgres', "DO \$\$BEGIN END\$\$; ALTER DATABASE reg SET $setting", stdout => \$out, stderr => \$err,
		extra_params => [ '-U', 'reg_owner' ]);
	is($err, '', "the database's owner sets $setting");
}
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = 'reg'}),
	'1', 'the defaults are recorded for the registry database');

my $log_offset = -s $node->logfile;
$node->restart;

# After the restart, every id comes from a block reserved by the new worker
# process, in its session steered by the defaults above.
my ($rc, $id, $err) = $node->psql('postgres', 'SELECT crid_next()');
like($id, qr/^\d+$/, 'crid_next() mints in another database after the restart');
is($err, '', '... without an error');
my $commits = $node->safe_psql('postgres',
	q{SELECT value FROM crid_stats() WHERE family = 'crid' AND metric = 'registry_commits'});
cmp_ok($commits, '>', 0, 'the worker reserved blocks after the restart');
like($node->safe_psql('postgres', 'SELECT snowflake_next()'), qr/^\d+$/, 'snowflake_next() mints on a leased node');
my $renewals = $node->safe_psql('postgres',
	q{SELECT value FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_renewals'});
ok($node->poll_query_until('postgres',
	qq{SELECT value > $renewals FROM crid_stats() WHERE family = 'snowflake' AND metric = 'lease_renewals'}),
	'the worker renews its node lease after the restart');

unlike(substr(slurp_file($node->logfile), $log_offset), qr/permission denied|read-only transaction|canceling statement/,
	'the worker logged no failure the defaults would cause');

# More ids than one block holds: the worker keeps reserving.
like($node->safe_psql('postgres', 'SELECT count(DISTINCT crid_next()) FROM generate_series(1, 30000)'),
	qr/^30000$/, 'the worker reserves block after block');

$node->stop;
done_testing();
