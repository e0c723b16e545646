# Converted sequences under real ORMs, on two servers of a fleet at once
# (docs/sequences.md): each ORM inserts through its own key strategy into
# tables whose sequences crid converted, on server A (node 1) and server B
# (node 2, reserving crid blocks in A's registry) at the same time, and every
# key is checked for its family and for uniqueness across both servers.
# Hibernate's pooled and pooled-lo optimizers are sent as the statements
# they send (select nextval, keys derived with INCREMENT BY 50) whether or
# not Hibernate itself can run here. An ORM that is not installed is a skip
# naming it. Then pg_dump/pg_restore of a database with converted sequences
# restores them converted, and the restored server hands out no value the
# source did.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use IPC::Run;
use List::Util;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $rows = 200;    # rows each ORM inserts on each server, per strategy

my $server_a = crid_node('seq_a', conf => "crid.node_id = 1\n");
my $registry = sprintf('host=%s port=%d dbname=postgres', $server_a->host, $server_a->port);
my $server_b = crid_node('seq_b', conf => "crid.node_id = 2\ncrid.registry = '$registry'\n");

# The tables, made as each ORM's own schema tools make them (SQLAlchemy's
# Sequence is not owned by its column: it is given to it), each sequence
# converted: snowflake ids for some, crid ids for the others.
my $schema = q{
CREATE TABLE hib_pooled (id bigint PRIMARY KEY, note text);
CREATE SEQUENCE hib_pooled_seq INCREMENT BY 50 OWNED BY hib_pooled.id;
CREATE TABLE hib_pooled_lo (id bigint PRIMARY KEY, note text);
CREATE SEQUENCE hib_pooled_lo_seq INCREMENT BY 50 OWNED BY hib_pooled_lo.id;
CREATE TABLE sa_items (id bigint PRIMARY KEY, note text);
CREATE SEQUENCE sa_items_seq OWNED BY sa_items.id;
CREATE TABLE dj_items (id bigserial PRIMARY KEY, note text NOT NULL);
CREATE TABLE ar_items (id bigserial PRIMARY KEY, note text);
CREATE TABLE sq_items (id bigserial PRIMARY KEY, note text, "createdAt" timestamptz NOT NULL, "updatedAt" timestamptz NOT NULL);
CREATE TABLE plain_items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
SELECT crid_sequence_convert('hib_pooled_seq');
SELECT crid_sequence_convert('hib_pooled_lo_seq', 'crid');
SELECT crid_sequence_convert('sa_items_seq');
SELECT crid_sequence_convert('dj_items', 'crid');
SELECT crid_sequence_convert('ar_items');
SELECT crid_sequence_convert('sq_items', 'crid');
SELECT crid_sequence_convert('plain_items');
};
my %family = (hib_pooled => 'snowflake', hib_pooled_lo => 'crid', sa_items => 'snowflake', dj_items => 'crid',
	ar_items => 'snowflake', sq_items => 'crid', plain_items => 'snowflake');
for my $node ($server_a, $server_b)
{
	$node->safe_psql('postgres', 'CREATE DATABASE app');
	$node->safe_psql('app', "CREATE EXTENSION crid; $schema");
}
CridTest::registry_open($server_a);

# Hibernate's SequenceStyleGenerator, allocationSize 50: one
# "select nextval ('seq')" per 50 keys; the pooled optimizer takes the keys
# ending at the value, pooled-lo those starting at it.
my $hibernate = join "\n", map {
	qq{select nextval ('hib_pooled_seq') as v \\gset
insert into hib_pooled (id, note) select k, 'pooled' from generate_series(:v - 49, :v) k;
select nextval ('hib_pooled_lo_seq') as v \\gset
insert into hib_pooled_lo (id, note) select k, 'pooled-lo' from generate_series(:v, :v + 49) k;}
} 1 .. $rows / 50;
my $tmp = PostgreSQL::Test::Utils::tempdir();
my $hibernate_file = "$tmp/hibernate.sql";
PostgreSQL::Test::Utils::append_to_file($hibernate_file, "$hibernate\n");
# A session of plain IDENTITY inserts beside them, on the same nodes.
my $identity = "INSERT INTO plain_items (note) SELECT 'identity' FROM generate_series(1, $rows);"
  . " INSERT INTO plain_items (note) VALUES ('one') RETURNING id;";

my $sqlalchemy = <<'PY';
import sys
from sqlalchemy import BigInteger, Column, Sequence, Text, create_engine
from sqlalchemy.orm import Session, declarative_base
host, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
Base = declarative_base()
class Item(Base):
    __tablename__ = "sa_items"
    id = Column(BigInteger, Sequence("sa_items_seq"), primary_key=True)
    note = Column(Text)
engine = create_engine(f"postgresql+psycopg2:///app?host={host}&port={port}", future=True)
with Session(engine) as session:
    items = [Item(note="sqlalchemy") for _ in range(n)]
    for i, item in enumerate(items):
        session.add(item)
        if i % 20 == 19:
            session.flush()
    session.commit()
    print("\n".join(str(item.id) for item in items))
