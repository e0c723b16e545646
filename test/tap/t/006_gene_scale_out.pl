# Shard genes across servers, with PostgreSQL's own machinery: three servers
# on loopback, each minting snowflake ids on a node of its own with 4 gene
# bits. The coordinator's orders table is hash-partitioned by gene
# (crid_gene_int8_ops) into two postgres_fdw foreign tables, one per shard
# server (even genes on shard_a, odd on shard_b); the same two shards form a
# PL/Proxy cluster of 16 partitions. Checks: rows written through the
# coordinator land on the shard of their gene; a lookup by id is one remote
# query to one server; PL/Proxy's RUN ON id_gene(id, 4) and RUN ON
# gene_of(user_id, 4) reach the right shard; ids minted on all three servers
# never collide; splitting a shard keeps every id routing; the fill trigger's
# snowflake family.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Utils;
use Test::More;

my %node_id = (coordinator => 0, shard_a => 1, shard_b => 2);
my %server;
for my $name (qw(coordinator shard_a shard_b))
{
	$server{$name} = crid_node($name,
		conf => "listen_addresses = '127.0.0.1'\ncrid.node_id = $node_id{$name}\n"
		  . "crid.snowflake_gene_bits = 4\nlog_statement = 'all'\n");
}
my ($coordinator, $shard_a, $shard_b) = @server{qw(coordinator shard_a shard_b)};
my %shard_of_parity = (0 => 'shard_a', 1 => 'shard_b');

# On each shard: its part of the orders, and the functions PL/Proxy calls.
for my $shard ($shard_a, $shard_b)
{
	$shard->safe_psql('postgres', q{
CREATE TABLE orders (id bigint PRIMARY KEY, user_id bigint NOT NULL, total numeric NOT NULL);
CREATE FUNCTION get_order(order_id bigint, OUT id bigint, OUT user_id bigint, OUT shard text)
    RETURNS SETOF record LANGUAGE sql
    AS $$ SELECT id, user_id, current_setting('cluster_name') FROM orders WHERE id = order_id $$;
CREATE FUNCTION add_order(user_id bigint, total numeric) RETURNS bigint LANGUAGE sql
    AS $$ INSERT INTO orders VALUES (snowflake_next(current_setting('crid.node_id')::int, gene_of(user_id, 4)),
                                     user_id, total) RETURNING id $$;
CREATE FUNCTION user_orders(user_id bigint, OUT orders bigint, OUT shard text) RETURNS SETOF record LANGUAGE sql
    AS $$ SELECT count(*), current_setting('cluster_name') FROM orders o WHERE o.user_id = user_orders.user_id $$;
});
}

# --- postgres_fdw ------------------------------------------------------------
my $fdw_server = sub {
	my ($name, $node) = @_;
	return "CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '"
	  . $node->port
	  . "', dbname 'postgres');\n"
	  . "CREATE USER MAPPING FOR CURRENT_USER SERVER $name;\n";
};
$coordinator->safe_psql('postgres',
	"CREATE EXTENSION postgres_fdw;\n"
	  . $fdw_server->('shard_a', $shard_a)
	  . $fdw_server->('shard_b', $shard_b) . q{
CREATE TABLE orders (id bigint NOT NULL, user_id bigint NOT NULL, total numeric NOT NULL)
    PARTITION BY HASH (id crid_gene_int8_ops);
CREATE FOREIGN TABLE orders_a PARTITION OF orders FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER shard_a OPTIONS (table_name 'orders');
CREATE FOREIGN TABLE orders_b PARTITION OF orders FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard_b OPTIONS (table_name 'orders');
});

# Writes through the coordinator: ids minted there (node 0) with the user's gene.
$coordinator->safe_psql('postgres', q{
INSERT INTO orders (id, user_id, total)
SELECT snowflake_next(0, gene_of(n % 40, 4)), n % 40, n FROM generate_series(1, 2000) n});
for my $parity (0, 1)
{
	my $shard = $server{ $shard_of_parity{$parity} };
	is( $shard->safe_psql('postgres',
			"SELECT count(*) = 1000 AND bool_and(id_gene(id, 1) = $parity AND gene_of(user_id, 4) = id_gene(id, 4))"
			  . ' AND bool_and((snowflake_parse(id)).node = 0) FROM orders'),
		't',
		"$shard_of_parity{$parity} holds exactly the coordinator's rows of genes with parity $parity");
}

