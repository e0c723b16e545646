# Wrong settings stop the start: with crid preloaded, a crid.* value
# PostgreSQL refuses (its type, its range, its check hook), a crid.* name
# crid does not define, and a crid.registry whose options libpq refuses each
# stop the server start, and the log names the setting and what it takes
# (never the text of crid.registry, which may hold a password). A good value
# of each starts. A reload with bad values keeps the old ones: the server
# runs on and mints.
#
# The log is asserted to name the setting and the numbers or words of its
# range, never PostgreSQL's or libpq's sentences, whose wording differs
# between majors. One data directory serves every case: a bad line is
# appended, the start fails, and a good line for the same setting (later
# lines win) is appended before the next case.
use strict;
use warnings;
use File::Spec;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# A service that names two hosts and two ports, which only libpq's reading
# of the service file reveals: crid.registry = 'service=crid_two_hosts'
# must count them as libpq does. The hosts are socket directories that do
# not exist: the worker of the server that starts with it connects nowhere.
my $services = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir()) . '/pg_service.conf';
append_to_file($services,
	"[crid_two_hosts]\nhost=/nonexistent/crid-a,/nonexistent/crid-b\nport=5432,5433\ndbname=postgres\n");
$ENV{PGSERVICEFILE} = $services;

my $node = PostgreSQL::Test::Cluster->new('settings_at_start');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'\n");

# The log a failed start wrote.
sub log_of_failed_start
{
	my ($what) = @_;
	my $offset = -s $node->logfile || 0;
	ok(!$node->start(fail_ok => 1), "$what stops the server start");
	return substr(slurp_file($node->logfile), $offset);
}

# [bad line, the setting the log must name, what it takes (each on a line
# naming the setting), a good line for the same setting].
my @cases = (
	[ 'crid.snowflake_node_bits = 99',      'crid.snowflake_node_bits', [ 0, 16 ],          'crid.snowflake_node_bits = 12' ],
	[ 'crid.snowflake_sequence_bits = 99',  'crid.snowflake_sequence_bits', [ 1, 22 ],      'crid.snowflake_sequence_bits = 10' ],
	[ 'crid.timestamp_bits = 99',           'crid.timestamp_bits', [ 28, 40 ],              'crid.timestamp_bits = 32' ],
	[ 'crid.block_size = 0',                'crid.block_size', [ 1, 2147483647 ],           'crid.block_size = 5000' ],
	[ 'crid.max_blocks_per_second = 5000',  'crid.max_blocks_per_second', [ 0, 1000 ],      'crid.max_blocks_per_second = 8' ],
	[ q{crid.node_lease_ttl = '999999999'}, 'crid.node_lease_ttl', [ 1000, 3600000 ],       q{crid.node_lease_ttl = '45s'} ],
	[ q{crid.node_lease_ttl = '1h1s'},      'crid.node_lease_ttl', [ 1000, 3600000 ],       q{crid.node_lease_ttl = '1h'} ],
	[ q{crid.registry_timeout = '1 parsec'}, 'crid.registry_timeout', [ 100, 3600000 ],     q{crid.registry_timeout = '100ms'} ],
	[ q{crid.snowflake_nodes = '5-2'},      'crid.snowflake_nodes', [ 0, 65535 ],           q{crid.snowflake_nodes = '0-7'} ],
	[ q{crid.snowflake_nodes = '0-99999'},  'crid.snowflake_nodes', [ 0, 65535 ],           q{crid.snowflake_nodes = '0-7'} ],
	[ q{crid.node_id = 'leased'},           'crid.node_id', [ 0, 65535, -1, 'lease' ],      'crid.node_id = 3' ],
	[ 'crid.uuidv7_order = bogus',          'crid.uuidv7_order', [ 'server', 'backend' ],   'crid.uuidv7_order = backend' ],
	[ 'crid.time_predicates = maybe',       'crid.time_predicates', [ 'on', 'off' ],        'crid.time_predicates = off' ],
	[ 'crid.clock_wait_ms = -1',            'crid.clock_wait_ms', [ 0, 60000 ],             'crid.clock_wait_ms = 0' ]);
for my $case (@cases)
{
	my ($bad, $setting, $takes, $good) = @$case;
	$node->append_conf('postgresql.conf', "$bad\n");
	my $log = log_of_failed_start($bad);
	like($log, qr/\Q$setting\E/, "... naming $setting");
	for my $word (@$takes)
	{
		like($log, qr/\Q$setting\E[^\n]*(?<![\w-])\Q$word\E(?![\w-])/, "... and that it takes $word");
	}
	$node->append_conf('postgresql.conf', "$good\n");
}

# A misspelled crid.* name stops the start too (PostgreSQL alone would only
# warn and drop it), naming the name and the setting probably meant.
$node->append_conf('postgresql.conf', "crid.snowflake_node_bit = 11\n");
my $log = log_of_failed_start('a misspelled crid.* name');
like($log, qr/crid\.snowflake_node_bit\b(?!s)/, '... naming it');
like($log, qr/crid\.snowflake_node_bits/, '... and the setting meant');
$node->append_conf('postgresql.conf', "crid.snowflake_node_bits = 12\n");
# Later lines win, but the misspelled one stays in the file: comment it out.
my $conf = slurp_file($node->data_dir . '/postgresql.conf');
$conf =~ s/^crid\.snowflake_node_bit = 11$/#$&/m;
open(my $fh, '>', $node->data_dir . '/postgresql.conf') or die;
print $fh $conf;
close $fh;

