# A pgbouncer (Debian's package) for crid's TAP tests, on loopback in front
# of test servers: one database entry per alias, each with its server, pool
# mode and pool size; targets changed and reloaded (a failover behind it),
# restarted, and stopped at the end of the test. It runs as the test's OS
# user (pgbouncer refuses root, as PostgreSQL does) and trusts the users it
# is given, as the test servers trust theirs.
package PgBouncer;

use strict;
use warnings;
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More ();

my @started;    # every pgbouncer of this test, stopped at its end

# The binary, or a skip (a failure under make test, which installs it and
# sets CRID_REQUIRE_PREREQUISITES: a suite must not vanish from the count).
sub binary
{
	my ($bin) = grep { -x $_ } '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer';
	return $bin if $bin;
	Test::More::plan(skip_all => 'pgbouncer is not installed') unless $ENV{CRID_REQUIRE_PREREQUISITES};
	Test::More::fail('pgbouncer is installed (make test requires it for this test)');
	Test::More::done_testing();
	exit 1;
}

# A pgbouncer not started yet, letting in `users` (names) and the OS user
# (the test servers' superuser, its admin) without a password; `settings`
# adds lines to its [pgbouncer] section.
sub new
{
	my ($class, %opt) = @_;
	my $dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
	my $self = bless {
		bin       => binary(),
		dir       => $dir,
		port      => PostgreSQL::Test::Cluster::get_free_port(),
		users     => [ scalar getpwuid($<), @{ $opt{users} || [] } ],
		settings  => $opt{settings} || {},
		databases => {},
	}, $class;
	push @started, $self;
	return $self;
}

sub port    { return $_[0]{port} }
sub logfile { return "$_[0]{dir}/pgbouncer.log" }

# The database `alias` leads to database `dbname` ("postgres") of `node`,
# pooled in `pool_mode` with `pool_size` server connections at most.
# Takes effect at the next start or reload.
sub target
{
	my ($self, $alias, $node, %opt) = @_;
	$self->{databases}{$alias} = { node => $node, dbname => 'postgres', pool_mode => 'transaction', %opt };
	return;
}

# A libpq connection string to `alias` as `user`, on loopback.
sub connstr
{
	my ($self, $alias, $user) = @_;
	return "host=127.0.0.1 port=$self->{port} dbname=$alias user=$user";
}

sub write_config
{
	my ($self) = @_;
	my $dir = $self->{dir};
	open(my $users, '>', "$dir/userlist.txt") or die "cannot write $dir/userlist.txt: $!";
	print $users qq{"$_" ""\n} for @{ $self->{users} };
	close $users;
	my %settings = (
		listen_addr => '127.0.0.1',
		listen_port => $self->{port},
		unix_socket_dir => '',
		auth_type => 'trust',
		auth_file => "$dir/userlist.txt",
		admin_users => $self->{users}[0],
		pidfile => "$dir/pgbouncer.pid",
		logfile => "$dir/pgbouncer.log",
		max_client_conn => 200,
		# A server that refused a login is tried again a second later, not
		# fifteen: the failover of these tests takes seconds.
		server_login_retry => 1,
		%{ $self->{settings} });
	open(my $ini, '>', "$dir/pgbouncer.ini.new") or die "cannot write $dir/pgbouncer.ini.new: $!";
	print $ini "[databases]\n";
	for my $alias (sort keys %{ $self->{databases} })
	{
		my $d = $self->{databases}{$alias};
		printf $ini "%s = host=%s port=%d dbname=%s pool_mode=%s%s\n", $alias, $d->{node}->host, $d->{node}->port,
		  $d->{dbname}, $d->{pool_mode}, $d->{pool_size} ? " pool_size=$d->{pool_size}" : '';
	}
	print $ini "[pgbouncer]\n";
	print $ini "$_ = $settings{$_}\n" for sort keys %settings;
	close $ini;
	# One rename: a reload never reads half a file.
	rename("$dir/pgbouncer.ini.new", "$dir/pgbouncer.ini") or die "cannot rename $dir/pgbouncer.ini.new: $!";
	return;
}

sub pid
{
	my ($self) = @_;
	my $file = "$self->{dir}/pgbouncer.pid";
	return undef unless -e $file;
	chomp(my $pid = slurp_file($file));
	return $pid && kill(0, $pid) ? $pid : undef;
}

# Starts it (as a daemon) and waits until its admin console answers.
sub start
{
	my ($self) = @_;
	$self->write_config;
	PostgreSQL::Test::Utils::system_or_bail($self->{bin}, '-q', '-d', "$self->{dir}/pgbouncer.ini");
	my $admin = "host=127.0.0.1 port=$self->{port} dbname=pgbouncer user=$self->{users}[0]";
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return if system('psql', '-XAtq', '-d', $admin, '-c', 'SHOW VERSION', '-o', '/dev/null') == 0;
		select(undef, undef, undef, 0.1);
	}
	die "pgbouncer did not start on port $self->{port}: see " . $self->logfile . "\n";
}

# The signal that stops pgbouncer at once, every client and server
# connection closed: SIGTERM up to 1.22 (Debian 12 has 1.18), SIGQUIT from
# 1.23 on, where SIGTERM waits for every client to leave (a block reserver
# never does).
sub immediate_signal
{
	my ($self) = @_;
	my ($major, $minor) = `$self->{bin} --version` =~ /PgBouncer (\d+)\.(\d+)/;
	return defined $major && ($major > 1 || $minor >= 23) ? 'QUIT' : 'TERM';
}

# Stops it at once and waits for the process to end.
sub stop
{
	my ($self) = @_;
	my $pid = $self->pid or return;
	kill $self->immediate_signal, $pid;
	for (1 .. 10 * $PostgreSQL::Test::Utils::timeout_default)
	{
		return unless kill(0, $pid);
		select(undef, undef, undef, 0.1);
	}
	die "pgbouncer (pid $pid) did not stop\n";
}

sub restart
{
	my ($self) = @_;
	$self->stop;
	$self->start;
	return;
}

# Writes the targets as they are now and makes it read them (SIGHUP):
# connections to a changed target are closed, new ones go to the new one.
sub reload
{
	my ($self) = @_;
	$self->write_config;
	kill 'HUP', $self->pid or die "pgbouncer is not running\n";
	return;
}

END
{
	local $?;
	for my $b (@started)
	{
		my $pid = $b->pid;
		kill $b->immediate_signal, $pid if $pid;
	}
}

1;
