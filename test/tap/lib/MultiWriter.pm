# Servers that write the same tables and replicate each other, for crid's
# multi-writer TAP tests: PostgreSQL's own logical replication with
# origin = none on 16 and later, pglogical with forward_origins = '{}' on 15
# (Debian's postgresql-15-pglogical). Every server subscribes to every other
# one, for the tables of one schema.
package MultiWriter;

use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More ();
use Time::HiRes qw(usleep);
use Exporter 'import';

our @EXPORT =
  qw(machinery writer_conf mesh pause resume wait_until apply_errors log_offsets log_since log_shows logs_sqlstate);

# 'native' (CREATE SUBSCRIPTION ... WITH (origin = none)) or 'pglogical':
# what the PostgreSQL the tests run with has (its pg_config is on the PATH
# of TAP tests), known before any server is made.
my $machinery;
sub machinery
{
	return $machinery if $machinery;
	my $version = `pg_config --version`;
	my ($major) = $version =~ /PostgreSQL (\d+)/ or die "cannot read pg_config --version: $version";
	$machinery = $major >= 16 ? 'native' : 'pglogical';
	return $machinery;
}

# postgresql.conf lines of a writer: logical decoding, workers and slots
# for a subscription to each other server (three publications), crid
# preloaded, and pglogical beside it on 15. Its log gives each message's
# SQLSTATE after the severity ("ERROR:  23505: ..."), so that a test can
# tell one kind of failure from another (logs_sqlstate) without reading
# words, which differ between releases and locales.
sub writer_conf
{
	my $libraries = machinery() eq 'pglogical' ? 'crid,pglogical' : 'crid';
	my $conf = '';
	# Releases that check output plugins against output_plugin_libraries
	# (Debian's 15.20 does) must name pglogical's.
	my $bindir = `pg_config --bindir`;
	chomp $bindir;
	if (machinery() eq 'pglogical' && `"$bindir/postgres" --describe-config` =~ /^output_plugin_libraries\t/m)
	{
		$conf .= "output_plugin_libraries = 'pgoutput, test_decoding, pglogical_output'\n";
	}
	return $conf . <<"EOF";
shared_preload_libraries = '$libraries'
log_error_verbosity = verbose
wal_level = logical
max_replication_slots = 16
max_wal_senders = 16
max_worker_processes = 24
max_logical_replication_workers = 12
max_sync_workers_per_subscription = 1
EOF
}

sub dsn
{
	my ($node) = @_;
	return sprintf('host=%s port=%d dbname=postgres', $node->host, $node->port);
}

# Every server of `servers` publishes the tables of `schema` under the name
# `name` and subscribes to the same from every other one, changes that
# came from elsewhere left out (origin = none, forward_origins = '{}') and
# no initial copy; returns once every subscription streams, so that a row
# written from then on reaches every server. Subscription names:
# <name>_<subscriber>_<publisher>.
sub mesh
{
	my ($name, $schema, @servers) = @_;
	my $kind = machinery();
	for my $s (@servers)
	{
		if ($kind eq 'native')
		{
			$s->safe_psql('postgres', "CREATE PUBLICATION $name FOR TABLES IN SCHEMA $schema");
		}
		else
		{
			$s->safe_psql('postgres', sprintf(q{
CREATE EXTENSION IF NOT EXISTS pglogical;
SELECT pglogical.create_node(node_name := '%s', dsn := '%s')
WHERE NOT EXISTS (SELECT FROM pglogical.local_node);
SELECT pglogical.create_replication_set('%s');
SELECT pglogical.replication_set_add_all_tables('%s', ARRAY['%s']);}, $s->name, dsn($s), $name, $name, $schema));
		}
	}
	my @subscriptions;
	for my $sub (@servers)
	{
		for my $pub (grep { $_ != $sub } @servers)
		{
			my $subname = join('_', $name, $sub->name, $pub->name);
			push @subscriptions, [ $sub, $subname ];
			if ($kind eq 'native')
			{
				$sub->safe_psql('postgres', sprintf(
					"CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s WITH (origin = none, copy_data = false)",
					$subname, dsn($pub), $name));
			}
			else
			{
				$sub->safe_psql('postgres', sprintf(q{
SELECT pglogical.create_subscription(subscription_name := '%s', provider_dsn := '%s',
    replication_sets := ARRAY['%s'], synchronize_structure := false, synchronize_data := false,
    forward_origins := '{}')}, $subname, dsn($pub), $name));
			}
		}
	}
	for my $s (@subscriptions)
	{
		my ($node, $subname) = @$s;
		# Native: the apply worker runs (its slot was made by CREATE
		# SUBSCRIPTION). pglogical: the subscriber makes its slot on the
		# publisher when it starts, and says 'replicating' after that.
		my $query =
		  $kind eq 'native'
		  ? "SELECT count(*) = 1 FROM pg_stat_subscription WHERE subname = '$subname' AND pid IS NOT NULL"
		  : "SELECT status = 'replicating' FROM pglogical.show_subscription_status('$subname')";
		wait_until($node, $query, 't', 120) or die "subscription $subname does not stream\n";
	}
	return map { $_->[1] } @subscriptions;
}

