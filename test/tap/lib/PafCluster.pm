# A pg_auto_failover formation (one monitor, N Postgres nodes) on loopback,
# started by a TAP test as the postgres OS user, inside a temp folder, every
# step bounded in time (PG_TEST_TIMEOUT_DEFAULT, 180 s, unless given).
# TAP 036 runs crid's registry on it.
#
#   my $paf = PafCluster->new;                   # temp folder, own sockets and XDG dirs
#   $paf->start_monitor;                         # fast health checks (fast => 0: defaults)
#   $paf->start_node('node1', dbname => 'ids');  # "single", later primary
#   $paf->start_node('node2', dbname => 'ids');  # secondary (replication_quorum => 0: async)
#   my $uri = $paf->uri;                         # postgres://127.0.0.1:p1,127.0.0.1:p2/ids?target_session_attrs=read-write&sslmode=disable
#   $paf->perform_failover;                      # planned switchover (background => 1 + finish_failover)
#   $paf->kill_node('node1');                    # kill -9 of keeper + postgres: monitor fails over
#   my $new = $paf->wait_primary(not => 'node1');# the promoted node's name
#   $paf->restart_node('node1');                 # rejoins as secondary
#   $paf->wait_stable;                           # one primary + secondaries, held 5 s
#   $paf->set_replication_quorum('node1', 0);    # asynchronous from now on
#   my @problems = $paf->stop_all;               # also run from END / on SIGTERM
#
# Needs Debian's postgresql-15-auto-failover and pg-auto-failover-cli
# (pg_autoctl 2.0), IPC::Run and the PostgreSQL::Test modules.
package PafCluster;

use strict;
use warnings;
use Carp;
use File::Path qw(make_path);
use File::Spec;
use IPC::Run;
use JSON::PP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(time usleep);
use Test::More ();
use PostgreSQL::Test::Utils;
use PostgreSQL::Test::Cluster;

# The PostgreSQL the test runs (make installcheck puts its bindir first).
our $PG_BINDIR = do { my $b = `pg_config --bindir 2>/dev/null`; chomp $b; $b || '/usr/lib/postgresql/15/bin' };
our $PG_AUTOCTL = 'pg_autoctl';

# Monitor settings that make a failover after kill -9 take ~6 s instead of
# the defaults' ~50 s (health check every 5 s, 5 s timeout, 2 retries 2 s
# apart; unhealthy after 20 s without a keeper report; then 30 s of
# demote timeout; no failover in the first 10 s after the monitor started).
# All are PGC_SIGHUP: ALTER SYSTEM + pg_reload_conf() on the monitor.
our %FAST_MONITOR_SETTINGS = (
	'pgautofailover.health_check_period' => 1000,
	# a dead node refuses at once; the connect timeout only matters for a
	# hung one, and a short one risks false failovers on a loaded machine
	'pgautofailover.health_check_timeout' => 2000,
	'pgautofailover.health_check_max_retries' => 1,
	'pgautofailover.health_check_retry_delay' => 500,
	'pgautofailover.node_considered_unhealthy_timeout' => 3000,
	'pgautofailover.primary_demote_timeout' => 3000,
	'pgautofailover.startup_grace_period' => 1000,
);

my (@live_clusters, @all_clusters);

# The formation runs in its own sessions (setsid) and would outlive a test
# stopped by a signal, since END blocks do not run then: exit instead, so
# END stops it. Handlers a test set itself are kept.
for my $sig (qw(INT TERM HUP))
{
	$SIG{$sig} = sub { print STDERR "PafCluster: SIG$sig, stopping the formation\n"; exit 1 }
	  unless $SIG{$sig};
}

