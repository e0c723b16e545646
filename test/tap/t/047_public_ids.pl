# Public ids (crid_mask, crid_unmask, crid_mask_sqid, crid_unmask_sqid) on a
# server with crid preloaded, as the applications that use them would:
#
# 1. A million ids of each family (uuid_generate_v7, snowflake_next,
#    crid_next) under each of 8 keys: every face unmasks to its id, the faces
#    of a key are all different, 63-bit faces are never negative, no face is
#    its id or the face another key gives; Sqids text of 100,000 ids under
#    two keys and two sets of options reads back, and only in its own
#    spelling.
# 2. npm's sqids 0.3.0 (the package applications decode with) reads the text
#    crid_mask_sqid writes as the face crid_mask gives, and writes the same
#    text from that face: faces of every size, default options, min_length,
#    other alphabets, a small blocklist, npm's own default blocklist passed
#    to crid as a text[], and a prefix. Without node this part is skipped.
# 3. Keys never leak: an ordinary role cannot read them and gets errors of
#    the right SQLSTATE naming no key; a role outside a key's usable_by gets
#    42501; a key administrator granted SELECT reads them. After everything
#    else in this file ran (log_statement = 'all', verbose errors,
#    auto_explain of every statement, pg_stat_statements of nested ones too),
#    no key, in hex, upper-case hex, halves, base64, bytea escape, its two
#    64-bit words in decimal or raw bytes, is in the server log, in
#    pg_stat_statements, in pg_settings, in what the ordinary roles' psql
#    printed or in the statistics they may read (which do hold the keys, as
#    a superuser sees: the scan's own proof that it finds them).
# 4. A key deleted, given to another role, or a role leaving usable_by in
#    another session: the next transaction of a session that used it gets
#    55000 (retired) or 42501, also through a prepared statement.
# 5. A query by face is an index scan of the primary key, the face folded
#    into the id; a prepared one with a parameter still is, on its generic
#    plan.
# The checks run in the order 1, 2, 5, 4, 3: the scans of 3 then see what
# all the others did.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use File::Spec;
use MIME::Base64 qw(encode_base64);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# pg_stat_statements and auto_explain (contrib, in Debian's server package)
# preloaded beside crid when this PostgreSQL has them.
my $pkglibdir = `pg_config --pkglibdir`;
chomp $pkglibdir;
my %contrib = map { $_ => -e "$pkglibdir/$_.so" } qw(pg_stat_statements auto_explain);
my $libraries = join ',', 'crid', grep { $contrib{$_} } qw(pg_stat_statements auto_explain);
my $node = crid_node('public_ids', conf => qq{
shared_preload_libraries = '$libraries'
crid.node_id = 1
log_statement = 'all'
log_min_duration_statement = 0
log_min_error_statement = 'error'
log_error_verbosity = verbose
pg_stat_statements.track = 'all'
auto_explain.log_min_duration = 0
auto_explain.log_nested_statements = on
auto_explain.log_verbose = on
});
my $pss = $contrib{pg_stat_statements};
$node->safe_psql('postgres', 'CREATE EXTENSION pg_stat_statements') if $pss;

# Roles: api_users may use keys 1 to 8 (app is a member), other_users key 9
# (outsider is a member, not of api_users); key_admin administers the key
# table and uses no key.
$node->safe_psql('postgres', q{
CREATE ROLE api_users NOLOGIN;
CREATE ROLE other_users NOLOGIN;
CREATE ROLE app LOGIN IN ROLE api_users;
CREATE ROLE outsider LOGIN IN ROLE other_users;
CREATE ROLE key_admin LOGIN;
GRANT SELECT, INSERT, UPDATE, DELETE ON crid_public_id_keys TO key_admin;
CREATE ROLE writer LOGIN IN ROLE pg_write_all_data;
});
$node->safe_psql('postgres', sqlstate_of_sql('public'));
# Keys made as an administrator does, never typed: 1 to 8 for api_users, 9
# for other_users, 20 to 24 for the invalidation checks (4).
is( $node->safe_psql('postgres', q{
SELECT string_agg(k::text, ',' ORDER BY k) FROM (
    SELECT crid_public_id_key_create('api_users') AS k FROM generate_series(1, 8)
    UNION ALL SELECT crid_public_id_key_create('other_users', 9)
    UNION ALL SELECT crid_public_id_key_create('api_users', n, 'invalidation ' || n) FROM generate_series(20, 24) n) s}),
	'1,2,3,4,5,6,7,8,9,20,21,22,23,24', 'crid_public_id_key_create makes keys 1 to 9 and 20 to 24');

# The test's own knowledge of the keys, read as a superuser: the forms a key
# could leak in.
my %secret = map { split /\|/ } split /\n/,
  $node->safe_psql('postgres', q{SELECT key_id, encode(secret, 'hex') FROM crid_public_id_keys ORDER BY key_id});
is(scalar(grep { /^[0-9a-f]{32}$/ } values %secret), 14, 'each key is 16 bytes');
my @needles;
for my $k (sort { $a <=> $b } keys %secret)
{
	my $hex = $secret{$k};
	my $raw = pack('H*', $hex);
	my %forms = (
		'hex' => $hex,
		'upper-case hex' => uc $hex,
		'hex of its first half' => substr($hex, 0, 16),
		'hex of its second half' => substr($hex, 16),
		'upper-case hex of its first half' => uc substr($hex, 0, 16),
		'upper-case hex of its second half' => uc substr($hex, 16),
		'base64' => encode_base64($raw, ''),
		'raw bytes' => $raw,
		# encode(secret, 'escape'), and bytea_output = 'escape'
		'bytea escape' => join('', map { $_ == 0 || $_ >= 128 ? sprintf('\\%03o', $_) : $_ == 92 ? '\\\\' : chr } unpack('C*', $raw)),
		'bytea_output escape' => join('', map { $_ < 32 || $_ > 126 ? sprintf('\\%03o', $_) : $_ == 92 ? '\\\\' : chr } unpack('C*', $raw)),
		'first word, little-endian, in decimal' => unpack('Q<', substr($raw, 0, 8)),
		'second word, little-endian, in decimal' => unpack('Q<', substr($raw, 8)),
		'first word, big-endian, in decimal' => unpack('Q>', substr($raw, 0, 8)),
		'second word, big-endian, in decimal' => unpack('Q>', substr($raw, 8)));
	push @needles, map { [ "key $k as $_", $forms{$_} ] } sort keys %forms;
}

