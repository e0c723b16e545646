# Helpers of the tests of crid's install and upgrade scripts: a server that
# runs the scripts as they were released (test/fixtures/released/), a
# snapshot of everything the extension's objects are, and traps planted in a
# schema others can create in for every function and operator the scripts
# name.
package CridScripts;

use strict;
use warnings;
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path);
use File::Spec;
use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Exporter 'import';

our @EXPORT = qw(released_dir released_install crid_snapshot_sql snapshot_diff script_texts trap_sql trap_preamble trap_hits);

# The scripts as they shipped, taken from the release tags.
sub released_dir { return "$FindBin::RealBin/../../fixtures/released"; }

sub pg_config_value
{
	my ($opt) = @_;
	my $out = `pg_config --$opt`;
	die "pg_config --$opt failed\n" if $?;
	chomp $out;
	return $out;
}

# An installation that differs from the one on PATH only by its released
# scripts: its bin/ is a copy (PostgreSQL finds its share/ and lib/ relative
# to where its programs really are), its share/ a tree of links to the
# original's but for the extension's released scripts, which are the copies
# of test/fixtures/released/. Returns the install_path for
# PostgreSQL::Test::Cluster->new.
sub released_install
{
	my $bindir = pg_config_value('bindir');
	my $sharedir = pg_config_value('sharedir');
	my $pkglibdir = pg_config_value('pkglibdir');
	my $root = PostgreSQL::Test::Utils::tempdir('released');
	my $bin = "$root$bindir";
	make_path($bin);
	opendir(my $bd, $bindir) or die "$bindir: $!";
	for my $f (grep { !/^\.\.?$/ } readdir $bd)
	{
		copy("$bindir/$f", "$bin/$f") or die "copy $f: $!";
		chmod 0755, "$bin/$f";
	}
	closedir $bd;
	# lib/ (pkglibdir) is only read: a link.
	make_path(dirname("$root$pkglibdir"));
	symlink($pkglibdir, "$root$pkglibdir") or die "symlink $pkglibdir: $!"
	  unless -e "$root$pkglibdir";
	make_path("$root$sharedir/extension");
	opendir(my $sd, $sharedir) or die "$sharedir: $!";
	for my $f (grep { !/^\.\.?$/ && $_ ne 'extension' } readdir $sd)
	{
		symlink("$sharedir/$f", "$root$sharedir/$f") or die "symlink $f: $!";
	}
	closedir $sd;
	my %released;
	opendir(my $rd, released_dir()) or die released_dir() . ": $!";
	$released{$_} = 1 for grep { /\.sql$/ } readdir $rd;
	closedir $rd;
	opendir(my $ed, "$sharedir/extension") or die "$sharedir/extension: $!";
	for my $f (grep { !/^\.\.?$/ } readdir $ed)
	{
		if ($released{$f})
		{
			copy(released_dir() . "/$f", "$root$sharedir/extension/$f") or die "copy $f: $!";
		}
		else
		{
			symlink("$sharedir/extension/$f", "$root$sharedir/extension/$f") or die "symlink $f: $!";
		}
	}
	closedir $ed;
	return dirname($bin);
}