PY
my $django = <<'PY';
import sys
import django
from django.conf import settings
host, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
settings.configure(DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "app",
                                          "HOST": host, "PORT": port}},
                   INSTALLED_APPS=[], DEFAULT_AUTO_FIELD="django.db.models.BigAutoField")
django.setup()
from django.db import models
class Item(models.Model):
    id = models.BigAutoField(primary_key=True)
    note = models.TextField()
    class Meta:
        app_label = "crid_orm"
        db_table = "dj_items"
ids = [Item.objects.create(note="django").id for _ in range(n)]
ids += [item.id for item in Item.objects.bulk_create([Item(note="bulk") for _ in range(n)])]
print("\n".join(str(i) for i in ids))
PY
my $activerecord = <<'RB';
require 'active_record'
host, port, n = ARGV[0], ARGV[1].to_i, ARGV[2].to_i
ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: host, port: port, database: 'app')
class ArItem < ActiveRecord::Base; end
ids = (1..n).map { ArItem.create!(note: 'activerecord').id }
ids += ArItem.insert_all(Array.new(n) { { note: 'bulk' } }, returning: [:id]).rows.flatten
puts ids
RB
my $sequelize = <<'JS';
const [sequelizeDir, pgDir, host, port, n] = process.argv.slice(2);
const { Sequelize, DataTypes } = require(sequelizeDir);
const db = new Sequelize('app', require('os').userInfo().username, null,
    { dialect: 'postgres', dialectModule: require(pgDir), host, port: Number(port), logging: false });
const Item = db.define('Item', { id: { type: DataTypes.BIGINT, autoIncrement: true, primaryKey: true },
                                 note: DataTypes.TEXT }, { tableName: 'sq_items' });
(async () => {
    const ids = [];
    for (let i = 0; i < Number(n); i++) ids.push((await Item.create({ note: 'sequelize' })).id);
    const bulk = await Item.bulkCreate(Array.from({ length: Number(n) }, () => ({ note: 'bulk' })));
    for (const item of bulk) ids.push(item.id);
    console.log(ids.join('\n'));
    await db.close();
})().catch((e) => { console.error(e); process.exit(1); });
JS

# What each ORM needs, and why it is skipped when missing.
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : undef;
sub python_has { my ($module) = @_; return $python && system($python, '-c', "import $module") == 0; }
sub ruby_has { return system('ruby', '-e', 'require "active_record"; require "pg"') == 0; }
my ($sequelize_dir, $pg_dir);
if (!$ENV{CRID_NO_NPM} && system('sh', '-c', 'command -v npm >/dev/null') == 0)
{
	chomp($sequelize_dir = `$FindBin::RealBin/../../harness/npm-package.sh sequelize 6.37.3 2>/dev/null`);
	chomp($pg_dir = `$FindBin::RealBin/../../harness/npm-package.sh pg 8.11.3 2>/dev/null`);
}
my %orms = (
	sqlalchemy => {
		missing => (python_has('sqlalchemy') && python_has('psycopg2') ? undef
			: 'SQLAlchemy for /usr/bin/python3 (python3-sqlalchemy, python3-psycopg2) is not installed'),
		table => 'sa_items', script => $sqlalchemy, run => sub { [ $python, @_ ] }, per_run => $rows },
	django => {
		missing => (python_has('django') && python_has('psycopg2') ? undef
			: 'Django for /usr/bin/python3 (python3-django, python3-psycopg2) is not installed'),
		table => 'dj_items', script => $django, run => sub { [ $python, @_ ] }, per_run => 2 * $rows },
	activerecord => {
		missing => (ruby_has() ? undef : 'ActiveRecord (ruby-activerecord, ruby-pg) is not installed'),
		table => 'ar_items', script => $activerecord, run => sub { [ 'ruby', @_ ] }, per_run => 2 * $rows },
	sequelize => {
		missing => ($sequelize_dir && -d $sequelize_dir && $pg_dir && -d $pg_dir ? undef
			: 'Sequelize 6.37.3 and pg 8.11.3 could not be had from npm'),
		table => 'sq_items', script => $sequelize,
		run => sub { my ($file, @args) = @_; [ 'node', $file, $sequelize_dir, $pg_dir, @args ] },
		per_run => 2 * $rows });