# A lookup by id: one remote query, to the shard of the id's gene only.
my $odd_id = $shard_b->safe_psql('postgres', 'SELECT min(id) FROM orders');
my $plan = $coordinator->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM orders WHERE id = $odd_id");
my @scans = $plan =~ /Foreign Scan on (\S+)/g;
is_deeply(\@scans, ['public.orders_b'], 'EXPLAIN VERBOSE: the lookup by id scans one foreign partition');
like($plan, qr/Remote SQL: SELECT .* FROM public\.orders WHERE \(\(id = \Q$odd_id\E::bigint\)\)/,
	'and sends the id condition to that server');
my ($log_a, $log_b) = (-s $shard_a->logfile, -s $shard_b->logfile);
is($coordinator->safe_psql('postgres', "SELECT user_id FROM orders WHERE id = $odd_id"),
	$shard_b->safe_psql('postgres', "SELECT user_id FROM orders WHERE id = $odd_id"),
	'the lookup finds the row');
ok($shard_b->log_contains(qr/FROM public\.orders WHERE \(\(id = \Q$odd_id\E::bigint\)\)/, $log_b),
	'shard_b received the query');
ok(!$shard_a->log_contains(qr/orders/, $log_a), 'shard_a received nothing');
is( $coordinator->safe_psql('postgres', 'PREPARE by_id(bigint) AS SELECT count(*) FROM orders WHERE id = $1;'
		  . " SET plan_cache_mode = force_generic_plan; EXPLAIN (VERBOSE, COSTS OFF) EXECUTE by_id($odd_id)")
	  =~ /Subplans Removed: 1/ ? 1 : 0,
	1,
	'a generic plan prunes the other shard at executor start');

# A lookup by user: each foreign partition declares its genes in a CHECK
# constraint (PostgreSQL trusts those of foreign tables), so constraint
# exclusion leaves one shard for WHERE ... AND id_gene(id, 4) = gene_of(user, 4).
$coordinator->safe_psql('postgres', q{
ALTER FOREIGN TABLE orders_a ADD CHECK (id_gene(id, 4) IN (0, 2, 4, 6, 8, 10, 12, 14));
ALTER FOREIGN TABLE orders_b ADD CHECK (id_gene(id, 4) IN (1, 3, 5, 7, 9, 11, 13, 15));
});
my $user_plan = $coordinator->safe_psql('postgres',
	'EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM orders WHERE user_id = 7 AND id_gene(id, 4) = gene_of(7, 4)');
@scans = $user_plan =~ /Foreign Scan on (\S+)/g;
is_deeply(\@scans, ['public.orders_b'], 'a lookup by user with its gene scans the one shard of the gene');
is($coordinator->safe_psql('postgres', 'SELECT count(*) FROM orders WHERE user_id = 7 AND id_gene(id, 4) = gene_of(7, 4)'),
	'50', 'and finds all of the user\'s orders there');

# --- PL/Proxy ------------------------------------------------------------------
# 16 partitions, one per gene: even genes on shard_a, odd on shard_b (a
# connection string repeated is one connection).
my $connstr = sub { "host=127.0.0.1 port=" . $_[0]->port . " dbname=postgres" };
my $partitions = join ",\n",
  map { "p$_ '" . $connstr->($_ % 2 ? $shard_b : $shard_a) . "'" } 0 .. 15;
$coordinator->safe_psql('postgres', qq{
CREATE EXTENSION plproxy;
CREATE SERVER orders_cluster FOREIGN DATA WRAPPER plproxy OPTIONS ($partitions);
CREATE USER MAPPING FOR PUBLIC SERVER orders_cluster;
CREATE FUNCTION get_order(order_id bigint, OUT id bigint, OUT user_id bigint, OUT shard text)
    RETURNS SETOF record LANGUAGE plproxy AS \$\$
    CLUSTER 'orders_cluster';
    RUN ON id_gene(order_id, 4);
\$\$;
CREATE FUNCTION add_order(user_id bigint, total numeric) RETURNS bigint LANGUAGE plproxy AS \$\$
    CLUSTER 'orders_cluster';
    RUN ON gene_of(user_id, 4);
\$\$;
CREATE FUNCTION user_orders(user_id bigint, OUT orders bigint, OUT shard text)
    RETURNS SETOF record LANGUAGE plproxy AS \$\$
    CLUSTER 'orders_cluster';
    RUN ON gene_of(user_id, 4);
\$\$;
});