# Several at once: each is named, so one round of fixes is enough.
$node->append_conf('postgresql.conf', "crid.block_size = -5\ncrid.uuidv7_order = sometimes\n");
$log = log_of_failed_start('two bad settings');
like($log, qr/crid\.block_size[^\n]*\b2147483647\b/, '... naming the first with its range');
like($log, qr/crid\.uuidv7_order[^\n]*\bbackend\b/, '... and the second with its values');
$node->append_conf('postgresql.conf', "crid.block_size = 5000\ncrid.uuidv7_order = backend\n");

# crid.registry: options libpq refuses stop the start, naming the setting
# and libpq's reason, never the password. libpq fills in what the string
# leaves out from the service file and the server's environment, as the
# worker's libpq would (this server inherits the test's PGHOST, so a string
# with hostaddrs names as many hosts).
my @registry_cases = (
	[ 'port=abc',                               'abc' ],
	[ 'port=99999',                             '99999' ],
	[ 'sslmode=bogus',                          'bogus' ],
	[ 'target_session_attrs=read-mostly',       'read-mostly' ],
	[ 'service=crid_no_such_service',           'crid_no_such_service' ],
	[ 'service=crid_two_hosts port=1,2,3',      'port' ],
	[ 'host=/nonexistent/a,/nonexistent/b port=1,2,3', 'port' ],
	[ 'host=a.example,b.example hostaddr=192.0.2.1,not-an-address', 'not-an-address' ]);
for my $case (@registry_cases)
{
	my ($options, $reason) = @$case;
	$node->append_conf('postgresql.conf', "crid.registry = '$options password=hunter2'\n");
	my $log = log_of_failed_start("crid.registry with $options");
	like($log, qr/crid\.registry/, '... naming crid.registry');
	like($log, qr/DETAIL:[^\n]*\Q$reason\E/, "... and libpq's reason, which names $reason");
	unlike($log, qr/hunter2/, '... never the password');
	unlike($log, qr/\Q$options\E/, '... nor the connection string') if $options =~ / /;
}

# Good values start: each setting's good line above, and a registry whose
# hosts and ports come from the service file (two of each).
$node->append_conf('postgresql.conf', "crid.registry = 'service=crid_two_hosts password=hunter2'\n");
my $offset = -s $node->logfile;
ok($node->start(fail_ok => 1), 'the good values start');
# The settings named, as they are now, in that order.
sub settings
{
	my $names = join(', ', map { "'$_'" } @_);
	return $node->safe_psql('postgres',
		"SELECT string_agg(current_setting(n), ' ' ORDER BY i) FROM unnest(ARRAY[$names]) WITH ORDINALITY s(n, i)");
}
is( settings(
		'crid.snowflake_node_bits', 'crid.snowflake_sequence_bits', 'crid.timestamp_bits', 'crid.block_size',
		'crid.node_lease_ttl', 'crid.registry_timeout', 'crid.snowflake_nodes', 'crid.node_id',
		'crid.uuidv7_order', 'crid.time_predicates', 'crid.clock_wait_ms'),
	'12 10 32 5000 1h 100ms 0-7 3 backend off 0',
	'each as the configuration says');
unlike(substr(slurp_file($node->logfile), $offset), qr/hunter2/, 'the password is in no log line');
$node->stop;

# --- a reload with bad values keeps the old ones ----------------------------------
$node->append_conf('postgresql.conf', "crid.registry = ''\ncrid.node_lease_ttl = '45s'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION crid');
registry_open($node);
my $before = $node->safe_psql('postgres',
	'SELECT snowflake_next(), crid_next(), uuid_generate_v7() IS NOT NULL');
like($before, qr/^\d+\|\d+\|t$/, 'the server mints');
my @bad_reload = (
	'crid.block_size = 0', q{crid.node_lease_ttl = '1h1s'}, q{crid.snowflake_nodes = '5-2'},
	'crid.uuidv7_order = bogus', 'crid.clock_wait_ms = -1', 'crid.snowflake_node_bits = 99');
$node->append_conf('postgresql.conf', join("\n", @bad_reload, 'crid.snowflake_node_bit = 11', ''));
$offset = -s $node->logfile;
$node->reload;
# The postmaster logs each refused line; once it named the last, the reload is done.
for my $setting ('crid.block_size', 'crid.node_lease_ttl', 'crid.snowflake_nodes', 'crid.uuidv7_order',
	'crid.clock_wait_ms', 'crid.snowflake_node_bits', 'crid.snowflake_node_bit')
{
	ok(eval { $node->wait_for_log(qr/\Q$setting\E(?!\w)/, $offset); 1 }, "the reload logs $setting");
}
is( settings(
		'crid.block_size', 'crid.node_lease_ttl', 'crid.snowflake_nodes', 'crid.uuidv7_order',
		'crid.clock_wait_ms', 'crid.snowflake_node_bits'),
	'5000 45s 0-7 backend 0 12',
	'the old values stay');
my ($sf_before, $crid_before) = split /\|/, $before;
is($node->safe_psql('postgres',
		"SELECT snowflake_next(3) > $sf_before, crid_next() > $crid_before, uuid_generate_v7() IS NOT NULL"),
	't|t|t', 'the server runs on and mints, every id above the ones before the reload');
$node->stop;

done_testing();
