# docs/coming-from.md's recipes, run as the page gives them: each marked
# block (<!-- test: NAME conf --> and <!-- test: NAME sql -->) is read from
# the page. For each scheme a server with the recipe's settings holds a table
# first filled with 1,000 ids of the old scheme, made by a DEFAULT the test
# writes from the scheme's published formula (each id it makes is noted);
# a client inserts through a server-prepared statement (RETURNING id::text)
# before, during and after the recipe's SQL. Then: the client saw no error,
# no id came twice, ids of the new DEFAULT were minted, and every one of them
# sorts above every old id (for uuid-ossp's random ids, which no id can sort
# after, the page promises ids that sort after each other instead). The
# pg_uuidv7 recipe also keeps the DEFAULT and a view that called pg_uuidv7
# (a stand-in of test/module, pg_uuidv7 not being packaged), now calling
# crid's functions.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $page = slurp_file("$FindBin::RealBin/../../../docs/coming-from.md");

# The fenced block after <!-- test: NAME KIND -->.
sub block
{
	my ($name, $kind) = @_;
	$page =~ /<!-- test: \Q$name\E \Q$kind\E -->\s*```[a-z]*\n(.*?)```/s
	  or die "docs/coming-from.md has no block <!-- test: $name $kind -->";
	return $1;
}

