# docs/public-ids.md's restore of a database with stored faces, its four
# pg_restore lines read from the page: into a fresh database of another
# cluster, a table whose name sorts before crid_public_id_keys (which a plain
# pg_restore leaves empty, as this test first shows) gets every row, and
# every stored face equals crid_mask of its id there.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $page = slurp_file("$FindBin::RealBin/../../../docs/public-ids.md");
$page =~ /<!-- test: restore -->\s*```\n(.*?)```/s or die 'docs/public-ids.md has no block <!-- test: restore -->';
my @lines = grep { /\S/ } split /\n/, $1;
is(scalar(grep { /^pg_restore / } @lines), scalar @lines, 'the restore is pg_restore lines');

my $source = crid_node('faces_source', conf => "crid.node_id = 1\n");
# The application's database is not the registry's: the block reserver's
# rows of a few seconds ago would meet the new registry table's refusal of
# recent seconds on the other side (crid_registry_guard), which is not what
# this test is about.
$source->safe_psql('postgres', 'CREATE ROLE api; CREATE DATABASE app');
$source->safe_psql('app', q{
CREATE EXTENSION crid;
SELECT crid_public_id_key_create('api', 7);
CREATE TABLE accounts (id bigint PRIMARY KEY DEFAULT snowflake_next(),
                       public_id bigint GENERATED ALWAYS AS (crid_mask(id, 7)) STORED);
INSERT INTO accounts SELECT FROM generate_series(1, 500);
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_next(), total int,
                     public_id bigint GENERATED ALWAYS AS (crid_mask(id, 7)) STORED);
INSERT INTO orders (total) SELECT g FROM generate_series(1, 500) g;
CREATE UNIQUE INDEX accounts_public_id ON accounts (public_id);
});
my $dump = PostgreSQL::Test::Utils::tempdir() . '/app.dump';
$source->command_ok([ 'pg_dump', '-Fc', '-d', $source->connstr('app'), '-f', $dump ], 'pg_dump -Fc');

my $target = crid_node('faces_target', conf => "crid.node_id = 2\n");
$target->safe_psql('postgres', 'CREATE ROLE api');

# A plain pg_restore: accounts is loaded before the keys, and stays empty.
$target->safe_psql('postgres', 'CREATE DATABASE plain');
my ($out, $err) = run_command([ 'pg_restore', '-d', $target->connstr('plain'), $dump ]);
like($err, qr/COPY failed for table "accounts"/, 'a plain pg_restore fails the COPY of a table before the keys');
is($target->safe_psql('plain', 'SELECT count(*) FROM accounts'), '0', 'and leaves it empty');

# The page's four lines.
$target->safe_psql('postgres', 'CREATE DATABASE app');
for my $line (@lines)
{
	my @args = split ' ', $line;
	s/^app$/$target->connstr('app')/e for @args;
	s/^app\.dump$/$dump/ for @args;
	($out, $err) = run_command(\@args);
	is($err, '', "no error nor warning: $line");
}
is($target->safe_psql('app', q{
SELECT (SELECT count(*) FROM accounts) || ' ' || (SELECT count(*) FROM orders)
    || ' ' || (SELECT bool_and(public_id = crid_mask(id, 7)) FROM accounts)
    || ' ' || (SELECT bool_and(public_id = crid_mask(id, 7)) FROM orders)
    || ' ' || (SELECT count(*) FROM crid_public_id_keys)
    || ' ' || (SELECT count(*) FROM pg_indexes WHERE indexname = 'accounts_public_id')}),
	'500 500 true true 1 1', 'every row and face, the key once, the index: restored');

done_testing();