# One line per member object of the extension, with everything that defines
# it, in a stable order and without OIDs (test/tap/t/005_upgrade.pl uses it
# too): functions with their bodies, settings, grants and comments; tables
# with their columns, defaults, constraints, indexes, triggers and policies;
# views' definitions; operators, classes and families; types; casts; event
# triggers; the pg_dump configuration.
sub crid_snapshot_sql
{
	return q{
WITH members AS (
    SELECT d.classid, d.objid, d.objsubid
    FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
    WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'crid'
)
SELECT regexp_replace(pg_describe_object(m.classid, m.objid, m.objsubid) || ': ' || coalesce(
    CASE m.classid
    WHEN 'pg_proc'::regclass THEN (
        SELECT CASE WHEN p.prokind = 'a' THEN 'aggregate ' || p.oid::regprocedure::text
                    ELSE pg_get_functiondef(p.oid) END
            || ' acl=' || coalesce(p.proacl::text, 'default')
            || ' cost=' || p.procost || ' rows=' || p.prorows
            || ' support=' || p.prosupport::text
        FROM pg_proc p WHERE p.oid = m.objid)
    WHEN 'pg_class'::regclass THEN (
        SELECT 'kind=' || c.relkind::text || ' acl=' || coalesce(c.relacl::text, 'default')
            || ' options=' || coalesce(c.reloptions::text, '') || ' rls=' || c.relrowsecurity
            || ' columns=' || coalesce((
                SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                  || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                                  || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
                                  || coalesce(' acl=' || a.attacl::text, '')
                                  || coalesce(' comment=' || col_description(c.oid, a.attnum), ''), ', '
                                  ORDER BY a.attnum)
                FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '')
            || ' constraints=' || coalesce((
                SELECT string_agg(co.conname || ' ' || pg_get_constraintdef(co.oid), ', ' ORDER BY co.conname)
                FROM pg_constraint co WHERE co.conrelid = c.oid), '')
            || ' indexes=' || coalesce((
                SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY 1)
                FROM pg_index i WHERE i.indrelid = c.oid), '')
            || ' view=' || coalesce(pg_get_viewdef(c.oid), '')
            || ' triggers=' || coalesce((
                SELECT string_agg(pg_get_triggerdef(tg.oid) || ' enabled=' || tg.tgenabled::text, ', '
                                  ORDER BY tg.tgname)
                FROM pg_trigger tg WHERE tg.tgrelid = c.oid AND NOT tg.tgisinternal), '')
            || ' policies=' || coalesce((
                SELECT string_agg(po.polname || ' ' || po.polcmd::text || ' permissive=' || po.polpermissive
                                  || ' roles=' || po.polroles::text
                                  || ' using=' || coalesce(pg_get_expr(po.polqual, po.polrelid), '')
                                  || ' check=' || coalesce(pg_get_expr(po.polwithcheck, po.polrelid), ''), ', '
                                  ORDER BY po.polname)
                FROM pg_policy po WHERE po.polrelid = c.oid), '')
        FROM pg_class c WHERE c.oid = m.objid)
    WHEN 'pg_event_trigger'::regclass THEN (
        SELECT 'event=' || et.evtevent || ' function=' || et.evtfoid::regprocedure::text
            || ' enabled=' || et.evtenabled::text || ' tags=' || coalesce(et.evttags::text, '')
        FROM pg_event_trigger et WHERE et.oid = m.objid)
    WHEN 'pg_operator'::regclass THEN (
        SELECT 'code=' || o.oprcode::regprocedure::text || ' commutator=' || o.oprcom::regoperator::text
            || ' negator=' || o.oprnegate::regoperator::text || ' restrict=' || o.oprrest::text
            || ' join=' || o.oprjoin::text || ' hashes=' || o.oprcanhash || ' merges=' || o.oprcanmerge
        FROM pg_operator o WHERE o.oid = m.objid)
    WHEN 'pg_opclass'::regclass THEN (
        SELECT 'type=' || format_type(oc.opcintype, NULL) || ' default=' || oc.opcdefault
            || ' family=' || pg_describe_object('pg_opfamily'::regclass, oc.opcfamily, 0)
            || ' storage=' || oc.opckeytype::regtype::text
        FROM pg_opclass oc WHERE oc.oid = m.objid)
    WHEN 'pg_opfamily'::regclass THEN (
        SELECT coalesce(string_agg(member, ', ' ORDER BY member), '') FROM (
            SELECT 'operator ' || ao.amopstrategy || ' ' || ao.amopopr::regoperator::text AS member
            FROM pg_amop ao WHERE ao.amopfamily = m.objid
            UNION ALL
            SELECT 'function ' || ap.amprocnum || ' (' || format_type(ap.amproclefttype, NULL) || ', '
                || format_type(ap.amprocrighttype, NULL) || ') ' || ap.amproc::regprocedure::text
            FROM pg_amproc ap WHERE ap.amprocfamily = m.objid) members)
    WHEN 'pg_type'::regclass THEN (
        SELECT 'type=' || t.typtype::text || ' input=' || t.typinput::text || ' output=' || t.typoutput::text
            || ' len=' || t.typlen || ' acl=' || coalesce(t.typacl::text, 'default')
        FROM pg_type t WHERE t.oid = m.objid)
    WHEN 'pg_cast'::regclass THEN (
        SELECT 'function=' || coalesce(ca.castfunc::regprocedure::text, '-') || ' context=' || ca.castcontext::text
            || ' method=' || ca.castmethod::text
        FROM pg_cast ca WHERE ca.oid = m.objid)
    END, '')
    || ' comment=' || coalesce(obj_description(m.objid, m.classid::regclass::name), ''),
    E'\\s*\\n\\s*', ' ', 'g')
FROM members m
UNION ALL
SELECT 'extension: version ' || e.extversion || ' schema ' || e.extnamespace::regnamespace::text
    || ' relocatable ' || e.extrelocatable || ' dumped '
    || coalesce((SELECT string_agg(c::regclass::text, ', ' ORDER BY c::regclass::text) FROM unnest(e.extconfig) c), '')
    || ' conditions ' || coalesce(array_to_string(e.extcondition, ', '), '')
FROM pg_extension e WHERE e.extname = 'crid'
ORDER BY 1};
}