# The keys found in `text`, each in every form found.
sub leaks
{
	my ($text) = @_;
	return join ', ', map { $_->[0] } grep { index($text, $_->[1]) >= 0 } @needles;
}

# Everything psql printed to the ordinary roles (app, outsider, key_admin),
# errors and notices included, for the scan of 3.
my $client_text = '';

# Runs `sql` as `role`; returns its output and keeps all it printed (but
# for keys => 1: a key administrator reading them). Dies on an error unless
# errors => 1 (then it runs every statement, verbose errors and every level
# of notice to the client).
sub as_role
{
	my ($role, $sql, %opt) = @_;
	my ($out, $err) = ('', '');
	$sql = "\\set VERBOSITY verbose\nSET client_min_messages = debug5;\n$sql" if $opt{errors};
	my $ret = $node->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		on_error_stop => $opt{errors} ? 0 : 1, extra_params => [ '-U', $role ]);
	$client_text .= "$out\n$err\n" unless $opt{keys};
	die "psql as $role failed: $err" if $ret != 0 || (!$opt{errors} && $err =~ /ERROR/);
	return $out;
}

# Each [statement, SQLSTATE] of @$calls as $role: one check that each gives
# its SQLSTATE ('ok' for none), then the statements once more as a client
# sends them, so that their messages join what the leak scan reads.
sub sqlstates_as
{
	my ($role, $calls, $name) = @_;
	is( as_role($role, 'SELECT ' . join(" || ' ' || ", map { "sqlstate_of(\$q\$$_->[0]\$q\$)" } @$calls)),
		join(' ', map { $_->[1] } @$calls), $name);
	as_role($role, join('', map { "$_->[0];\n" } @$calls), errors => 1);
}

# ---------------------------------------------------------------------------
# 1. A million round trips per family, under each of 8 keys.
# ---------------------------------------------------------------------------
$node->safe_psql('postgres', q{
CREATE UNLOGGED TABLE u_ids (id uuid);
CREATE UNLOGGED TABLE s_ids (id bigint);
CREATE UNLOGGED TABLE c_ids (id bigint);
INSERT INTO u_ids SELECT uuid_generate_v7() FROM generate_series(1, 1000000);
INSERT INTO s_ids SELECT snowflake_next(1) FROM generate_series(1, 1000000);
INSERT INTO c_ids SELECT crid_next() FROM generate_series(1, 1000000);
GRANT SELECT ON u_ids, s_ids, c_ids TO app;
});
is( $node->safe_psql('postgres', q{
SELECT (SELECT count(DISTINCT id) FROM u_ids) || ' ' || (SELECT count(DISTINCT id) FROM s_ids)
       || ' ' || (SELECT count(DISTINCT id) FROM c_ids)
       || ' ' || (SELECT count(*) FROM (SELECT id FROM s_ids UNION ALL SELECT id FROM c_ids) a WHERE id < 0)}),
	'1000000 1000000 1000000 0', 'a million distinct ids of each family, the 63-bit ones not negative');

# Per key: rows, faces that do not unmask to their id, distinct faces,
# negative faces (63-bit) or faces not of version 4 and the RFC variant
# (UUIDv47), faces equal to their id, faces equal to key 1's.
my %family = (
	uuid => [ 'u_ids', q{substr(f::text, 15, 1) <> '4' OR substr(f::text, 20, 1) NOT IN ('8', '9', 'a', 'b')} ],
	snowflake => [ 's_ids', 'f < 0' ],
	crid => [ 'c_ids', 'f < 0' ]);
my @sessions;
for my $name (sort keys %family)
{
	my ($table, $bad_face) = @{ $family{$name} };
	my @queries = map {
		qq{SELECT '$name $_ ' || count(*) || ' ' || count(*) FILTER (WHERE crid_unmask(f, $_) IS DISTINCT FROM id)
                  || ' ' || count(DISTINCT f) || ' ' || count(*) FILTER (WHERE $bad_face)
                  || ' ' || count(*) FILTER (WHERE f = id)
                  || ' ' || count(*) FILTER (WHERE $_ <> 1 AND f = crid_mask(id, 1))
             FROM (SELECT id, crid_mask(id, $_) AS f FROM $table OFFSET 0) m}
	} 1 .. 8;
	push @sessions, psql_start($node->connstr('postgres') . ' user=app', @queries);
}
my %round_trips = map { /^(\w+ \d+) (.*)$/ } map { split /\n/, psql_finish($_, 'round trips') } @sessions;
for my $name (sort keys %family)
{
	for my $k (1 .. 8)
	{
		is($round_trips{"$name $k"}, '1000000 0 1000000 0 0 0',
			"$name, key $k: 1,000,000 faces unmask to their ids, all distinct, well-formed, none its id or key 1's face");
	}
}

# Sqids text of 100,000 crid ids under keys 1 and 2: default options, and
# prefix 'ord', min_length 16 and an alphabet of lower-case letters and
# digits. Each reads back, all are distinct, each has its form.
my %sqid_options = (
	default => [ q{}, q{^[a-zA-Z0-9]+$} ],
	ord => [ q{, prefix => 'ord', min_length => 16, alphabet => '0123456789abcdefghijklmnopqrstuvwxyz'},
		q{^ord_[0-9a-z]{16,}$} ]);