sub new
{
	my ($class, %opt) = @_;
	# tempdir() is relative to the test's cwd: pg_autoctl keys its config
	# folders on the pgdata path, so give it absolute paths.
	my $base = File::Spec->rel2abs($opt{base} // PostgreSQL::Test::Utils::tempdir('paf'));
	# Unix socket paths are limited to ~107 bytes: keep sockets short.
	my $sock = $opt{sockdir} // PostgreSQL::Test::Utils::tempdir_short();
	my $self = bless {
		base => $base,
		sock => $sock,
		timeout => $opt{timeout} // $PostgreSQL::Test::Utils::timeout_default,
		nodes => {},     # name => { pgdata, port, pgid, log, sems => {} }
		order => [],
		monitor => undef,
	}, $class;
	for my $d ("$base/home", "$base/config", "$base/share", "$base/run")
	{
		make_path($d, { mode => 0700 });
	}
	push @live_clusters, $self;
	push @all_clusters, $self;
	return $self;
}

# The environment of every pg_autoctl call. pg_autoctl keeps its config in
# $XDG_CONFIG_HOME/pg_autoctl/<pgdata path>/pg_autoctl.cfg, its state in
# $XDG_DATA_HOME/..., its pid file in $XDG_RUNTIME_DIR/... (/tmp when that
# folder does not exist). PG_REGRESS_SOCK_DIR makes it start postgres with
# -k <dir>; together with PG_AUTOCTL_DEBUG it also skips the "tuning" that
# would set shared_buffers to 25% of RAM on every node (6 GB here). The TAP
# framework's PGHOST (its own socket dir), PGDATABASE and PGPORT would
# otherwise become pg_autoctl's defaults.
sub _env
{
	my ($self) = @_;
	my %env = %ENV;
	delete @env{qw(PGPORT PGDATABASE PGUSER PGDATA PGSERVICE PGOPTIONS PGTARGETSESSIONATTRS PGCONNECT_TIMEOUT)};
	%env = (
		%env,
		HOME => "$self->{base}/home",
		XDG_CONFIG_HOME => "$self->{base}/config",
		XDG_DATA_HOME => "$self->{base}/share",
		XDG_RUNTIME_DIR => "$self->{base}/run",
		PG_REGRESS_SOCK_DIR => $self->{sock},
		PGHOST => $self->{sock},
		PG_AUTOCTL_DEBUG => 1,
		PATH => "$PG_BINDIR:$ENV{PATH}",
	);
	return %env;
}

# A command that changes the monitor's tables can lose a deadlock there to
# the keepers' node_active() calls, which lock the same rows in another
# order (pg_auto_failover issue 1004; seen in CI after a node restarted).
# The monitor rolled the command's transaction back, so running it again is
# what an operator does; a few tries, a second apart.
our $DEADLOCK_TRIES = 5;

sub _lost_a_deadlock
{
	my ($err) = @_;
	return $err =~ /Monitor ERROR:\s+deadlock detected/;
}

# Runs one pg_autoctl command to its end (bounded); returns its stdout, dies
# with its output on failure. A command the monitor refused with a deadlock
# runs again (see $DEADLOCK_TRIES).
sub autoctl
{
	my ($self, @args) = @_;
	my $opts = ref $args[-1] eq 'HASH' ? pop @args : {};
	my $timeout = $opts->{timeout} // $self->{timeout};
	my ($out, $err, $ok, $why);
	local %ENV = $self->_env;
	for my $try (1 .. $DEADLOCK_TRIES)
	{
		($out, $err) = ('', '');
		$ok = eval {
			IPC::Run::run([ $PG_AUTOCTL, @args ], '<', \undef, '>', \$out, '2>', \$err,
				IPC::Run::timeout($timeout));
		};
		$why = $@;
		last if $ok || !_lost_a_deadlock($err) || $try == $DEADLOCK_TRIES;
		Test::More::note("pg_autoctl @args lost a deadlock on the monitor (try $try), runs again");
		sleep 1;
	}
	if (!$ok && !$opts->{may_fail})
	{
		croak "pg_autoctl @args failed"
		  . ($why ? " ($why)" : " (exit " . ($? >> 8) . ")")
		  . "\n--- stdout\n$out\n--- stderr\n$err";
	}
	return wantarray ? ($ok, $out, $err) : $out;
}

# Starts `pg_autoctl run` in the background as the leader of a new process
# group: its postgres and sub-services share that group, so kill -KILL
# -$pgid takes down the whole node at once (like a machine that died).
sub _spawn_run
{
	my ($self, $node) = @_;
	my %env = $self->_env;
	my $log = $node->{log};
	my $pid = fork() // croak "fork: $!";
	if ($pid == 0)
	{
		POSIX::setsid();
		%ENV = %env;
		open(STDIN, '<', '/dev/null');
		open(STDOUT, '>>', $log);
		open(STDERR, '>&', \*STDOUT);
		{ exec($PG_AUTOCTL, 'run', '--pgdata', $node->{pgdata}) };
		POSIX::_exit(127);
	}
	$node->{pgid} = $pid;
	return $pid;
}

# pg_autoctl creates one SysV semaphore per `run` (its log lock) and
# removes it at a clean exit only: after kill -9 it stays. Its id is in the
# environment of the run's sub-processes; record it to remove it later.
sub _record_semaphores
{
	my ($self, $node) = @_;
	return unless $node->{pgid};
	for my $stat (glob '/proc/[0-9]*/stat')
	{
		open(my $fh, '<', $stat) or next;
		my $line = <$fh> // '';
		close $fh;
		# pid (comm) state ppid pgrp ...
		next unless $line =~ /\)\s+\S+\s+\d+\s+(\d+)/ && $1 == $node->{pgid};
		(my $envf = $stat) =~ s/stat$/environ/;
		open(my $ef, '<', $envf) or next;
		local $/;
		my $environ = <$ef> // '';
		close $ef;
		$node->{sems}{$1} = 1 while $environ =~ /(?:^|\0)PG_AUTOCTL_LOG_SEMAPHORE=(\d+)/g;
	}
	return;
}

