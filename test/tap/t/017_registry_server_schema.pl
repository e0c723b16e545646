# The registry-server script (crid_registry_server.sql, for a registry
# without crid) installs only into a schema in trusted hands, and its
# functions never follow their schema's name to another schema.
#
# Refused, changing nothing (ERROR 42501 naming the role): a schema another
# role owns (public of a database someone else owns, which that owner could
# rename), and one where another role, or PUBLIC, may create objects.
# Accepted: a new schema of the installing superuser's, and public when the
# installing role owns the database.
#
# Installed, the script wrote its schema's OID into the bodies of its
# privileged functions: once the schema is renamed and the database's owner
# makes a new one of its name with lookalike functions, crid_allocate (as a
# role granted it), the reservation and the check (as the fleet's role) and
# the registry table's trigger refuse with ERROR 55000, and none of the
# planted functions runs.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('registry_server_schema');
$node->init;
$node->start;
my $script = $node->config_data('--sharedir') . '/extension/crid_registry_server.sql';
-f $script or BAIL_OUT("$script is not installed: make install first");
$node->safe_psql('postgres', q{
CREATE ROLE app_owner LOGIN; CREATE ROLE crid_fleet LOGIN; CREATE ROLE outside LOGIN; CREATE ROLE other;
CREATE DATABASE ids OWNER app_owner;
});

# Runs the script into `schema` of database ids as `user`: (exit code, stderr).
sub install
{
	my ($schema, $user) = @_;
	my ($ret, $out, $err) = $node->psql('ids', '',
		extra_params => [ '-U', $user, '-v', "schema=$schema", '-v', 'fleet_role=crid_fleet', '-f', $script ]);
	return ($ret, $err);
}

sub tables_in
{
	my ($schema) = @_;
	return $node->safe_psql('ids',
		qq{SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$schema'});
}

my ($ret, $err) = install('public', $node->safe_psql('postgres', 'SELECT current_user'));
isnt($ret, 0, 'refused: public of a database another role owns');
like($err, qr/42501|pg_database_owner owns schema public/, '... naming the role that owns it');
is(tables_in('public'), '0', '... and nothing was made');

$node->safe_psql('ids', 'CREATE SCHEMA open_to_all; GRANT CREATE ON SCHEMA open_to_all TO PUBLIC');
($ret, $err) = install('open_to_all', 'postgres');
like($err, qr/PUBLIC may create objects in schema open_to_all/, 'refused: a schema where PUBLIC may create');
is(tables_in('open_to_all'), '0', '... and nothing was made');

$node->safe_psql('ids', 'CREATE SCHEMA granted; GRANT CREATE ON SCHEMA granted TO other');
($ret, $err) = install('granted', 'postgres');
like($err, qr/role other may create objects in schema granted/, 'refused: a schema where another role may create');

$node->safe_psql('ids', 'CREATE SCHEMA theirs AUTHORIZATION app_owner');
($ret, $err) = install('theirs', 'postgres');
like($err, qr/role app_owner owns schema theirs/, 'refused: a schema another role owns');

for my $run (1, 2)
{
	($ret, $err) = install('crid_registry', 'postgres');
	is($ret, 0, "accepted: a new schema of the superuser's (run $run)") or diag $err;
}
$node->safe_psql('postgres', 'CREATE DATABASE own OWNER app_owner');
{
	my ($r, $o, $e) = $node->psql('own', '', extra_params => [ '-U', 'app_owner', '-f', $script ]);
	is($r, 0, "accepted: public, by the database's owner") or diag $e;
}

$node->safe_psql('ids', q{
GRANT EXECUTE ON FUNCTION crid_registry.crid_allocate(bigint, bigint) TO outside;
GRANT USAGE ON SCHEMA crid_registry TO outside;
});
is($node->safe_psql('ids', 'SELECT crid_registry.crid_allocate(5, 10)', extra_params => [ '-U', 'outside' ]),
	'0', 'crid_allocate serves a role granted it');

# The database's owner may not rename the superuser's schema; suppose the
# superuser does (a migration), and the owner then takes the name.
($ret, my $out, $err) = $node->psql('ids', 'ALTER SCHEMA crid_registry RENAME TO x', extra_params => [ '-U', 'app_owner' ]);
isnt($ret, 0, "the database's owner may not rename the schema");
$node->safe_psql('ids', 'ALTER SCHEMA crid_registry RENAME TO crid_registry_old');
$node->safe_psql('ids', q{
CREATE SCHEMA crid_registry;
GRANT USAGE, CREATE ON SCHEMA crid_registry TO PUBLIC;
CREATE TABLE crid_registry.stolen (what text, by_user text);
GRANT ALL ON crid_registry.stolen TO PUBLIC;
CREATE FUNCTION crid_registry.crid_registry_admit(regclass, bigint) RETURNS void
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO crid_registry.stolen VALUES ('crid_registry_admit', current_user); END$$;
CREATE FUNCTION crid_registry.crid_registry_identity(regclass) RETURNS text
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO crid_registry.stolen VALUES ('crid_registry_identity', current_user); RETURN 'x'; END$$;
CREATE FUNCTION crid_registry.crid_registry_upsert(regclass, bigint, bigint, bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO crid_registry.stolen VALUES ('crid_registry_upsert', current_user); RETURN 0; END$$;
CREATE FUNCTION crid_registry.crid_node_lease_since(text) RETURNS timestamptz
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO crid_registry.stolen VALUES ('crid_node_lease_since', current_user); RETURN NULL; END$$;
}, extra_params => [ '-U', 'app_owner' ]);

($ret, $out, $err) = $node->psql('ids', 'SELECT crid_registry_old.crid_allocate(6, 10)', extra_params => [ '-U', 'outside' ]);
like($err, qr/no longer the schema crid was made in/, 'crid_allocate refuses once its schema was renamed');
($ret, $out, $err) = $node->psql('ids',
	q{SELECT * FROM crid_registry_old.crid_registry_check('crid_registry_old.crid_allocations')},
	extra_params => [ '-U', 'crid_fleet' ]);
like($err, qr/no longer the schema crid was made in/, "... and so does the fleet's check");
($ret, $out, $err) = $node->psql('ids',
	q{SELECT crid_registry_old.crid_registry_reserve('crid_registry_old.crid_allocations', 7, 10, 100, 0)},
	extra_params => [ '-U', 'crid_fleet' ]);
like($err, qr/no longer the schema crid was made in/, "... and the fleet's reservation");
($ret, $out, $err) = $node->psql('ids', q{INSERT INTO crid_registry_old.crid_allocations VALUES (8, 10)},
	extra_params => [ '-U', 'crid_fleet' ]);
like($err, qr/no longer the schema crid was made in/, "... and the registry table's trigger");
($ret, $out, $err) = $node->psql('ids', q{
INSERT INTO crid_registry_old.crid_node_leases (node, holder, token, kind, lease_until, renewed_at, high_water_ms)
    VALUES (1, 'h', 't', 'lease', now() + interval '1 min', now(), 0)}, extra_params => [ '-U', 'crid_fleet' ]);
like($err, qr/no longer the schema crid was made in/, "... and the lease table's trigger");
is($node->safe_psql('ids', 'SELECT count(*) FROM crid_registry.stolen'), '0', 'no planted function ran');

$node->stop;
done_testing();