# The lines only one of two snapshots has, each prefixed with the name of
# the snapshot that has it: what a failure shows.
sub snapshot_diff
{
	my ($name_a, $a, $name_b, $b) = @_;
	my %in_a = map { $_ => 1 } split /\n/, $a;
	my %in_b = map { $_ => 1 } split /\n/, $b;
	# The start of each line names the object.
	return join("\n",
		map { substr($_, 0, 300) }
		(map { "only in $name_a: $_" } grep { !$in_b{$_} } split /\n/, $a),
		(map { "only in $name_b: $_" } grep { !$in_a{$_} } split /\n/, $b));
}

# The text of every install and upgrade script of crid in the extension
# directory of the installation on PATH: what CREATE EXTENSION and ALTER
# EXTENSION ... UPDATE run.
sub script_texts
{
	my $dir = pg_config_value('sharedir') . '/extension';
	opendir(my $d, $dir) or die "$dir: $!";
	my @files = sort grep { /^crid--.*\.sql$/ } readdir $d;
	closedir $d;
	my $text = '';
	for my $f (@files)
	{
		open my $fh, '<', "$dir/$f" or die "$f: $!";
		local $/;
		$text .= <$fh>;
		close $fh;
	}
	return $text;
}

# Operators of expressions, as their tokens and the operators the grammar
# turns words into (IN, BETWEEN, LIKE, IS DISTINCT FROM).
my @operator_tokens = ('=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '%', '||', '<<', '>>', '&', '|', '~',
	'!~', '~*', '@>', '<@', '&&', '->', '->>', '^');
# Types an operand of the scripts' expressions may have: catalog columns
# and crid's tables' columns, literals, casts.
my @operand_types = ('oid', 'regclass', 'regnamespace', 'regproc', 'regprocedure', 'regtype', 'regrole', 'name',
	'text', 'character varying', '"char"', 'smallint', 'integer', 'bigint', 'numeric', 'double precision', 'boolean',
	'timestamp with time zone', 'interval', 'bytea', 'uuid', 'text[]', 'name[]', 'oid[]', 'smallint[]',
	'int2vector', 'oidvector', 'xid');
# Argument types a trap function takes in place of one of the real one's.
my @argument_types = ('text', 'character varying', 'name', 'integer', 'bigint', 'numeric', 'oid', 'regclass');