sub _wait_until
{
	my ($self, $what, $timeout, $cond) = @_;
	my $deadline = time + ($timeout // $self->{timeout});
	while (time < $deadline)
	{
		my $r = $cond->();
		return $r if $r;
		usleep(100_000);
	}
	croak "timed out after " . ($timeout // $self->{timeout}) . " s waiting for $what";
}

# pg_autoctl create ..., its output kept in <base>/create-<name>.log.
sub _create_logged
{
	my ($self, $node, @args) = @_;
	my ($ok, $out, $err) = $self->autoctl(@args, { may_fail => 1 });
	my $log = "$self->{base}/create-$node->{name}.log";
	open(my $fh, '>', $log) or croak "$log: $!";
	print $fh $out, $err;
	close $fh;
	croak "pg_autoctl @args failed, see $log:\n$err" unless $ok;
	return $out;
}

# Monitor: create (foreground, bounded), listen on 127.0.0.1 only, run in
# the background, apply %FAST_MONITOR_SETTINGS (fast => 0: the defaults)
# and settings => { name => value } on top.
sub start_monitor
{
	my ($self, %opt) = @_;
	my $port = $opt{port} // PostgreSQL::Test::Cluster::get_free_port();
	my $node = {
		name => 'monitor',
		pgdata => "$self->{base}/monitor",
		port => $port,
		log => "$self->{base}/monitor.log",
		sems => {},
	};
	# --listen is accepted by create monitor though its --help does not
	# list it; without it postgres listens on '*'.
	# registered first, so that stop_all also stops a postmaster that an
	# interrupted create left running
	$self->{monitor} = $node;
	$self->_create_logged($node, 'create', 'monitor', '--pgdata', $node->{pgdata}, '--pgport', $port,
		'--hostname', '127.0.0.1', '--listen', '127.0.0.1', '--auth', 'trust', '--no-ssl',
		'--ssl-mode', 'disable', '--pgctl', "$PG_BINDIR/pg_ctl");
	$self->_spawn_run($node);
	$self->_wait_until('the monitor to accept connections', undef,
		sub { $self->_psql_ok($self->monitor_connstr, 'SELECT 1') });
	my %settings = ((($opt{fast} // 1) ? %FAST_MONITOR_SETTINGS : ()), %{ $opt{settings} || {} });
	$self->monitor_sql([ (map { "ALTER SYSTEM SET $_ = '$settings{$_}'" } sort keys %settings),
		'SELECT pg_reload_conf()' ])
	  if %settings;
	$self->_record_semaphores($node);
	return $node;
}

sub monitor_uri
{
	my ($self) = @_;
	return "postgres://autoctl_node\@127.0.0.1:$self->{monitor}{port}/pg_auto_failover?sslmode=disable";
}

# The monitor through its unix socket as the OS user (superuser there).
sub monitor_connstr
{
	my ($self) = @_;
	return "host=$self->{sock} port=$self->{monitor}{port} dbname=pg_auto_failover";
}

sub monitor_sql
{
	my ($self, $sql) = @_;
	return $self->psql($self->monitor_connstr, $sql);
}

# A data node: create (registers with the monitor; the first one inits as
# "single", the next ones pg_basebackup from the primary), then run it and
# wait until the monitor reports it in its goal state. Options: dbname
# (default 'postgres'; pg_autoctl creates it), replication_quorum (0/1),
# candidate_priority, port, wait_state (default: single for the first node,
# secondary for the others).
sub start_node
{
	my ($self, $name, %opt) = @_;
	croak "start_monitor first" unless $self->{monitor};
	my $port = $opt{port} // PostgreSQL::Test::Cluster::get_free_port();
	my $node = {
		name => $name,
		pgdata => "$self->{base}/$name",
		port => $port,
		log => "$self->{base}/$name.log",
		dbname => $opt{dbname} // 'postgres',
		sems => {},
	};
	my $first = !@{ $self->{order} };
	croak "node $name exists" if $self->{nodes}{$name};
	my @extra;
	push @extra, '--replication-quorum', ($opt{replication_quorum} ? 'true' : 'false')
	  if defined $opt{replication_quorum};
	push @extra, '--candidate-priority', $opt{candidate_priority} if defined $opt{candidate_priority};
	$self->{nodes}{$name} = $node;
	push @{ $self->{order} }, $name;
	# A secondary's create waits for the primary's keeper to reach
	# wait_primary, so every earlier node must already run.
	$self->_create_logged($node, 'create', 'postgres', '--pgdata', $node->{pgdata}, '--pgport', $port,
		'--pghost', $self->{sock}, '--listen', '127.0.0.1', '--hostname', '127.0.0.1',
		'--name', $name, '--dbname', $node->{dbname}, '--auth', 'trust', '--no-ssl',
		'--ssl-mode', 'disable', '--pgctl', "$PG_BINDIR/pg_ctl", '--monitor', $self->monitor_uri, @extra);
	$self->_spawn_run($node);
	my $want = $opt{wait_state} // ($first ? 'single' : 'secondary');
	# The monitor already says "single" once create is done, before run has
	# started postgres again: wait for postgres too.
	$self->wait_state($name, $want);
	$self->_wait_until("$name to accept connections", undef,
		sub { $self->_psql_ok($self->node_connstr($name, 'postgres'), 'SELECT 1') });
	$self->_record_semaphores($node);
	return $node;
}

sub node { my ($self, $name) = @_; return $self->{nodes}{$name} // croak "no node $name" }

# A data node through its unix socket (for checks that must hit one node).
sub node_connstr
{
	my ($self, $name, $db) = @_;
	my $n = $self->node($name);
	return "host=$self->{sock} port=$n->{port} dbname=" . ($db // $n->{dbname});
}

# Parsed `pg_autoctl show state --json`: name => { current, assigned, port, health, lsn, tli }.
sub states
{
	my ($self) = @_;
	my ($ok, $out) = $self->autoctl('show', 'state', '--pgdata', $self->{monitor}{pgdata}, '--json',
		{ may_fail => 1, timeout => 10 });
	return {} unless $ok && $out =~ /^\s*\[/;
	my $rows = eval { JSON::PP::decode_json($out) } || [];
	return {
		map {
			$_->{nodename} => {
				current => $_->{current_group_state},
				assigned => $_->{assigned_group_state},
				port => $_->{nodeport},
				health => $_->{health},
				lsn => $_->{reported_lsn},
				tli => $_->{reported_tli},
			}
		} @$rows
	};
}

# Waits until the monitor reports node $name in $state, reported and
# assigned alike.
sub wait_state
{
	my ($self, $name, $state, $timeout) = @_;
	return $self->_wait_until("$name to reach state $state", $timeout, sub {
		my $s = $self->states->{$name};
		return $s && $s->{current} eq $state && $s->{assigned} eq $state;
	});
}

# Waits until one node is a writable primary for the monitor (single,
# wait_primary or primary, reported = assigned) and returns its name.
# not => 'name' excludes a node (the one just killed, which cannot report
# and so stays "primary" in the reported column).
sub wait_primary
{
	my ($self, %opt) = @_;
	return $self->_wait_until('a primary' . ($opt{not} ? " other than $opt{not}" : ''), $opt{timeout}, sub {
		my $st = $self->states;
		my @p = grep {
			my $s = $st->{$_};
			(!$opt{not} || $_ ne $opt{not})
			  && $s->{current} =~ /^(single|wait_primary|primary)$/
			  && $s->{current} eq $s->{assigned}
		} sort keys %$st;
		return @p == 1 ? $p[0] : undef;
	});
}

# Waits until the formation is settled: one node primary and every other
# secondary (reported = assigned), unchanged for `hold` seconds (default 5,
# longer than node_considered_unhealthy_timeout, so a failover the monitor
# is about to start shows up first). Returns the primary's name.
sub wait_stable
{
	my ($self, %opt) = @_;
	my $hold = $opt{hold} // 5;
	my ($since, $last);
	return $self->_wait_until("a settled formation (held $hold s)", $opt{timeout}, sub {
		my $st = $self->states;
		my @names = sort keys %$st;
		my @p = grep { $st->{$_}{current} eq 'primary' && $st->{$_}{assigned} eq 'primary' } @names;
		my @s = grep { $st->{$_}{current} eq 'secondary' && $st->{$_}{assigned} eq 'secondary' } @names;
		my $key = (@p == 1 && @p + @s == @names) ? "$p[0]" : undef;
		if (!defined $key || !defined $last || $key ne $last) { ($since, $last) = (time, $key); return undef }
		return time - $since >= $hold ? $key : undef;
	});
}

# The formation's multi-host URI, as clients get it.
sub uri
{
	my ($self, %opt) = @_;
	my $out = $self->autoctl('show', 'uri', '--pgdata', $self->{monitor}{pgdata},
		'--formation', $opt{formation} // 'default');
	chomp $out;
	croak "no formation uri in '$out'" unless $out =~ m{^postgres(ql)?://};
	return $out;
}

# Planned switchover through the monitor. pg_autoctl returns once a node
# reports "primary", i.e. after the old primary has rejoined as secondary
# (the new one accepts writes earlier, in wait_primary). background => 1
# returns at once with a handle for finish_failover, so that a test can
# time when the URI reaches the new primary meanwhile.
sub perform_failover
{
	my ($self, %opt) = @_;
	my $wait = $opt{wait} // 60;
	my @cmd = ($PG_AUTOCTL, 'perform', 'failover', '--pgdata', $self->{monitor}{pgdata},
		'--formation', 'default', '--wait', $wait);
	my $h = { out => '', err => '', cmd => "@cmd", argv => \@cmd, wait => $wait };
	{
		local %ENV = $self->_env;
		$h->{run} = IPC::Run::start(\@cmd, '<', \undef, '>', \$h->{out}, '2>', \$h->{err},
			IPC::Run::timeout($wait + 10));
	}
	return $opt{background} ? $h : $self->finish_failover($h);
}

# A failover the monitor refused with a deadlock did not start (its
# transaction rolled back): it is asked for again, in the foreground.
sub finish_failover
{
	my ($self, $h) = @_;
	my $ok = eval { $h->{run}->finish };
	return $h->{out} if $ok;
	croak "$h->{cmd} failed" . ($@ ? " ($@)" : '') . "\n$h->{out}\n$h->{err}" unless _lost_a_deadlock($h->{err});
	Test::More::note("$h->{cmd} lost a deadlock on the monitor, runs again");
	sleep 1;
	my @cmd = @{ $h->{argv} };
	shift @cmd;
	return $self->autoctl(@cmd, { timeout => $h->{wait} + 10 });
}

# Makes node $name asynchronous: with replication-quorum false the primary's
# synchronous_standby_names becomes ''.
sub set_replication_quorum
{
	my ($self, $name, $bool) = @_;
	return $self->autoctl('set', 'node', 'replication-quorum', '--pgdata', $self->node($name)->{pgdata},
		$bool ? 'true' : 'false');
}

# Kills a node hard. how: 'group' (default: keeper, its sub-services and
# postgres at once - a crashed machine; the monitor fails over),
# 'postmaster' (postgres only: the keeper restarts it within ~1 s and the
# monitor does not fail over), 'keeper' (the `pg_autoctl run` leader only).
sub kill_node
{
	my ($self, $name, $how) = @_;
	$how //= 'group';
	my $node = $self->node($name);
	$self->_record_semaphores($node);
	if ($how eq 'group')
	{
		kill 'KILL', -$node->{pgid};
		$self->_reap($node, 10);
	}
	elsif ($how eq 'postmaster')
	{
		my $pm = $self->_postmaster_pid($node) // croak "$name: no postmaster.pid";
		kill 'KILL', $pm;
	}
	elsif ($how eq 'keeper')
	{
		kill 'KILL', $node->{pgid};
		waitpid($node->{pgid}, 0);
	}
	else { croak "kill_node: unknown how '$how'" }
	return;
}

# Runs a node's keeper again (after kill_node): it rejoins as a secondary
# (pg_rewind, else a new pg_basebackup).
sub restart_node
{
	my ($self, $name, %opt) = @_;
	my $node = $self->node($name);
	croak "$name still runs" if $node->{pgid} && kill(0, -$node->{pgid});
	$self->_spawn_run($node);
	$self->wait_state($name, $opt{wait_state} // 'secondary', $opt{timeout});
	$self->_wait_until("$name to accept connections", $opt{timeout},
		sub { $self->_psql_ok($self->node_connstr($name, 'postgres'), 'SELECT 1') });
	$self->_record_semaphores($node);
	return;
}

sub _postmaster_pid
{
	my ($self, $node) = @_;
	open(my $fh, '<', "$node->{pgdata}/postmaster.pid") or return undef;
	my $pid = <$fh>;
	close $fh;
	chomp $pid if defined $pid;
	return ($pid && $pid =~ /^\d+$/) ? $pid : undef;
}

# Waits (bounded) for the whole process group to be gone; reaps the leader.
sub _reap
{
	my ($self, $node, $timeout) = @_;
	return 1 unless $node->{pgid};
	my $deadline = time + $timeout;
	while (time < $deadline)
	{
		waitpid($node->{pgid}, WNOHANG);
		return 1 unless kill(0, -$node->{pgid});
		usleep(50_000);
	}
	return 0;
}

# Clean shutdown: `pg_autoctl stop` of every data node, then the monitor;
# SIGKILL of any process group that outlives its stop; a postmaster left by
# an interrupted create is stopped too; leaked semaphores are removed.
# Returns the list of problems (empty when all went well).
sub stop_all
{
	my ($self) = @_;
	my @problems;
	my @nodes = ((map { $self->{nodes}{$_} } reverse @{ $self->{order} }), grep { defined } $self->{monitor});
	for my $node (@nodes)
	{
		next if $node->{stopped};
		$self->_record_semaphores($node);
		if ($node->{pgid} && kill(0, -$node->{pgid}))
		{
			waitpid($node->{pgid}, WNOHANG);
			if (kill(0, $node->{pgid}))
			{
				$self->autoctl('stop', '--pgdata', $node->{pgdata}, { may_fail => 1, timeout => 30 });
				push @problems, "$node->{name}: still running 30 s after pg_autoctl stop"
				  unless $self->_reap($node, 30);
			}
			# The leader is gone (killed alone) but its sub-processes and
			# postgres still run: SIGTERM makes them stop postgres (fast).
			if (kill(0, -$node->{pgid}))
			{
				kill 'TERM', -$node->{pgid};
				if (!$self->_reap($node, 15))
				{
					push @problems, "$node->{name}: killed with SIGKILL";
					kill 'KILL', -$node->{pgid};
					$self->_reap($node, 10);
				}
			}
		}
		my $pm = $self->_postmaster_pid($node);
		if ($pm && kill(0, $pm) && _is_postgres($pm, $node->{pgdata}))
		{
			push @problems, "$node->{name}: postmaster $pm outlived pg_autoctl, stopped";
			local %ENV = $self->_env;
			IPC::Run::run([ "$PG_BINDIR/pg_ctl", '-D', $node->{pgdata}, '-m', 'immediate', '-w', 'stop' ],
				'>', \my $o, '2>&1', IPC::Run::timeout(30));
		}
		for my $sem (sort keys %{ $node->{sems} })
		{
			system('ipcrm', '-s', $sem) if _sem_exists($sem);
		}
		$node->{stopped} = 1;
	}
	@live_clusters = grep { $_ != $self } @live_clusters;
	return @problems;
}

# Semaphores recorded for this formation that still exist.
sub semaphores_left
{
	my ($self) = @_;
	my @nodes = (values %{ $self->{nodes} }, grep { defined } $self->{monitor});
	return grep { _sem_exists($_) } sort map { keys %{ $_->{sems} } } @nodes;
}

sub _is_postgres
{
	my ($pid, $pgdata) = @_;
	open(my $fh, '<', "/proc/$pid/cmdline") or return 0;
	local $/;
	my $cmd = <$fh> // '';
	return index($cmd, $pgdata) >= 0;
}

sub _sem_exists
{
	my ($id) = @_;
	my $out = `ipcs -s 2>/dev/null`;
	return $out =~ /^\S+\s+$id\s/m;
}

# Every process still running in one of our process groups or whose
# command line names the base folder (for a "nothing left behind" check).
sub leftover_processes
{
	my ($self) = @_;
	my @left;
	my %pgids = map { $_->{pgid} ? ($_->{pgid} => 1) : () } values %{ $self->{nodes} }, grep { defined } $self->{monitor};
	for my $cmdf (glob '/proc/[0-9]*/cmdline')
	{
		open(my $fh, '<', $cmdf) or next;
		local $/;
		my $cmd = <$fh> // '';
		close $fh;
		my ($pid) = $cmdf =~ m{/proc/(\d+)/};
		next if $pid == $$;
		open(my $st, '<', "/proc/$pid/stat") or next;
		my $s = <$st> // '';
		# pid (comm) state ppid pgrp: zombies are not running
		next if $s =~ /\)\s+Z\s/;
		my ($pgrp) = $s =~ /\)\s+\S+\s+\d+\s+(\d+)/;
		next unless index($cmd, $self->{base}) >= 0 || ($pgrp && $pgids{$pgrp});
		$cmd =~ s/\0/ /g;
		push @left, "$pid $cmd";
	}
	return @left;
}

sub _psql_ok
{
	my ($self, $connstr, $sql) = @_;
	my $ok = eval { $self->psql($connstr, $sql, timeout => 5); 1 };
	return $ok;
}

# psql -XAt on a connection string; dies on error; bounded. $sql may be an
# array of statements, each its own -c (its own transaction).
sub psql
{
	my ($self, $connstr, $sql, %opt) = @_;
	my ($out, $err) = ('', '');
	my @cmd = ("$PG_BINDIR/psql", '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $connstr,
		map { ('-c', $_) } ref $sql ? @$sql : $sql);
	my $ok = eval {
		IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err,
			IPC::Run::timeout($opt{timeout} // $self->{timeout}));
	};
	croak "psql on '$connstr' failed: $err$@" unless $ok;
	chomp $out;
	return $out;
}

# The last lines of every node's pg_autoctl log on stdout, which the TAP
# framework copies into tmp_check/log/regress_log_*: the temp folder with
# the full logs is removed at exit unless PG_TEST_NOCLEAN is set.
sub dump_logs
{
	my ($self, $lines) = @_;
	$lines //= 60;
	for my $log (sort glob "$self->{base}/*.log")
	{
		open(my $fh, '<', $log) or next;
		my @l = <$fh>;
		close $fh;
		splice(@l, 0, @l - $lines) if @l > $lines;
		print "### last lines of $log\n", @l;
	}
	return;
}

END
{
	local $?;
	$_->stop_all for @live_clusters;
	if (!Test::More->builder->is_passing) { $_->dump_logs for @all_clusters }
}

1;