# By user: each call runs on the shard of the user's gene, which mints the id
# on its own node with that gene.
$coordinator->safe_psql('postgres', q{
CREATE TABLE proxied AS SELECT n % 40 AS user_id, add_order(n % 40, n) AS id FROM generate_series(1, 400) n});
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE id_gene(id, 4) <> gene_of(user_id, 4)) || ' ' ||
       count(*) FILTER (WHERE (snowflake_parse(id)).node <> 1 + id_gene(id, 1)) FROM proxied}),
	'0 0',
	'RUN ON gene_of(user_id, 4): each id carries its user\'s gene and was minted by the shard of that gene');
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) FROM generate_series(0, 39) u, LATERAL user_orders(u) o
WHERE o.shard <> CASE WHEN gene_of(u, 4) % 2 = 0 THEN 'shard_a' ELSE 'shard_b' END OR o.orders <> 60}),
	'0',
	'RUN ON gene_of(user_id, 4): a user\'s orders are all on one shard, the one of the gene');

# By id: every id, whoever minted it, is found on the shard its gene names.
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE g.id IS NULL) || ' ' ||
       count(*) FILTER (WHERE g.shard <> CASE WHEN id_gene(o.id, 1) = 0 THEN 'shard_a' ELSE 'shard_b' END) || ' ' ||
       count(*)
FROM orders o LEFT JOIN LATERAL get_order(o.id) g ON true}),
	'0 0 2400',
	'RUN ON id_gene(id, 4): each of 2400 lookups by id reaches the shard holding the row');

# Ids of all three servers never collide, and all three minted some.
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) = count(DISTINCT id) AND count(DISTINCT (snowflake_parse(id)).node) = 3 FROM orders}),
	't', 'ids minted on the coordinator and on both shards never collide');

# --- splitting a shard -----------------------------------------------------------
# shard_a's genes 2, 6, 10, 14 (gene mod 4 = 2) move to a new place (here a
# local table of the coordinator): copy them, swap the partitions, delete
# them from shard_a. Ids do not change and keep routing.
$coordinator->safe_psql('postgres', q{
CREATE TABLE orders_c (id bigint NOT NULL, user_id bigint NOT NULL, total numeric NOT NULL);
INSERT INTO orders_c SELECT * FROM orders_a WHERE id_gene(id, 2) = 2;
BEGIN;
ALTER TABLE orders DETACH PARTITION orders_a;
ALTER TABLE orders ATTACH PARTITION orders_a FOR VALUES WITH (MODULUS 4, REMAINDER 0);
ALTER TABLE orders ATTACH PARTITION orders_c FOR VALUES WITH (MODULUS 4, REMAINDER 2);
COMMIT;
});
$shard_a->safe_psql('postgres', 'DELETE FROM orders WHERE id_gene(id, 2) = 2');
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) || ' ' || count(*) FILTER (WHERE tableoid::regclass::text <> CASE id_gene(id, 2)
    WHEN 0 THEN 'orders_a' WHEN 2 THEN 'orders_c' ELSE 'orders_b' END) FROM orders}),
	'2400 0',
	'after the split every row is where its gene says');
my $moved = $coordinator->safe_psql('postgres', 'SELECT min(id) FROM orders_c');
my $split_plan = $coordinator->safe_psql('postgres', "EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE id = $moved");
ok($split_plan =~ /orders_c/ && $split_plan !~ /orders_a|orders_b/, 'a moved id routes to its new partition alone');

# --- the fill trigger's snowflake family ---------------------------------------------
$coordinator->safe_psql('postgres', q{
CREATE TABLE carts (id bigint PRIMARY KEY, user_id text NOT NULL);
CREATE TRIGGER fill BEFORE INSERT ON carts
    FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'snowflake', 'user_id');
INSERT INTO carts (user_id) SELECT 'user-' || n FROM generate_series(1, 100) n});
is( $coordinator->safe_psql('postgres', q{
SELECT count(*) FILTER (WHERE (snowflake_parse(id)).gene <> gene_of(user_id, 4) OR (snowflake_parse(id)).node <> 0)
FROM carts}),
	'0', 'crid_fill_id_with_gene(snowflake): node crid.node_id, gene of the key in crid.snowflake_gene_bits');
my ($ret, $out, $err) = $coordinator->psql('postgres', q{
DROP TRIGGER fill ON carts;
CREATE TRIGGER fill5 BEFORE INSERT ON carts
    FOR EACH ROW EXECUTE FUNCTION crid_fill_id_with_gene('id', 'snowflake', 'user_id', '5');
INSERT INTO carts (user_id) VALUES ('x')});
like($err, qr/gene bits 5 differ from crid.snowflake_gene_bits \(4\)/, 'snowflake bits other than the layout\'s are refused');

done_testing();