for my $set (sort keys %sqid_options)
{
	my ($options, $form) = @{ $sqid_options{$set} };
	for my $k (1, 2)
	{
		is( as_role('app', qq{
SELECT count(*) || ' ' || count(*) FILTER (WHERE crid_unmask_sqid(t, $k$options) IS DISTINCT FROM id)
       || ' ' || count(DISTINCT t) || ' ' || count(*) FILTER (WHERE t !~ '$form')
  FROM (SELECT id, crid_mask_sqid(id, $k$options) AS t FROM (SELECT id FROM c_ids LIMIT 100000) i OFFSET 0) m}),
			'100000 0 100000 0', "Sqids, $set options, key $k: 100,000 texts read back, all distinct and of their form");
	}
}
# Only the spelling crid_mask_sqid makes reads back: not the text of other
# options, not another padding of the same numbers.
is( as_role('app', q{
SELECT string_agg(sqlstate_of(q), ' ' ORDER BY o) FROM unnest(ARRAY[
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1, min_length => 40), 1)$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1), 1, min_length => 40)$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1, prefix => 'ord'), 1)$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1), 1, prefix => 'ord')$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1, prefix => 'ord'), 1, prefix => 'inv')$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1) || 'a', 1)$q$,
    $q$SELECT crid_unmask_sqid(crid_mask_sqid(5, 1, min_length => 40), 1, min_length => 40)$q$
]) WITH ORDINALITY u(q, o)}),
	'22P02 22P02 22P02 22P02 22P02 22P02 ok', 'crid_unmask_sqid reads only the spelling of its own options (22P02)');

# ---------------------------------------------------------------------------
# 2. npm's sqids reads crid's text, and writes it.
# ---------------------------------------------------------------------------
my $have_node = system('sh', '-c', 'command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1') == 0;
SKIP:
{
	skip 'Node.js (node and npm) is not installed: npm\'s sqids cannot check crid\'s Sqids text', 40
	  unless $have_node;

	# The published package, in the harness's cache (or this test's folder
	# when that cache is not the postgres user's to write).
	my $npm_package = "$FindBin::RealBin/../../harness/npm-package.sh";
	my ($sqids_dir, $npm_err) = run_command([ $npm_package, 'sqids', '0.3.0' ]);
	if ($sqids_dir !~ m{/sqids$} && !$ENV{CRID_NPM_CACHE})
	{
		local $ENV{CRID_NPM_CACHE} = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir()) . '/npm';
		($sqids_dir, $npm_err) = run_command([ $npm_package, 'sqids', '0.3.0' ]);
	}
	ok($sqids_dir =~ m{/sqids$} && -d $sqids_dir, 'test/harness/npm-package.sh installs npm\'s sqids 0.3.0')
	  or diag $npm_err;

	my $dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
	# Reads lines text, face, alphabet, min_length, blocklist (JSON: the
	# words, or "npm-default" for npm's own list); prints for each the face
	# npm decodes (or what it decoded instead) and the text npm encodes the
	# face into. With npm's default list and Sqids' default alphabet and
	# min_length, the Sqids is npm's new Sqids(), no option given. Run with
	# the arguments DIR blocklist, it prints npm's default blocklist.
	PostgreSQL::Test::Utils::append_to_file("$dir/check.js", <<'EOF');
