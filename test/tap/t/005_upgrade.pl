# Upgrades: for every released version V, CREATE EXTENSION crid VERSION V
# followed by ALTER EXTENSION crid UPDATE gives exactly the catalog of a fresh
# CREATE EXTENSION crid (functions with their volatility, strictness,
# parallel labels, bodies, grants and comments; tables, columns, constraints,
# indexes, triggers; operators, operator classes and families; types; casts;
# event triggers; the pg_dump configuration), and the registry's rows
# survive the update.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Every version crid can be installed at: the versions named by the install
# and upgrade scripts of the extension directory the server uses.
my $node = crid_node('upgrade', conf => "crid.registry_database = 'fresh'\n");
my $default = $node->safe_psql('postgres', "SELECT default_version FROM pg_available_extensions WHERE name = 'crid'");
my @versions = split /\n/, $node->safe_psql('postgres',
	"SELECT version FROM pg_available_extension_versions WHERE name = 'crid' AND version <> '$default' ORDER BY version");
ok(scalar(@versions) >= 1, "older versions to upgrade from: @versions");

# One line per member object of the extension, with everything that defines
# it, in a stable order; nothing in it depends on OIDs.
my $snapshot = q{
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
            || ' columns=' || coalesce((
                SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                  || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                                  || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
                                  || coalesce(' acl=' || a.attacl::text, ''), ', ' ORDER BY a.attnum)
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

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION crid');
my $fresh = $node->safe_psql('fresh', $snapshot);
like($fresh, qr/function crid_next\(\)/, 'the snapshot lists the members of a fresh install');
like($fresh, qr/extension: version \Q$default\E/, "a fresh install is at the default version $default");
like($fresh, qr/table crid_allocations: .* triggers=.*CREATE TRIGGER crid_local_only .* enabled=A/,
	'the snapshot has the triggers of the extension\'s tables, with when they fire');
like($fresh, qr/event trigger crid_replication_warning: event=ddl_command_end .*tags=\{"CREATE PUBLICATION"/,
	'the snapshot has the extension\'s event triggers');

for my $v (@versions)
{
	my $db = "from_$v";
	$db =~ s/\./_/g;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION crid VERSION '$v'");
	# Registry rows of the old version, as Go nodes and crid_allocate left them.
	$node->safe_psql($db, 'SELECT crid_allocate(100, 500), crid_allocate(100, 500), crid_allocate(7, 10)');
	my $before = $node->safe_psql($db, 'SELECT ts, next_seq FROM crid_allocations ORDER BY ts');
	$node->safe_psql($db, 'ALTER EXTENSION crid UPDATE');
	my $upgraded = $node->safe_psql($db, $snapshot);
	is($upgraded, $fresh, "$v upgraded to $default has the catalog of a fresh install");
	if ($upgraded ne $fresh)
	{
		# Name the lines that differ, so a failure says what to fix.
		my %in_fresh = map { $_ => 1 } split /\n/, $fresh;
		my %in_upgraded = map { $_ => 1 } split /\n/, $upgraded;
		diag("only after upgrade: $_") for grep { !$in_fresh{$_} } split /\n/, $upgraded;
		diag("only in fresh: $_") for grep { !$in_upgraded{$_} } split /\n/, $fresh;
	}
	is($node->safe_psql($db, 'SELECT ts, next_seq FROM crid_allocations ORDER BY ts'),
		$before, "the registry rows of $v survive the update");
	is($node->safe_psql($db, 'SELECT crid_allocate(100, 500)'), '1000',
		"after the update from $v, reservations continue where the old rows ended");
}

$node->stop;
done_testing();