# Stops the apply worker of subscription `subname` of `node` and waits until
# it stopped: what the publisher writes meanwhile waits in its slot.
sub pause
{
	my ($node, $subname) = @_;
	if (machinery() eq 'native')
	{
		$node->safe_psql('postgres', "ALTER SUBSCRIPTION $subname DISABLE");
		wait_until($node, "SELECT count(*) FROM pg_stat_subscription WHERE subname = '$subname' AND pid IS NOT NULL",
			'0', 120) or die "subscription $subname does not stop\n";
	}
	else
	{
		$node->safe_psql('postgres', "SELECT pglogical.alter_subscription_disable('$subname', true)");
		wait_until($node, "SELECT status FROM pglogical.show_subscription_status('$subname')", 'disabled', 120)
		  or die "subscription $subname does not stop\n";
	}
}

# Starts it again.
sub resume
{
	my ($node, $subname) = @_;
	$node->safe_psql('postgres',
		machinery() eq 'native'
		? "ALTER SUBSCRIPTION $subname ENABLE"
		: "SELECT pglogical.alter_subscription_enable('$subname', true)");
}

# Polls `query` on `node` once a second (not ten times: the machine may be
# busy applying) until it returns `expected`, for at most `seconds`.
# Returns true when it did, false (with the last output as a diagnostic)
# when the time ran out.
sub wait_until
{
	my ($node, $query, $expected, $seconds) = @_;
	my $deadline = time() + $seconds;
	my $out = '';
	while (1)
	{
		my ($ret, $stdout, $stderr) = $node->psql('postgres', $query);
		$out = $ret == 0 ? $stdout : "error: $stderr";
		return 1 if $ret == 0 && $stdout eq $expected;
		last if time() > $deadline;
		usleep(1_000_000);
	}
	Test::More::diag(sprintf("%s: %s gave %s, not %s, for %d s", $node->name, $query, $out, $expected, $seconds));
	return 0;
}

# The size of each server's log now, to read what it logged from there on.
sub log_offsets
{
	my (@servers) = @_;
	return { map { ($_->name => -s $_->logfile) } @servers };
}

# What `node` logged since `offsets` were taken.
sub log_since
{
	my ($node, $offsets) = @_;
	return slurp_file($node->logfile, $offsets->{ $node->name } || 0);
}

# Whether `node` logs a line matching `pattern` (since `offsets`) within
# `seconds`.
sub log_shows
{
	my ($node, $pattern, $offsets, $seconds) = @_;
	my $deadline = time() + $seconds;
	while (1)
	{
		return 1 if log_since($node, $offsets) =~ $pattern;
		return 0 if time() > $deadline;
		usleep(500_000);
	}
}

# Whether `node` logs a message of `severity` (ERROR, LOG, ...) with
# SQLSTATE `sqlstate` (since `offsets`) within `seconds`: a writer's log
# gives the SQLSTATE after the severity (writer_conf).
sub logs_sqlstate
{
	my ($node, $severity, $sqlstate, $offsets, $seconds) = @_;
	return log_shows($node, qr/\b\Q$severity\E:  \Q$sqlstate\E: /, $offsets, $seconds);
}

# The lines of what `node` logged since `offsets` at ERROR or above: an
# apply worker that failed (a duplicate key, a crid refusal) says so there.
# By severity only, not by the wording of a message, which changes between
# releases: conflicts that are resolved without an ERROR are the counters'
# (pg_stat_subscription_stats on 18) and the rows' to show.
sub apply_errors
{
	my ($node, $offsets) = @_;
	return grep { /\b(ERROR|FATAL|PANIC):/ } split /\n/, log_since($node, $offsets);
}

1;