# The old schemes, from their published formulas: each DEFAULT notes the id
# it makes in old_ids. `type` is the key's type, `table` the recipe's table.
my %old = (
	pgedge => {
		table => 'orders',
		type => 'bigint',
		# pgEdge snowflake.c: ms since 2023-01-01 << 22 | node << 12 | counter.
		make => q{(((extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1672531200000) << 22)
		          | (3 << 12) | (s % 4096)},
	},
	instagram => {
		table => 'photos',
		type => 'bigint',
		# "Sharding & IDs at Instagram": ms since their epoch << 23 | shard << 10 | seq % 1024.
		make => q{(((extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1314220021721) << 23)
		          | (5 << 10) | (s % 1024)},
	},
	sonyflake => {
		table => 'events',
		type => 'bigint',
		# sony/sonyflake: 10 ms units since 2014-09-01 << 24 | sequence << 16 |
		# machine; a full sequence moves on to the next unit (s / 256: ahead
		# of the clock by 10 ms a 256 ids, as Sonyflake's wait would be).
		make => q{(((((extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1409529600000) / 10) + s / 256) << 24)
		          | ((s % 256) << 16) | 4242},
	},
	sonyflake2 => {
		table => 'events',
		type => 'bigint',
		# sony/sonyflake/v2 with default Settings: from 2025-01-01.
		make => q{(((((extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1735689600000) / 10) + s / 256) << 24)
		          | ((s % 256) << 16) | 4242},
	},
	serial => {
		table => 'accounts',
		type => 'bigint',
		make => q{s},
		# The IDENTITY table of the same recipe.
		identity => 'ledger',
	},
	# pg_uuidv7 is not packaged for Debian: test/module's crid_test_pg_uuidv7
	# stands in for it (its functions, written in SQL from pg_uuidv7's
	# documented behaviour, relocatable like it), and the recipe's
	# "EXTENSION pg_uuidv7" is read as that name.
	pguuidv7 => {
		table => 'documents',
		type => 'uuid',
		setup => q{
CREATE EXTENSION crid_test_pg_uuidv7;
CREATE TABLE old_ids (id uuid PRIMARY KEY);
CREATE TABLE documents (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), v int);
CREATE VIEW documents_by_time AS SELECT id, uuid_v7_to_timestamptz(id) AS at, v FROM documents;
-- Ids the stand-in's DEFAULT makes are noted as old, until the recipe
-- points the DEFAULT at crid.
CREATE FUNCTION note_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM pg_attrdef d
               JOIN pg_depend p ON p.classid = 'pg_attrdef'::regclass AND p.objid = d.oid
                               AND p.refclassid = 'pg_proc'::regclass
               JOIN pg_depend e ON e.classid = 'pg_proc'::regclass AND e.objid = p.refobjid AND e.deptype = 'e'
               JOIN pg_extension x ON x.oid = e.refobjid AND x.extname = 'crid_test_pg_uuidv7'
               WHERE d.adrelid = TG_RELID) THEN
        INSERT INTO old_ids VALUES (NEW.id);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER note_old BEFORE INSERT ON documents FOR EACH ROW EXECUTE FUNCTION note_old();
INSERT INTO documents (v) SELECT g FROM generate_series(1, 1000) g;
},
		rename => [ qr/EXTENSION pg_uuidv7\b/, 'EXTENSION crid_test_pg_uuidv7' ],
	},
	uuidossp => {
		table => 'documents',
		type => 'uuid',
		make => q{uuid_generate_v4()},
		unordered => 1,
	},
);

for my $name (sort keys %old)
{
	my $o = $old{$name};
	my $conf = $page =~ /<!-- test: \Q$name\E conf -->/ ? block($name, 'conf') : "shared_preload_libraries = 'crid'\n";
	my $node = PostgreSQL::Test::Cluster->new("from_$name");
	$node->init;
	$node->append_conf('postgresql.conf', $conf);
	$node->start;
	my $table = $o->{table};
	my @tables = ($table, $o->{identity} ? ($o->{identity}) : ());
	$node->safe_psql('postgres', 'CREATE EXTENSION "uuid-ossp"') if $name eq 'uuidossp';
	$node->safe_psql('postgres', $o->{setup}) if $o->{setup};
	$node->safe_psql('postgres', qq{
CREATE SEQUENCE old_seq;
CREATE TABLE old_ids (id $o->{type} PRIMARY KEY);
CREATE FUNCTION old_next() RETURNS $o->{type} LANGUAGE plpgsql AS \$\$
DECLARE s bigint := nextval('old_seq'); made $o->{type} := $o->{make};
BEGIN INSERT INTO old_ids VALUES (made) ON CONFLICT DO NOTHING; RETURN made; END \$\$;
CREATE TABLE $table (id $o->{type} PRIMARY KEY DEFAULT old_next(), v int);
INSERT INTO $table (v) SELECT g FROM generate_series(1, 1000) g;
}) unless $o->{setup};
	if ($o->{identity})
	{
		# An IDENTITY column whose old ids are its own sequence's.
		$node->safe_psql('postgres', qq{
CREATE TABLE $o->{identity} (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v int);
-- Ids the identity makes are noted as old (its sequence's), until the
-- recipe drops it.
CREATE FUNCTION note_identity() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN
    IF (SELECT a.attidentity FROM pg_attribute a WHERE a.attrelid = TG_RELID AND a.attname = 'id') <> '' THEN
        INSERT INTO old_ids VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NEW;
END \$\$;
CREATE TRIGGER note_identity BEFORE INSERT ON $o->{identity} FOR EACH ROW EXECUTE FUNCTION note_identity();
INSERT INTO $o->{identity} (v) SELECT g FROM generate_series(1, 1000) g;
});
	}

	# The clients: one per table, a prepared INSERT every few milliseconds
	# for about five seconds; a session stops at its first error.
	my @clients = map {
		my $t = $_;
		psql_start($node->connstr('postgres'),
			"PREPARE ins(int) AS INSERT INTO $t (v) VALUES (\$1) RETURNING id::text",
			map { ("EXECUTE ins($_)", 'DO $$BEGIN PERFORM pg_sleep(0.01); END$$') } 1 .. 400)
	} @tables;
	$node->poll_query_until('postgres', "SELECT count(*) >= 1020 FROM $table") or die "the client does not insert";

	my $sql = block($name, 'sql');
	$sql =~ s/$o->{rename}[0]/$o->{rename}[1]/g if $o->{rename};
	my ($ret, $out, $err) = $node->psql('postgres', $sql, on_error_stop => 1);
	is($ret, 0, "$name: the recipe's SQL runs") or diag($err);
	if ($name eq 'pgedge')
	{
		like($out, qr/^t$/m, 'pgedge: the server layout is the preset');
	}

	for my $i (0 .. $#tables)
	{
		my $t = $tables[$i];
		my $ids = eval { psql_finish($clients[$i], "$name client of $t") };
		is($@, '', "$name: the client of $t saw no error through the switch");
		my @ids = split /\n/, $ids // '';
		my %seen;
		is(scalar(grep { $seen{$_}++ } @ids), 0, "$name: no id came twice to the client of $t");
		my ($new, $rows, $new_sorted) = split /\|/, $node->safe_psql('postgres', qq{
SELECT count(*) FILTER (WHERE n),
       count(*),
       coalesce(bool_and(id > prev) FILTER (WHERE n AND prev_n), true)
FROM (SELECT id, n, lag(id) OVER (ORDER BY v, id) AS prev, lag(n) OVER (ORDER BY v, id) AS prev_n
      FROM (SELECT t.id, t.v, o.id IS NULL AS n FROM $t t LEFT JOIN old_ids o ON o.id = t.id) x) y});
		cmp_ok($new, '>', 0, "$name: $t got ids of the new DEFAULT while the client inserted");
		is($rows, 1000 + scalar @ids, "$name: every row the client inserted is in $t");
		if ($o->{unordered})
		{
			is($new_sorted, 't', "$name: the new ids sort after each other");
		}
		else
		{
			my ($old_max, $new_min, $above) = split /\|/, $node->safe_psql('postgres', qq{
SELECT o::text, n::text, n > o
FROM (SELECT (SELECT t.id FROM $t t WHERE EXISTS (SELECT FROM old_ids o WHERE o.id = t.id) ORDER BY t.id DESC LIMIT 1) AS o,
             (SELECT t.id FROM $t t WHERE NOT EXISTS (SELECT FROM old_ids o WHERE o.id = t.id) ORDER BY t.id LIMIT 1) AS n) x});
			is($above, 't',
				"$name: every new id of $t sorts above every old one (old up to $old_max, new from $new_min)");
		}
	}
	if ($name eq 'pguuidv7')
	{
		is($node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM pg_extension WHERE extname = 'crid_test_pg_uuidv7')
    || ' ' || pg_get_expr(d.adbin, d.adrelid)
    || ' ' || ((SELECT count(*) FROM documents_by_time WHERE at IS NOT NULL) = (SELECT count(*) FROM documents))
    || ' ' || (SELECT string_agg(DISTINCT x.extname, ',') FROM pg_depend v
               JOIN pg_rewrite r ON v.classid = 'pg_rewrite'::regclass AND v.objid = r.oid
               JOIN pg_depend e ON e.classid = 'pg_proc'::regclass AND e.objid = v.refobjid AND e.deptype = 'e'
               JOIN pg_extension x ON x.oid = e.refobjid
               WHERE r.ev_class = 'documents_by_time'::regclass AND v.refclassid = 'pg_proc'::regclass)
FROM pg_attrdef d WHERE d.adrelid = 'documents'::regclass}),
			'0 uuid_generate_v7() true crid',
			'pguuidv7: the stand-in is gone, the DEFAULT and the view call crid\'s functions, the view reads every row');
	}
	unlike($node->safe_psql('postgres', q{SELECT string_agg(problem || ' ' || object, ', ') FROM crid_check()
	                                    WHERE problem IN ('key_above_now', 'partition_layout')}),
		qr/\S/, "$name: crid_check() finds no key above what it mints");
	$node->stop;
}

# docs/migrations.md's move to UUIDv7 keys, its statements read from the
# page, while a client inserts through a statement prepared before step 1
# that returns the key as text, as the page asks of such clients: no error
# through the swap, bigint keys before it, UUIDv7 keys after it.
{
	my $migrations = slurp_file("$FindBin::RealBin/../../../docs/migrations.md");
	$migrations =~ /## Moving a table to UUIDv7 keys.*?```sql\n(.*?)```/s
	  or die 'docs/migrations.md has no UUIDv7 migration';
	my $steps = $1;
	my $node = crid_node('from_bigint_to_uuidv7', conf => "crid.node_id = 1\n");
	$node->safe_psql('postgres', q{
CREATE TABLE orders (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE order_items (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                          order_id bigint NOT NULL REFERENCES orders (id), qty int);
INSERT INTO orders (created_at) SELECT now() - g * interval '1 minute' FROM generate_series(1, 1000) g;
INSERT INTO order_items (order_id, qty) SELECT id, 1 FROM orders;
});
	my $client = psql_start($node->connstr('postgres'),
		'PREPARE ins AS INSERT INTO orders (created_at) VALUES (now()) RETURNING id::text',
		map { ('EXECUTE ins', 'DO $$BEGIN PERFORM pg_sleep(0.01); END$$') } 1 .. 400);
	$node->poll_query_until('postgres', 'SELECT count(*) >= 1020 FROM orders') or die 'the client does not insert';
	my ($ret, $out, $err) = $node->psql('postgres', $steps, on_error_stop => 1);
	is($ret, 0, "migrations.md: the UUIDv7 migration's statements run") or diag($err);
	my $ids = eval { psql_finish($client, 'prepared-statement client') };
	is($@, '', 'migrations.md: the prepared-statement client saw no error through the swap');
	my @ids = split /\n/, $ids // '';
	ok(@ids == 400 && $ids[0] =~ /^\d+$/ && $ids[-1] =~ /^[0-9a-f]{8}-[0-9a-f]{4}-7/,
		'migrations.md: its ids were bigints before the swap and UUIDv7s after it');
	$node->stop;
}

done_testing();
