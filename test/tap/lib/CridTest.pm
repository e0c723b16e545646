# Helpers shared by crid's TAP tests: a node with crid preloaded, and running
# several SQL scripts in parallel sessions.
package CridTest;

use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Exporter 'import';

our @EXPORT = qw(crid_node run_in_parallel);

# A started node with crid preloaded (unless preload => 0), the extension
# created in "postgres", and any extra settings appended to its config;
# init => { ... } passes options to init (allows_streaming => 1 for standbys).
sub crid_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%{ $opt{init} || {} });
	my $preload = exists $opt{preload} ? $opt{preload} : 1;
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'crid'") if $preload;
	$node->append_conf('postgresql.conf', $opt{conf}) if $opt{conf};
	$node->start(%{ $opt{start} || {} });
	$node->safe_psql('postgres', 'CREATE EXTENSION crid');
	return $node;
}

# Runs each SQL script in its own psql session, all at once; returns their
# outputs in order and dies if any session failed.
sub run_in_parallel
{
	my ($node, @scripts) = @_;
	my (@handles, @outs, @errs);
	for my $i (0 .. $#scripts)
	{
		$outs[$i] = '';
		$errs[$i] = '';
		push @handles, IPC::Run::start(
			[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $scripts[$i] ],
			'>', \$outs[$i], '2>', \$errs[$i]);
	}
	for my $i (0 .. $#handles)
	{
		$handles[$i]->finish or die "session $i failed: $errs[$i]";
	}
	chomp @outs;
	return @outs;
}

1;
