# A loopback TCP proxy for crid's fault tests, in front of a test server's
# Unix socket: each member of a fleet reaches its registry through one, and
# the test decides what happens to the bytes. It runs in a child process
# (forked at new(), ended at stop() or at the test's end) that forwards the
# bytes of each connection (a "flow") both ways, and takes commands from the
# test over a pipe, answering each once it is in force:
#
#   pass          forward everything (the start)
#   hold          hold the bytes of every flow open now, both ways, while
#                 new flows pass (one flow's path failed); a client that
#                 closes meanwhile has its bytes delivered at the heal
#   hold_all      hold existing flows and every new one too (a member cut
#                 off: it connects, but nothing comes through)
#   heal          deliver what was held, in order, and forward again
#   drop_replies  discard what the server sends, on every flow and every new
#                 one, until pass (answers lost one way)
#   drop_after TEXT  from the moment a client sends bytes holding TEXT (a
#                 statement's name), discard what the server sends on that
#                 flow: that statement runs (and commits), its answer is lost
#   reset         close every flow at once (RST), as a middlebox reset would
#
# Nothing leaves loopback; every flow ends with the proxy.
package FaultProxy;

use strict;
use warnings;
use IO::Handle;
use IO::Select;
use IO::Socket::INET;
use IO::Socket::UNIX;
use Socket qw(SOL_SOCKET SO_LINGER SHUT_WR);
use POSIX ();

my @started;

# A proxy to the server `node` (a PostgreSQL::Test::Cluster on Unix sockets).
sub new
{
	my ($class, $node) = @_;
	my $target = $node->host . '/.s.PGSQL.' . $node->port;
	my $listen = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 64, ReuseAddr => 1)
	  or die "FaultProxy: cannot listen: $!";
	pipe(my $cmd_r, my $cmd_w) or die;
	pipe(my $ack_r, my $ack_w) or die;
	my $pid = fork // die "FaultProxy: cannot fork: $!";
	if ($pid == 0)
	{
		close $cmd_w;
		close $ack_r;
		$ack_w->autoflush(1);
		eval { serve($listen, $target, $cmd_r, $ack_w) };
		POSIX::_exit(0);
	}
	close $cmd_r;
	close $ack_w;
	$cmd_w->autoflush(1);
	my $self = bless { pid => $pid, port => $listen->sockport, cmd => $cmd_w, ack => $ack_r }, $class;
	close $listen;
	push @started, $self;
	return $self;
}

sub port { return $_[0]{port} }

# A libpq connection string to the database `db` through the proxy.
sub connstr
{
	my ($self, $db, $user) = @_;
	return "host=127.0.0.1 port=$self->{port} dbname=$db" . ($user ? " user=$user" : '');
}

# Sends one command and waits until it is in force.
sub command
{
	my ($self, $command) = @_;
	print { $self->{cmd} } "$command\n";
	my $ack = readline($self->{ack});
	die "FaultProxy: no answer to $command\n" unless defined $ack && $ack eq "ok\n";
	return;
}

sub stop
{
	my ($self) = @_;
	return unless $self->{pid};
	close $self->{cmd};
	kill 'TERM', $self->{pid};
	waitpid($self->{pid}, 0);
	$self->{pid} = 0;
	return;
}

END { $_->stop for @started }

# --- the child -----------------------------------------------------------------

sub serve
{
	my ($listen, $target, $cmd, $ack) = @_;
	my $select = IO::Select->new($listen, $cmd);
	my %flows;    # fileno of either end => flow
	my ($hold_new, $drop, $drop_after) = (0, 0, undef);
	my $line = '';

	my $close_flow = sub {
		my ($f, $reset) = @_;
		for my $end (grep { defined } @$f{qw(client server)})
		{
			setsockopt($end, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0)) if $reset;
			$select->remove($end);
			delete $flows{ fileno($end) };
			close $end;
		}
		@$f{qw(client server)} = (undef, undef);
	};
	# Writes every byte (small PostgreSQL messages: blocking writes are fine).
	my $send = sub {
		my ($to, $bytes) = @_;
		while (length $bytes)
		{
			my $n = syswrite($to, $bytes);
			return 0 unless defined $n;
			substr($bytes, 0, $n, '');
		}
		return 1;
	};
	# A flow whose client is gone: its server end gets what the client sent,
	# then an end of input; the server's answers are read and discarded.
	my $flush = sub {
		my ($f) = @_;
		if (length $f->{to_server} && $f->{server})
		{
			$send->($f->{server}, $f->{to_server});
		}
		$f->{to_server} = '';
		if (length $f->{to_client} && $f->{client})
		{
			$send->($f->{client}, $f->{to_client}) unless $drop || $f->{drop};
		}
		$f->{to_client} = '';
		if (!$f->{client} && $f->{server} && !$f->{shut})
		{
			shutdown($f->{server}, SHUT_WR);
			$f->{shut} = 1;
		}
		if (!$f->{server} && $f->{client})
		{
			$close_flow->($f, 0);
		}
	};

	while (1)
	{
		for my $fh ($select->can_read(1))
		{
			if ($fh == $cmd)
			{
				my $n = sysread($cmd, my $buf, 4096);
				return if !$n;
				$line .= $buf;
				while ($line =~ s/^([^\n]*)\n//)
				{
					my $c = $1;
					my %seen;
					my @all = grep { !$seen{$_}++ } values %flows;
					if ($c eq 'hold' || $c eq 'hold_all')
					{
						$_->{held} = 1 for @all;
						$hold_new = $c eq 'hold_all';
					}
					elsif ($c eq 'heal')
					{
						$hold_new = 0;
						for my $f (@all)
						{
							$f->{held} = 0;
							$flush->($f);
						}
					}
					elsif ($c eq 'drop_replies') { $drop = 1 }
					elsif ($c =~ /^drop_after (.+)$/) { $drop_after = $1 }
					elsif ($c eq 'pass') { ($drop, $drop_after) = (0, undef); $_->{drop} = 0 for @all }
					elsif ($c eq 'reset') { $close_flow->($_, 1) for @all }
					print $ack "ok\n";
				}
				next;
			}
			if ($fh == $listen)
			{
				my $client = $listen->accept or next;
				my $server = IO::Socket::UNIX->new(Peer => $target);
				if (!$server)
				{
					close $client;
					next;
				}
				my $f = { client => $client, server => $server, to_server => '', to_client => '', held => $hold_new };
				$flows{ fileno($client) } = $f;
				$flows{ fileno($server) } = $f;
				$select->add($client, $server);
				next;
			}
			my $fd = fileno($fh);
			next unless defined $fd;    # closed with its flow earlier in this pass
			my $f = $flows{$fd} or do { $select->remove($fh); next };
			my $from_client = defined $f->{client} && $fh == $f->{client};
			my $n = sysread($fh, my $buf, 65536);
			if (!$n)
			{
				# One end closed: the other gets what is pending, then the end.
				$select->remove($fh);
				delete $flows{ fileno($fh) };
				close $fh;
				$f->{ $from_client ? 'client' : 'server' } = undef;
				if (!$f->{held})
				{
					$flush->($f);
					$close_flow->($f, 0) if !$f->{server} || !$f->{client} && !length $f->{to_server} && $f->{shut};
				}
				next;
			}
			if ($from_client)
			{
				$f->{to_server} .= $buf;
				$f->{drop} = 1 if defined $drop_after && index($buf, $drop_after) >= 0;
			}
			elsif (!$drop && !$f->{drop})
			{
				$f->{to_client} .= $buf;
			}
			$flush->($f) unless $f->{held};
		}
	}
}

1;