# SQL a role that may create in schema `public` runs to plant traps there:
# for every function name the scripts call (crid's and pg_catalog's), a
# function of that name with no argument, and with each argument of each
# existing signature replaced by a looser or other type; for every operator
# the scripts use, that operator on every pair of plausible operand types.
# Each trap, when it runs, says so: a WARNING "crid trap ... ran as ROLE"
# and a row in public.crid_trap_log. $catalog is a database with crid
# installed at the default version (to learn the real signatures).
sub trap_sql
{
	my ($node, $catalog_db) = @_;
	my $text = script_texts();
	# Comments are not calls.
	(my $code = $text) =~ s/--[^\n]*//g;
	my %called = map { lc($_) => 1 } ($code =~ /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g);
	my $names = join(',', map { "'$_'" } sort keys %called);
	# Every signature of these names in pg_catalog and crid's schema.
	my @sigs = split /\n/, $node->safe_psql($catalog_db, qq{
SELECT p.proname || '|' || p.pronargs || '|' || coalesce(array_to_string(array(
           SELECT format_type(t, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i) ORDER BY i), ','), '')
       || '|' || format_type(p.prorettype, NULL) || '|' || p.proretset || '|' || p.provariadic::oid::text
       || '|' || p.prokind::text || '|' || t.typtype::text
FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype
WHERE p.proname IN ($names)
  AND p.pronamespace IN ('pg_catalog'::regnamespace,
                         (SELECT extnamespace FROM pg_extension WHERE extname = 'crid'))
ORDER BY 1});
	my (%existing, %returns, %traps);
	for my $s (@sigs)
	{
		my ($name, $nargs, $args, $ret, $retset, $variadic, $kind, $rettyptype) = split /\|/, $s;
		$existing{"$name($args)"} = 1;
		# A trap returns what the real one returns, so that its caller's
		# statement is valid with it; a pseudo-type but void is not
		# something a function of SQL can return.
		if (!$returns{$name} && $kind ne 'a' && $ret ne 'record' && ($rettyptype ne 'p' || $ret eq 'void'))
		{
			$returns{$name} = ($retset eq 't' ? 'SETOF ' : '') . $ret;
		}
		next if $variadic ne '0' || $nargs > 4;
		my @a = split /,/, $args;
		next if grep { /^(any|anyelement|anyarray|anynonarray|anyenum|anyrange|anycompatible.*|internal|cstring|"any")$/ } @a;
		for my $i (0 .. $#a)
		{
			for my $t (@argument_types)
			{
				my @b = @a;
				$b[$i] = $t;
				$traps{$name}{ join(',', @b) } = 1;
			}
		}
		$traps{$name}{ join(',', ('text') x scalar(@a)) } = 1;
		$traps{$name}{''} = 1;
	}
	my $sql = trap_preamble();
	my $n = 0;
	for my $name (sort keys %traps)
	{
		my $ret = $returns{$name} || 'text';
		my $return = $ret eq 'void' || $ret =~ /^SETOF/ ? 'RETURN;' : 'RETURN NULL;';
		for my $args (sort keys %{ $traps{$name} })
		{
			next if $existing{"$name($args)"};
			my $label = "$name($args)";
			$label =~ s/'/''/g;
			$sql .= "CREATE FUNCTION public.\"$name\"($args) RETURNS $ret LANGUAGE plpgsql AS "
			  . "\$t\$BEGIN PERFORM public.crid_trap_ran('function $label'); $return END\$t\$;\n";
			$n++;
		}
	}
	# Operators: those of the scripts' code.
	my %operators;
	for my $op (@operator_tokens)
	{
		$operators{$op} = 1 if $code =~ /(?:[\s)\w'](\Q$op\E)[\s(\w'])/;
	}
	$operators{'='} = $operators{'<>'} = 1 if $code =~ /\b(IN|ANY|DISTINCT)\b/i;
	$operators{'>='} = $operators{'<='} = 1 if $code =~ /\bBETWEEN\b/i;
	$operators{'~~'} = $operators{'!~~'} = 1 if $code =~ /\bLIKE\b/i;
	$operators{'~~*'} = 1 if $code =~ /\bILIKE\b/i;
	my %existing_ops = map { $_ => 1 } split /\n/, $node->safe_psql($catalog_db, q{
SELECT o.oprname || '(' || coalesce(format_type(nullif(o.oprleft, 0), NULL), 'NONE') || ','
       || format_type(o.oprright, NULL) || ')'
FROM pg_operator o WHERE o.oprnamespace = 'pg_catalog'::regnamespace});
	my $f = 0;
	for my $op (sort keys %operators)
	{
		my $bool = $op =~ /^(=|<>|<|>|<=|>=|~|!~|~\*|~~|!~~|~~\*|@>|<@|&&)$/;
		for my $l (@operand_types)
		{
			for my $r (@operand_types)
			{
				next if $existing_ops{"$op($l,$r)"};
				my $ret = $bool ? 'boolean' : $l;
				$f++;
				$sql .= "CREATE FUNCTION public.crid_trap_op_$f($l, $r) RETURNS $ret LANGUAGE plpgsql AS "
				  . "\$t\$BEGIN PERFORM public.crid_trap_ran('operator $op($l, $r)'); RETURN NULL; END\$t\$;\n"
				  . "CREATE OPERATOR public.$op (LEFTARG = $l, RIGHTARG = $r, FUNCTION = public.crid_trap_op_$f);\n";
				$n++;
			}
		}
		# Prefix forms.
		if ($op eq '-' || $op eq '+')
		{
			for my $r (@operand_types)
			{
				next if $existing_ops{"$op(NONE,$r)"};
				$f++;
				$sql .= "CREATE FUNCTION public.crid_trap_op_$f($r) RETURNS $r LANGUAGE plpgsql AS "
				  . "\$t\$BEGIN PERFORM public.crid_trap_ran('operator $op(NONE, $r)'); RETURN NULL; END\$t\$;\n"
				  . "CREATE OPERATOR public.$op (RIGHTARG = $r, FUNCTION = public.crid_trap_op_$f);\n";
				$n++;
			}
		}
	}
	return ($sql, $n);
}

# The log of the traps and the function each calls when it runs.
sub trap_preamble
{
	return q{
CREATE TABLE public.crid_trap_log (trap text, ran_as name, at timestamptz DEFAULT pg_catalog.now());
GRANT INSERT ON public.crid_trap_log TO PUBLIC;
CREATE FUNCTION public.crid_trap_ran(trap text) RETURNS void LANGUAGE plpgsql AS $t$
BEGIN
    RAISE WARNING 'crid trap % ran as %', trap, current_user;
    INSERT INTO public.crid_trap_log (trap, ran_as) VALUES (trap, current_user);
END $t$;
};
}

# The traps that ran, as a list of "TRAP as ROLE": from the WARNINGs of
# $stderr and the rows of public.crid_trap_log of $db.
sub trap_hits
{
	my ($node, $db, $stderr) = @_;
	my @hits = ($stderr =~ /crid trap (.*? ran as \S+)/g);
	push @hits, split /\n/, $node->safe_psql($db, q{SET search_path = pg_catalog, pg_temp; SELECT trap || ' ran as ' || ran_as || ' (logged)' FROM public.crid_trap_log ORDER BY at, trap});
	return @hits;
}

1;