const fs = require('fs');
const { default: Sqids, defaultOptions } = require(process.argv[2]);
if (process.argv[3] === 'blocklist') {
    process.stdout.write([...defaultOptions.blocklist].join('\n') + '\n');
    process.exit(0);
}
const coders = new Map();
const out = [];
for (const line of fs.readFileSync(process.argv[3], 'utf8').split('\n')) {
    if (line === '') continue;
    const [text, face, alphabet, minLength, blocklist] = line.split('\t');
    const options = [alphabet, minLength, blocklist].join('\t');
    let sqids = coders.get(options);
    if (!sqids) {
        const words = JSON.parse(blocklist);
        if (words === 'npm-default')
            sqids = alphabet === defaultOptions.alphabet && Number(minLength) === 0
                ? new Sqids() : new Sqids({ alphabet, minLength: Number(minLength) });
        else
            sqids = new Sqids({ alphabet, minLength: Number(minLength), blocklist: new Set(words) });
        coders.set(options, sqids);
    }
    const numbers = sqids.decode(text);
    const decoded = numbers.length === 2 ? (BigInt(numbers[0]) * 2n ** 32n + BigInt(numbers[1])).toString()
                                         : 'numbers ' + JSON.stringify(numbers);
    const f = BigInt(face);
    out.push(decoded + '\t' + sqids.encode([Number(f >> 32n), Number(f & 0xffffffffn)]));
}
process.stdout.write(out.join('\n') + '\n');
EOF
	my ($words, $words_err) = run_command([ 'node', "$dir/check.js", $sqids_dir, 'blocklist' ]);
	my @npm_words = split /\n/, $words;
	cmp_ok(scalar(@npm_words), '>=', 100, 'npm\'s sqids has a default blocklist') or diag $words_err;
	my $default_alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
	$node->safe_psql('postgres', sprintf(q{
CREATE TABLE npm_words AS SELECT ARRAY[%s]::text[] AS words;
-- 2,000 ids: the edges of 63 bits as ids and as faces (the id whose face
-- under key 1 is the value), random 63-bit ids, random small ones, crid ids.
CREATE TABLE sq_ids (id bigint);
INSERT INTO sq_ids
SELECT DISTINCT v FROM (
    SELECT v FROM unnest(ARRAY[0, 1, 2, 3, 2147483647, 2147483648, 4294967295, 4294967296, 4294967297,
                               4611686018427387904, 9223372036854775806, 9223372036854775807]::bigint[]) v
    UNION ALL
    SELECT crid_unmask(v, 1) FROM unnest(ARRAY[0, 1, 2, 3, 2147483647, 2147483648, 4294967295, 4294967296,
                               4294967297, 4611686018427387904, 9223372036854775806, 9223372036854775807]::bigint[]) v) e;
INSERT INTO sq_ids SELECT ('x' || md5('random ' || g))::bit(64)::bigint & 9223372036854775807 FROM generate_series(1, 1200) g;
INSERT INTO sq_ids SELECT g * 3583 FROM generate_series(1, 300) g;
INSERT INTO sq_ids SELECT id FROM c_ids LIMIT 2000 - (SELECT count(*) FROM sq_ids);
GRANT SELECT ON npm_words, sq_ids TO app;
}, join(',', map { (my $w = $_) =~ s/'/''/g; "'$w'" } @npm_words)));
	is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM sq_ids'), '2000|2000', '2,000 ids for npm');

	# Ids whose text npm's default blocklist changes (with the default and
	# with a lower-case alphabet), out of 200,000 others (about 100 and 60
	# are): 30 of each join the ids, so that the blocklist surely acts.
	my $a1 = '0123456789abcdefghijklmnopqrstuvwxyz';
	for my $alphabet ($default_alphabet, $a1)
	{
		$node->safe_psql('postgres', qq{
INSERT INTO sq_ids
SELECT id FROM (SELECT ('x' || md5('blocked $alphabet ' || g))::bit(64)::bigint & 9223372036854775807 AS id
                  FROM generate_series(1, 200000) g) c
 WHERE crid_mask_sqid(id, 1, alphabet => '$alphabet')
       <> crid_mask_sqid(id, 1, alphabet => '$alphabet', blocklist => (SELECT words FROM npm_words))
   AND id NOT IN (SELECT id FROM sq_ids)
 LIMIT 30});
	}

	my $n_ids = $node->safe_psql('postgres', 'SELECT count(*) FROM sq_ids');

	# A small blocklist: words from the default texts of some ids (so they
	# act): runs of 5 letters (they block ids containing them), one in upper
	# case (compared in lower case), starts of 4 characters with a digit
	# (they block ids starting or ending with them); and words npm drops: too
	# short, with a character outside the alphabet.
	my @texts = split /\n/, $node->safe_psql('postgres', q{
SELECT crid_mask_sqid(id, 1) FROM sq_ids WHERE id BETWEEN 1000 AND 1048575 ORDER BY id LIMIT 40});
	my (@inner, @affix);
	for my $text (@texts)
	{
		if (@inner < 4 && $text =~ /([a-zA-Z]{5})/)
		{
			push @inner, @inner == 3 ? uc $1 : lc $1;
		}
		elsif (@affix < 2 && substr($text, 0, 4) =~ /[0-9]/)
		{
			push @affix, substr($text, 0, 4);
		}
	}
	my @small = (@inner, @affix, 'ab', 'no-such');
	my $small_json = '[' . join(',', map { qq{"$_"} } @small) . ']';
	my $small_sql = 'ARRAY[' . join(',', map { "'$_'" } @small) . ']';

	# Option sets: crid's arguments after the key, npm's alphabet,
	# min_length and blocklist, the prefix crid writes.
	my $npm_list = '(SELECT words FROM npm_words)';
	my @sets = (
		[ 'default options', '', $default_alphabet, 0, '[]', '' ],
		[ 'min_length 10', ', min_length => 10', $default_alphabet, 10, '[]', '' ],
		[ 'min_length 40', ', min_length => 40', $default_alphabet, 40, '[]', '' ],
		[ 'alphabet of lower-case letters and digits', ", alphabet => '$a1'", $a1, 0, '[]', '' ],
		[ 'alphabet of punctuation, digits and A-F, min_length 16',
			q{, alphabet => '!#$%&()*+,-./:;<=>?@[]^_{|}~0123456789ABCDEF', min_length => 16},
			'!#$%&()*+,-./:;<=>?@[]^_{|}~0123456789ABCDEF', 16, '[]', '' ],
		[ 'alphabet of 3 characters', q{, alphabet => 'xyz'}, 'xyz', 0, '[]', '' ],
		[ 'small blocklist', ", blocklist => $small_sql", $default_alphabet, 0, $small_json, '' ],
		[ 'npm\'s default blocklist', ", blocklist => $npm_list", $default_alphabet, 0, '"npm-default"', '' ],
		[ 'npm\'s default blocklist, lower-case alphabet', ", alphabet => '$a1', blocklist => $npm_list",
			$a1, 0, '"npm-default"', '' ],
		[ 'prefix ord', q{, prefix => 'ord'}, $default_alphabet, 0, '[]', 'ord' ],
		[ 'prefix ord, min_length 40', q{, prefix => 'ord', min_length => 40}, $default_alphabet, 40, '[]', 'ord' ]);
	my (@lines, @expected, %text_of);
	for my $set (@sets)
	{
		my ($name, $options, $alphabet, $min, $blocklist, $prefix) = @$set;
		# id, face, text, whether crid reads the text back, whether it has
		# the prefix asked for.
		my $rows = as_role('app', qq{
SELECT concat_ws(E'\\t', id, face, t, crid_unmask_sqid(t, 1$options) = id)
  FROM (SELECT id, crid_mask(id, 1) AS face, crid_mask_sqid(id, 1$options) AS t FROM sq_ids OFFSET 0) m
 ORDER BY id});
		my ($count, $unread, $unprefixed) = (0, 0, 0);
		for my $row (split /\n/, $rows)
		{
			my ($id, $face, $text, $reads) = split /\t/, $row;
			$count++;
			$unread++ if $reads ne 't';
			$text_of{$name}{$id} = $text;
			if ($prefix ne '')
			{
				$unprefixed++ unless $text =~ s/^\Q${prefix}_\E//;
			}
			push @lines, join("\t", $text, $face, $alphabet, $min, $blocklist);
			push @expected, [ $name, $id, $face, $text ];
		}
		is("$count $unread $unprefixed", "$n_ids 0 0", "$name: $n_ids texts, each reads back in crid, prefixed as asked");
	}
	# The blocklists act: they change texts (npm then has to agree on those).
	my $changed = sub {
		my ($x, $y) = @_;
		return scalar grep { $text_of{$x}{$_} ne $text_of{$y}{$_} } keys %{ $text_of{$x} };
	};
	cmp_ok($changed->('small blocklist', 'default options'), '>=', 6,
		'the small blocklist changes the texts its words came from');
	cmp_ok($changed->('npm\'s default blocklist', 'default options'), '>=', 20,
		'npm\'s default blocklist changes some texts');
	cmp_ok($changed->('npm\'s default blocklist, lower-case alphabet', 'alphabet of lower-case letters and digits'),
		'>=', 20, 'npm\'s default blocklist changes some texts of the lower-case alphabet');

	PostgreSQL::Test::Utils::append_to_file("$dir/sqids.tsv", join('', map { "$_\n" } @lines));
	my ($decoded, $node_err) = run_command([ 'node', "$dir/check.js", $sqids_dir, "$dir/sqids.tsv" ]);
	my @answers = split /\n/, $decoded;
	is(scalar(@answers), scalar(@expected), 'npm answers for every text') or diag $node_err;
	my (%bad_decode, %bad_encode);
	for my $i (0 .. $#expected)
	{
		my ($name, $id, $face, $text) = @{ $expected[$i] };
		my ($npm_face, $npm_text) = split /\t/, ($answers[$i] // '');
		push @{ $bad_decode{$name} }, "id $id: crid's $text is face $face, npm reads " . ($npm_face // 'nothing')
		  if ($npm_face // '') ne $face;
		push @{ $bad_encode{$name} }, "id $id: face $face is $text in crid, " . ($npm_text // 'nothing') . ' in npm'
		  if ($npm_text // '') ne $text;
	}
	for my $set (@sets)
	{
		my $name = $set->[0];
		is(scalar(@{ $bad_decode{$name} || [] }), 0, "npm reads crid's texts as crid's faces: $name")
		  or diag join("\n", grep { defined } @{ $bad_decode{$name} }[ 0 .. 4 ]);
		is(scalar(@{ $bad_encode{$name} || [] }), 0, "npm writes crid's faces as crid's texts: $name")
		  or diag join("\n", grep { defined } @{ $bad_encode{$name} }[ 0 .. 4 ]);
	}
}

# ---------------------------------------------------------------------------
# 5. Queries by face use the primary key.
# ---------------------------------------------------------------------------
$node->safe_psql('postgres', q{
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT crid_next(), total integer);
INSERT INTO orders (total) SELECT g FROM generate_series(1, 100000) g;
CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n integer);
INSERT INTO events (n) SELECT g FROM generate_series(1, 100000) g;
VACUUM ANALYZE orders, events;
GRANT SELECT ON orders, events TO app;
});
my ($order_id, $order_total, $order_face) = split /\|/, as_role('app',
	'SELECT id, total, crid_mask(id, 1) FROM orders WHERE total = 4242');
my $plan = as_role('app', "EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE id = crid_unmask(${order_face}::bigint, 1)");
like($plan, qr/^Index (Only )?Scan using orders_pkey on orders/m, 'a crid face: an index scan of the primary key');
like($plan, qr/Index Cond: \(id = '${order_id}'::bigint\)/, 'its index condition is the id, the face unmasked at plan time');
is(as_role('app', "SELECT total FROM orders WHERE id = crid_unmask(${order_face}::bigint, 1)"),
	$order_total, 'and it finds the row');
my ($event_id, $event_n, $event_face) = split /\|/, as_role('app',
	'SELECT id, n, crid_mask(id, 1) FROM events WHERE n = 4242');
$plan = as_role('app', "EXPLAIN (COSTS OFF) SELECT * FROM events WHERE id = crid_unmask('${event_face}'::uuid, 1)");
like($plan, qr/^Index (Only )?Scan using events_pkey on events/m, 'a UUIDv47 face: an index scan of the primary key');
like($plan, qr/Index Cond: \(id = '${event_id}'::uuid\)/, 'its index condition is the UUIDv7, unmasked at plan time');

# A prepared statement, as an API runs it: 7 executions (a generic plan
# after 5), each finding its row, then the plan of the next.
my @faces = split /\n/, as_role('app',
	'SELECT crid_mask(id, 1) || \'|\' || total FROM orders WHERE total % 10000 = 7 ORDER BY total LIMIT 8');
my $out = as_role('app', join("\n",
	'PREPARE by_face(bigint) AS SELECT total FROM orders WHERE id = crid_unmask($1, 1);',
	(map { 'EXECUTE by_face(' . (split /\|/)[0] . ');' } @faces[ 0 .. 6 ]),
	'EXPLAIN (COSTS OFF) EXECUTE by_face(' . (split /\|/, $faces[7])[0] . ');',
	'EXECUTE by_face(' . (split /\|/, $faces[7])[0] . ');'));
my @out = split /\n/, $out;
is(join(' ', @out[ 0 .. 6 ], $out[-1]), join(' ', map { (split /\|/)[1] } @faces),
	'a prepared query by face finds the row of each face');
$plan = join("\n", @out[ 7 .. $#out - 1 ]);
like($plan, qr/^Index (Only )?Scan using orders_pkey on orders/m,
	'after 7 executions, the prepared query is still an index scan of the primary key');
like($plan, qr/Index Cond: \(id = crid_unmask\(\$1, 1\)\)/,
	'on its generic plan, the face unmasked once when the scan starts');

# ---------------------------------------------------------------------------
# 4. Keys changed in another session.
# ---------------------------------------------------------------------------
my $session_a = $node->background_psql('postgres', extra_params => [ '-U', 'app' ]);
my $session_b = $node->background_psql('postgres', extra_params => [ '-U', 'key_admin' ]);
my $sqlstates = sub {
	my ($session, @statements) = @_;
	my $out = $session->query_safe('SELECT ' . join(" || ' ' || ", map { "sqlstate_of(\$q\$$_\$q\$)" } @statements));
	$client_text .= "$out\n";
	return $out;
};
my @uses = map { ("SELECT crid_mask(5::bigint, $_)", "SELECT crid_unmask_sqid(crid_mask_sqid(5, $_), $_)") } 20 .. 22;
# Prepared: a face of constants (folded when planned) and one with a
# parameter, each on its generic plan (8 executions).
$session_a->query_safe(q{
PREPARE folded AS SELECT crid_unmask(crid_mask(5::bigint, 23), 23);
PREPARE with_parameter(bigint) AS SELECT crid_mask($1, 24);
});
for (1 .. 8)
{
	$session_a->query_safe('EXECUTE folded; EXECUTE with_parameter(5);');
}
is($sqlstates->($session_a, @uses, 'EXECUTE folded', 'EXECUTE with_parameter(5)'), join(' ', ('ok') x 8),
	'session A uses keys 20 to 24');
# Session B, in its own transactions: key 20 retired, key 21 given to
# other_users, app out of api_users (then keys 22, and 20 to 24 generally,
# are no longer app's), keys 23 and 24 retired. Keys are never deleted.
$session_b->query_safe(q{
UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id = 20;
UPDATE crid_public_id_keys SET usable_by = 'other_users' WHERE key_id = 21;
});
is($sqlstates->($session_a, @uses[ 0 .. 3 ]), '55000 55000 42501 42501',
	'the next transaction of session A: key 20 is retired (55000), key 21 no longer app\'s (42501)');
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), 'ok ok', 'and key 22 still serves it');
$node->safe_psql('postgres', 'REVOKE api_users FROM app');
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), '42501 42501', 'app out of api_users in a third session: key 22 refused (42501)');
$node->safe_psql('postgres', 'GRANT api_users TO app');
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), 'ok ok', 'app back in api_users: key 22 serves it again');
# A transaction whose snapshot is older than a key's move: once it takes a
# lock (and so hears of the move), the key is read as it is now, not as its
# snapshot saw it, and nothing stale stays in the backend after it ends.
$session_a->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1;');
$session_b->query_safe(q{UPDATE crid_public_id_keys SET usable_by = 'other_users' WHERE key_id = 22});
$session_a->query_safe('SELECT count(*) FROM orders');
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), '42501 42501',
	'inside a REPEATABLE READ transaction older than the move of key 22: refused (42501)');
$session_a->query_safe('COMMIT');
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), '42501 42501', 'and after it: refused (42501)');
$session_b->query_safe(q{UPDATE crid_public_id_keys SET usable_by = 'api_users' WHERE key_id = 22});
is($sqlstates->($session_a, @uses[ 4 .. 5 ]), 'ok ok', 'key 22 given back: it serves app again');
$session_b->query_safe('UPDATE crid_public_id_keys SET retired_at = now() WHERE key_id IN (23, 24)');
is($sqlstates->($session_a, 'EXECUTE with_parameter(5)'), '55000', 'a prepared statement of a retired key: 55000');
is($sqlstates->($session_a, 'EXECUTE folded'), '55000',
	'a prepared statement of a retired key, its face folded into its plan: 55000');