# Everything at once: on each server Hibernate's statements, IDENTITY
# inserts, and every ORM that is here.
my @running;
for my $node ($server_a, $server_b)
{
	push @running, [ 'hibernate statements', psql_start($node->connstr('app'), [ '-f', $hibernate_file ]) ];
	push @running, [ 'identity inserts', psql_start($node->connstr('app'), $identity) ];
	for my $orm (sort keys %orms)
	{
		next if $orms{$orm}{missing};
		my $file = "$tmp/$orm";
		PostgreSQL::Test::Utils::append_to_file($file, $orms{$orm}{script}) unless -e $file;
		my ($out, $err) = ('', '');
		my $run = IPC::Run::start($orms{$orm}{run}->($file, $node->host, $node->port, $rows),
			'>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		push @running, [ $orm, { run => $run, out => \$out, err => \$err }, $node->name ];
	}
}
my %returned;    # ORM => the keys it was handed, from both servers
for my $r (@running)
{
	my ($what, $session, $server) = @$r;
	if ($session->{file})
	{
		psql_finish($session, $what);
		next;
	}
	ok($session->{run}->finish, "$what ran on $server") or diag(${ $session->{err} });
	push @{ $returned{$what} }, grep { /^\d+$/ } split /\n/, ${ $session->{out} };
}
for my $orm (sort keys %orms)
{
  SKIP:
	{
		skip $orms{$orm}{missing}, 2 if $orms{$orm}{missing};
		my @keys = @{ $returned{$orm} || [] };
		is(scalar @keys, 2 * $orms{$orm}{per_run}, "$orm was handed a key for every row on both servers");
		my %seen;
		is(scalar(grep { $seen{$_}++ } @keys), 0, "... no key twice");
	}
}

# Every key of every table, from both servers: of its family, and unique per
# family across both (a snowflake and a crid id may be the same number, in
# different tables).
my $decode = q{
SELECT t.family, t.id,
       CASE t.family
           WHEN 'snowflake' THEN (snowflake_parse(t.id)).node = %d
                                 AND snowflake_to_timestamptz(t.id) > now() - interval '1 hour'
           ELSE abs(extract(epoch FROM crid_to_timestamptz(t.id) - now())) < 3600 END
FROM (%s) t(family, id)};
my $union = join ' UNION ALL ', map { "SELECT '$family{$_}', id FROM $_" } sort keys %family;
my (%keys, %count, $not_family);
for my $pair ([ $server_a, 1 ], [ $server_b, 2 ])
{
	my ($node, $id) = @$pair;
	for my $line (split /\n/, $node->safe_psql('app', sprintf($decode, $id, $union)))
	{
		my ($family, $key, $ok) = split /\|/, $line;
		$keys{$family}{$key}++;
		$count{$family}++;
		$not_family++ unless $ok eq 't';
	}
}
my $expected_hibernate = 2 * 2 * $rows;    # two tables, two servers
cmp_ok($count{snowflake} + $count{crid}, '>=', $expected_hibernate + 2 * ($rows + 1),
	'both servers hold the rows of Hibernate\'s statements and the IDENTITY inserts');
is($not_family // 0, 0, 'every key is an id of its table\'s family (snowflake: of its server\'s node)');
is(scalar(grep { $_ > 1 } values %{ $keys{snowflake} }), 0, 'no snowflake key is in two rows, on either server');
is(scalar(grep { $_ > 1 } values %{ $keys{crid} }), 0, 'no crid key is in two rows, on either server');

# --- pg_dump and pg_restore ------------------------------------------------
# A's database restored on B: its sequences still converted, its DEFAULT
# still crid's, and nothing the restored copy hands out is a value A did.
my $dump = "$tmp/app.dump";
$server_a->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $server_a->connstr('app') ], 'pg_dump of a database with converted sequences');
$server_b->safe_psql('postgres', 'CREATE DATABASE restored');
$server_b->command_ok([ 'pg_restore', '-d', $server_b->connstr('restored'), $dump ], 'pg_restore of it on another server');
is($server_b->safe_psql('restored', 'SELECT count(*) FROM crid_sequences'), scalar(keys %family),
	'the restored database keeps every conversion');
is($server_b->safe_psql('restored', q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'ar_items'::regclass}),
	q{crid_sequence_nextval('ar_items_id_seq'::regclass)}, '... and the DEFAULT that mints');
my $before = $server_a->safe_psql('app', "SELECT max(id) FROM ($union) t(f, id) WHERE f = 'snowflake'");
my $after = $server_b->safe_psql('restored', q{
INSERT INTO ar_items (note) VALUES ('restored') RETURNING id;
});
my ($hib) = $server_b->safe_psql('restored', q{SELECT nextval('hib_pooled_seq')});
my ($plain) = $server_b->safe_psql('restored', q{INSERT INTO plain_items (note) VALUES ('restored') RETURNING id});
for my $value ($after, $hib, $plain)
{
	ok(!$keys{snowflake}{$value} && $value > $before, "the restored server hands out $value, above every value of the source");
}
is($server_b->safe_psql('restored', "SELECT (snowflake_parse($after)).node"), '2', '... minted on its own node');
my ($ret, $out, $err) = $server_b->psql('restored', q{COPY plain_items (note) FROM PROGRAM 'echo x'});
like($err, qr/plain_items_id_seq/, 'COPY into the restored IDENTITY column fails naming the sequence');

# Reverting on the restored copy: a plain sequence above every value handed
# out on either server.
my $restart = $server_b->safe_psql('restored', q{SELECT crid_sequence_revert('ar_items')});
my $max_all = List::Util::max(keys %{ $keys{snowflake} }, $after);
ok($restart > $max_all, 'reverted, it starts above every value handed out');
is($server_b->safe_psql('restored', q{INSERT INTO ar_items (note) VALUES ('plain') RETURNING id}), $restart, '... as a plain sequence');

done_testing();
