# crid.uuidv7_order seen from SQL, with a wall clock that steps back
# (libfaketime): one session mints, the clock goes back 60 s, another session
# mints. In server-wide order the second id is greater than the first (the
# ids' clock never goes back for any backend); in per-backend order the new
# backend follows the wall clock and its id sorts before the first one.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

my $set_clock = fake_clock('+0');
my $node = crid_node('uuidv7_order_clock');

# A UUIDv7 from a new session (a new backend), with the clock `offset`.
sub minted_with_clock
{
	my ($offset) = @_;
	$set_clock->($offset);
	return $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
}
sub later
{
	my ($second, $first) = @_;
	return $node->safe_psql('postgres', "SELECT '$second'::uuid > '$first'::uuid");
}
sub set_order
{
	my ($order) = @_;
	$node->safe_psql('postgres', "ALTER SYSTEM SET crid.uuidv7_order = '$order'");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('crid.uuidv7_order') = '$order'")
	  or die "crid.uuidv7_order did not become $order";
}

is($node->safe_psql('postgres', 'SHOW crid.uuidv7_order'), 'server', 'the default order is server-wide');
my $first = minted_with_clock('+0');
my $second = minted_with_clock('-60');
is(later($second, $first), 't', 'server order: a new session with the clock 60 s back mints a greater id');

set_order('backend');
$first = minted_with_clock('+0');
$second = minted_with_clock('-60');
is(later($second, $first), 'f', 'backend order: a new session with the clock 60 s back mints a smaller id');

set_order('server');
$set_clock->('+0');
$first = $node->safe_psql('postgres', 'SELECT uuid_generate_v7()');
$second = minted_with_clock('-60');
is(later($second, $first), 't', 'server order again: greater once more');

$node->stop;
done_testing();