is($sqlstates->($session_b, 'DELETE FROM crid_public_id_keys WHERE key_id = 23',
		'INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (23, \'api_users\')'),
	'55000 23505', 'a retired key is neither deleted nor made again');
$session_a->quit;
$session_b->quit;

# ---------------------------------------------------------------------------
# 3. Keys never leak.
# ---------------------------------------------------------------------------
# What app, a member of key 1's usable_by, gets for good and bad calls.
my @calls = (
	[ 'SELECT crid_unmask(crid_mask(5::bigint, 1), 1)', 'ok' ],
	[ 'SELECT crid_unmask(crid_mask(uuid_generate_v7(), 1), 1)', 'ok' ],
	[ 'SELECT crid_unmask_sqid(crid_mask_sqid(5, 1), 1)', 'ok' ],
	[ 'SELECT crid_unmask_sqid(crid_mask_sqid(5, 1, \'ord\', \'abcdef\', 40, \'{bad,word}\'), 1, \'ord\', \'abcdef\', 40, \'{bad,word}\')', 'ok' ],
	[ 'SELECT crid_mask(NULL::bigint, 1) IS NULL AND crid_unmask(NULL::bigint, 1) IS NULL AND crid_mask(NULL::uuid, 1) IS NULL
          AND crid_unmask(NULL::uuid, 1) IS NULL AND crid_mask_sqid(NULL, 1) IS NULL AND crid_unmask_sqid(NULL, 1) IS NULL
          OR 1/0 = 1', 'ok' ],
	(map { [ "SELECT crid_mask(5::bigint, $_)", '42704' ] } 999, 0, -1),
	[ 'SELECT crid_unmask(5::bigint, 999)', '42704' ],
	[ 'SELECT crid_mask(uuid_generate_v7(), 999)', '42704' ],
	[ 'SELECT crid_unmask(gen_random_uuid(), 999)', '42704' ],
	[ 'SELECT crid_mask_sqid(5, 999)', '42704' ],
	[ 'SELECT crid_unmask_sqid(\'abc\', 999)', '42704' ],
	[ 'SELECT crid_mask(5::bigint, 9)', '42501' ],
	[ 'SELECT crid_unmask(5::bigint, 9)', '42501' ],
	[ 'SELECT crid_mask(uuid_generate_v7(), 9)', '42501' ],
	[ 'SELECT crid_unmask(gen_random_uuid(), 9)', '42501' ],
	[ 'SELECT crid_mask_sqid(5, 9)', '42501' ],
	[ 'SELECT crid_unmask_sqid(\'abc\', 9)', '42501' ],
	[ 'SELECT crid_mask(-1::bigint, 1)', '22003' ],
	[ 'SELECT crid_mask(-9223372036854775808::bigint, 1)', '22003' ],
	[ 'SELECT crid_unmask(-1::bigint, 1)', '22003' ],
	[ 'SELECT crid_mask_sqid(-1, 1)', '22003' ],
	[ 'SELECT crid_mask(5::bigint, NULL)', '22004' ],
	[ 'SELECT crid_unmask(5::bigint, NULL)', '22004' ],
	[ 'SELECT crid_mask(uuid_generate_v7(), NULL)', '22004' ],
	[ 'SELECT crid_unmask(NULL::uuid, NULL)', '22004' ],
	[ 'SELECT crid_mask_sqid(5, NULL)', '22004' ],
	[ 'SELECT crid_unmask_sqid(\'abc\', NULL)', '22004' ],
	[ 'SELECT crid_mask(gen_random_uuid(), 1)', '22023' ],
	[ 'SELECT crid_mask(\'00000000-0000-0000-0000-000000000000\'::uuid, 1)', '22023' ],
	[ 'SELECT crid_unmask(uuid_generate_v7(), 1)', '22023' ],
	[ 'SELECT crid_unmask(\'017f22e2-79b0-4cc3-18c4-dc0c0c07398f\'::uuid, 1)', '22023' ],
	[ 'SELECT crid_unmask_sqid(\'\', 1)', '22P02' ],
	[ 'SELECT crid_unmask_sqid(\'!!!\', 1)', '22P02' ],
	[ 'SELECT crid_unmask_sqid(\'abc\', 1)', '22P02' ],
	[ 'SELECT crid_unmask_sqid(\'ord_\', 1, \'ord\')', '22P02' ],
	[ 'SELECT crid_unmask_sqid(repeat(\'z\', 40), 1)', '22P02' ],
	[ 'SELECT crid_unmask_sqid(\'ünïcödé\', 1)', '22P02' ],
	[ 'SELECT crid_mask_sqid(5, 1, alphabet => \'aab\')', '22023' ],
	[ 'SELECT crid_mask_sqid(5, 1, prefix => \'O R D\')', '22023' ],
	[ 'SELECT * FROM crid_public_id_keys', '42501' ],
	[ 'SELECT key_id FROM crid_public_id_keys', '42501' ],
	[ 'SELECT count(*) FROM crid_public_id_keys', '42501' ],
	[ 'UPDATE crid_public_id_keys SET usable_by = \'app\'', '42501' ],
	[ 'DELETE FROM crid_public_id_keys', '42501' ],
	[ 'SELECT crid_public_id_key_create(\'api_users\')', '42501' ],
	[ 'SELECT crid_public_id_key_held(1, NULL)', '42501' ],
	[ 'SELECT crid_public_id_key_held(1, decode(repeat(\'00\', 16), \'hex\'))', '42501' ],
	[ 'SELECT * FROM pg_statistic', '42501' ]);
# Each call's SQLSTATE, then the calls as a client sees them (the text of
# every error, hint and notice joins what the scan below reads, and goes
# into the server log).
sqlstates_as('app', \@calls, 'app: each call succeeds or fails with its SQLSTATE');

# outsider is no member of api_users: every function refuses keys 1 to 8.
my @outsider = map {
	my $k = $_;
	("SELECT crid_mask(5::bigint, $k)", "SELECT crid_unmask(5::bigint, $k)", "SELECT crid_mask(uuid_generate_v7(), $k)",
		"SELECT crid_unmask(gen_random_uuid(), $k)", "SELECT crid_mask_sqid(5, $k)", "SELECT crid_unmask_sqid('abc', $k)",
		"SELECT crid_mask(NULL::bigint, $k)")
} 1 .. 8;
sqlstates_as('outsider', [ map { [ $_, '42501' ] } @outsider ],
	'outsider: every function refuses each of keys 1 to 8 (42501), a NULL id too');
is(as_role('outsider', 'SELECT crid_unmask_sqid(crid_mask_sqid(5, 9), 9)'), 5, 'and key 9 serves it');

# The key administrator reads the keys (its SELECT grant), uses none of
# them, and cannot change a secret or a key id, delete a key or bring a
# retired one back.
is( as_role('key_admin', q{SELECT string_agg(key_id || ':' || encode(secret, 'hex'), ' ' ORDER BY key_id)
                            FROM crid_public_id_keys WHERE key_id BETWEEN 1 AND 9}, keys => 1),
	join(' ', map { "$_:$secret{$_}" } 1 .. 9), 'key_admin, granted SELECT, reads the keys');
my @admin = (
	[ 'SELECT crid_mask(5::bigint, 1)', '42501' ],
	[ 'UPDATE crid_public_id_keys SET secret = crid_public_id_secret() WHERE key_id = 1', '55000' ],
	[ 'UPDATE crid_public_id_keys SET secret = decode(md5(\'another\'), \'hex\') WHERE key_id = 1', '55000' ],
	[ 'UPDATE crid_public_id_keys SET secret = secret || \'\x00\'::bytea WHERE key_id = 1', '55000' ],
	[ 'DELETE FROM crid_public_id_keys WHERE key_id = 1', '55000' ],
	[ 'UPDATE crid_public_id_keys SET retired_at = NULL WHERE key_id = 20', '55000' ],
	[ 'TRUNCATE crid_public_id_keys', '42501' ],
	[ 'UPDATE crid_public_id_keys SET key_id = 100 WHERE key_id = 1', '55000' ],
	[ 'INSERT INTO crid_public_id_keys (key_id, secret, usable_by) SELECT 101, substr(secret, 1, 15), usable_by FROM crid_public_id_keys WHERE key_id = 1', '22023' ],
	[ 'INSERT INTO crid_public_id_keys (key_id, secret, usable_by) SELECT 1, secret, usable_by FROM crid_public_id_keys WHERE key_id = 2', '23505' ],
	[ 'INSERT INTO crid_public_id_keys (key_id, secret, usable_by) SELECT 102, secret, NULL FROM crid_public_id_keys WHERE key_id = 2', '22004' ],
	[ 'INSERT INTO crid_public_id_keys (key_id, secret, usable_by) SELECT -3, secret, usable_by FROM crid_public_id_keys WHERE key_id = 2', '22023' ],
	[ 'UPDATE crid_public_id_keys SET note = \'checked\' WHERE key_id = 1', 'ok' ],
	[ 'SELECT crid_public_id_key_create(\'api_users\', 30, \'made by key_admin\')', 'ok' ],
	[ 'SELECT crid_public_id_key_held(1, NULL)', 'ok' ]);
sqlstates_as('key_admin', \@admin, 'key_admin: each statement succeeds or fails with its SQLSTATE');

# pg_write_all_data writes every table without reading it: the key table's
# trigger refuses it, so it cannot take keys over, retire or add them.
sqlstates_as(
	'writer',
	[
		[ 'UPDATE crid_public_id_keys SET usable_by = \'writer\'', '42501' ],
		[ 'UPDATE crid_public_id_keys SET retired_at = now()', '42501' ],
		[ 'INSERT INTO crid_public_id_keys (key_id, usable_by) VALUES (200, \'writer\')', '42501' ],
		[ 'SELECT crid_mask(5::bigint, 1)', '42501' ]
	],
	'pg_write_all_data: no key moved, retired or added, none used (42501)');

# The keys dumped as pg_dump writes them and restored twice into another
# database: the second COPY's rows equal the keys and are skipped, so no
# error quotes a row (the scans of 3 read the log after this).
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->safe_psql('restored', 'CREATE EXTENSION crid');
my ($dump, $dump_err) = run_command(
	[ 'pg_dump', '--data-only', '--table=crid_public_id_keys', '--dbname', $node->connstr('postgres') ]);
like($dump, qr/COPY public\.crid_public_id_keys/, 'pg_dump writes the keys as a COPY');
for my $pass (1, 2)
{
	my ($ret, $out, $err) = $node->psql('restored', $dump);
	is($ret . ($err =~ /ERROR/ ? ' with an error' : ''), '0', "the dump of the keys restores, time $pass");
}
is( $node->safe_psql('restored', q{SELECT count(*) || ' ' || md5(string_agg(key_id || encode(secret, 'hex'), ',' ORDER BY key_id))
                                   FROM crid_public_id_keys}),
	$node->safe_psql('postgres', q{SELECT count(*) || ' ' || md5(string_agg(key_id || encode(secret, 'hex'), ',' ORDER BY key_id))
                                   FROM crid_public_id_keys}),
	'restored twice, the keys are the same keys, once each');
is(as_role('app', 'SELECT crid_unmask(crid_mask(5::bigint, 30), 30)'), 5, 'the key key_admin made serves app');

# Every function taking a key id (found in the catalog, so that a new one
# fails here until it is called below) gives app what it asks for and no
# key, for each of keys 1 to 8.
is( as_role('app', q{
SELECT string_agg(p.oid::regprocedure::text, ' ' ORDER BY p.oid::regprocedure::text)
  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'crid'
 WHERE 'key_id' = ANY (p.proargnames)}),
	'crid_mask(bigint,integer) crid_mask(bigint,integer,integer) crid_mask(uuid,integer) '
	  . 'crid_mask_sqid(bigint,integer,integer,text,text,integer,text[]) '
	  . 'crid_mask_sqid(bigint,integer,text,text,integer,text[]) '
	  . 'crid_public_id_key_create(regrole,integer,text) crid_public_id_key_held(integer,bytea) '
	  . 'crid_unmask(bigint,integer) crid_unmask(bigint,integer,integer) crid_unmask(uuid,integer) '
	  . 'crid_unmask_sqid(text,integer,integer,text,text,integer,text[]) '
	  . 'crid_unmask_sqid(text,integer,text,text,integer,text[])',
	'the functions of crid that take a key id');
my $outputs = as_role('app', join("\n", map { qq{
SELECT crid_mask(id, $_) || ' ' || crid_unmask(id, $_) || ' ' || crid_mask(u, $_) || ' ' || crid_unmask(crid_mask(u, $_), $_)
       || ' ' || crid_mask_sqid(id, $_) || ' ' || crid_unmask_sqid(crid_mask_sqid(id, $_), $_)
       || ' ' || crid_mask_sqid(id, $_, 'ord', '0123456789abcdef', 255)
       || ' ' || crid_mask(id % 9007199254740992, $_, 53) || ' ' || crid_unmask(id % 9007199254740992, $_, 53)
       || ' ' || crid_unmask_sqid(crid_mask_sqid(id % 9007199254740992, $_, 53, 'js'), $_, 53, 'js')
  FROM unnest(ARRAY[0, 1, 5, 4294967296, 9223372036854775807]) id, (SELECT uuid_generate_v7() AS u) v;} } 1 .. 8));
is(scalar(my @o = split /\n/, $outputs), 40, 'app computes faces of keys 1 to 8');
is(leaks($outputs), '', 'none of them holds a key');
# Statistics hold the keys once the table is analyzed, as a superuser sees:
# the scan finds keys where they are; app sees none of them.
$node->safe_psql('postgres', 'ANALYZE crid_public_id_keys');
is( as_role('app', q{SELECT count(*) FROM pg_stats WHERE tablename = 'crid_public_id_keys'}), 0,
	'app sees no statistics of the key table');
like( leaks($node->safe_psql('postgres', q{
SELECT string_agg(coalesce(most_common_vals::text, '') || coalesce(histogram_bounds::text, ''), ' ')
  FROM pg_stats WHERE tablename = 'crid_public_id_keys' AND attname = 'secret'})),
	qr/key 1 as hex/, 'the superuser\'s pg_stats holds the keys: the scan finds them there');
is( leaks(as_role('app', q{
SELECT string_agg(concat_ws(' ', tablename, attname, most_common_vals, histogram_bounds, most_common_elems), E'\n')
  FROM pg_stats})), '', 'the statistics app reads hold no key');

# Nothing the ordinary roles were told, nothing in the statements kept,
# nothing in the settings, nothing in the server log holds a key.
like($client_text, qr/42501: crid_mask: permission denied for key 9/, 'the ordinary roles\' errors were captured');
is(leaks($client_text), '', 'no error, notice or output the ordinary roles got holds a key');
SKIP:
{
	if (!$pss)
	{
		fail('pg_stat_statements is installed (make test requires it for this test)')
		  if $ENV{CRID_REQUIRE_PREREQUISITES};
		skip 'pg_stat_statements is not installed', 2;
	}
	my $statements = $node->safe_psql('postgres', q{SELECT string_agg(query, E'\n') FROM pg_stat_statements});
	like($statements, qr/crid_mask_sqid/, 'pg_stat_statements kept the statements of public ids');
	is(leaks($statements), '', 'no statement pg_stat_statements keeps holds a key');
}
is( leaks($node->safe_psql('postgres', q{
SELECT string_agg(concat_ws(' ', name, setting, reset_val, boot_val, sourcefile), E'\n') FROM pg_settings})),
	'', 'no setting holds a key');
my $log = slurp_file($node->logfile);
like($log, qr/ERROR:  42501: crid_mask: permission denied for key 9/, 'the server log holds the errors of the calls');
is(leaks($log), '', 'the server log holds no key');

$node->stop;
done_testing();
