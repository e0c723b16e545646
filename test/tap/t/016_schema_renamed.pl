# No name of crid's is followed to another schema in a privileged context.
# The owner of the registry database (who owns its schema public, where
# crid is) renames public and makes a new public holding functions with the
# names and argument types of crid's. Then neither the block reserver (a
# superuser), nor crid_allocate (SECURITY DEFINER, granted to an ordinary
# role), nor the trigger of registry tables (SECURITY DEFINER), nor the
# event trigger on publications (as the superuser making one), nor the
# trigger of crid_public_id_keys (which saw the key's secret) runs any of
# them: each notices that the schema its names point into is not crid's and
# stops with ERROR 55000 naming it, and the key table keeps working. Every
# planted function records its call in a table; the table stays empty.
# Renamed back, the worker reserves again.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('schema_renamed', open => 0, conf => qq{
crid.registry_database = 'reg'
crid.node_id = 'lease'
crid.snowflake_nodes = '0-7'
crid.block_size = 1000
crid.threshold = 500
crid.allocation_timeout = '3s'
});
$node->safe_psql('postgres', 'CREATE ROLE reg_owner LOGIN; CREATE ROLE outside LOGIN; CREATE ROLE key_admin LOGIN');
$node->safe_psql('postgres', 'CREATE DATABASE reg OWNER reg_owner');
$node->safe_psql('reg', q{
CREATE EXTENSION crid;
GRANT EXECUTE ON FUNCTION crid_allocate(bigint, bigint) TO outside;
GRANT SELECT, INSERT, UPDATE ON crid_public_id_keys TO key_admin;
});
registry_open($node, 'reg');
like($node->safe_psql('postgres', 'SELECT crid_next()'), qr/^\d+$/, 'crid_next() mints');

# The owner's move: crid's schema renamed, a new public with lookalikes.
my $plant = q{
ALTER SCHEMA public RENAME TO crid_home;
CREATE SCHEMA public;
GRANT USAGE, CREATE ON SCHEMA public TO PUBLIC;
CREATE TABLE public.stolen (what text, by_user text, secret text);
GRANT ALL ON public.stolen TO PUBLIC;
CREATE FUNCTION public.crid_registry_check(registry regclass,
    OUT refused_from_ts bigint, OUT floor_ts bigint, OUT live_max_ts bigint, OUT now_unix_ms bigint,
    OUT epoch timestamptz, OUT max_skew_ms integer, OUT changed_at timestamptz, OUT identity text,
    OUT reason text, OUT changed boolean)
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_registry_check', current_user); END$$;
CREATE FUNCTION public.crid_registry_identity(regclass) RETURNS text
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_registry_identity', current_user); RETURN 'x'; END$$;
CREATE FUNCTION public.crid_registry_reserve(regclass, bigint, bigint, bigint, bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_registry_reserve', current_user); RETURN NULL; END$$;
CREATE FUNCTION public.crid_registry_admit(regclass, bigint) RETURNS void
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_registry_admit', current_user); END$$;
CREATE FUNCTION public.crid_check_allocation(bigint, bigint) RETURNS void
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_check_allocation', current_user); END$$;
CREATE FUNCTION public.crid_node_lease_since(text) RETURNS timestamptz
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_node_lease_since', current_user); RETURN NULL; END$$;
CREATE FUNCTION public.crid_check(OUT problem text, OUT object text, OUT detail text, OUT fix text) RETURNS SETOF record
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_check', current_user); END$$;
CREATE FUNCTION public.crid_public_id_key_held(integer, bytea) RETURNS boolean
    LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.stolen VALUES ('crid_public_id_key_held', current_user, pg_catalog.encode($2, 'hex')); RETURN false; END$$;
};
my ($rc, $out, $err) = $node->psql('reg', $plant, extra_params => [ '-U', 'reg_owner', '-v', 'ON_ERROR_STOP=1' ]);
is($rc, 0, "the registry database's owner renames public and plants lookalikes") or diag($err);

# The worker: ids beyond what it had reserved need new blocks.
my $log_offset = -s $node->logfile;
($rc, $out, $err) = $node->psql('postgres', 'SELECT count(DISTINCT crid_next()) FROM generate_series(1, 20000)');
isnt($rc, 0, 'crid_next() stops once the reserved blocks are used up');
like($err, qr/schema "?public"?[ ,]/, '... its error names the schema');
ok($node->log_contains(qr/schema "public"[^\n]*(renamed|no longer the schema crid was made in)/, $log_offset),
	'the worker logs that crid\'s schema was renamed');

# crid_allocate, as a role granted it.
($rc, $out, $err) = $node->psql('reg', 'SELECT crid_home.crid_allocate(100, 10)', extra_params => [ '-U', 'outside' ]);
like($err, qr/no longer the schema crid was made in/, 'crid_allocate refuses for an ordinary role');

# The trigger of registry tables (crid_registry_guard), as a superuser writes.
($rc, $out, $err) = $node->psql('reg', 'INSERT INTO crid_home.crid_allocations VALUES (100, 10)');
like($err, qr/no longer the schema crid was made in/, 'the registry table\'s trigger refuses');

# The event trigger on publications, as a superuser makes one: the DDL
# goes on, with a WARNING naming the schema.
($rc, $out, $err) = $node->psql('reg', q{
CREATE SCHEMA su; CREATE TABLE su.t_pub (id int); CREATE PUBLICATION p_test FOR TABLE su.t_pub;
}, extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
is($rc, 0, 'a publication is made');
like($err, qr/WARNING:  crid: could not check[^\n]*no longer the schema crid was made in/,
	'... and the event trigger warns that crid\'s schema is not crid\'s');

# The key table: a key administrator makes a key, and restores it twice.
($rc, $out, $err) = $node->psql('reg', q{
INSERT INTO crid_home.crid_public_id_keys (key_id, usable_by, secret)
    VALUES (7, 'key_admin', '\x000102030405060708090a0b0c0d0e0f');
INSERT INTO crid_home.crid_public_id_keys SELECT * FROM crid_home.crid_public_id_keys WHERE key_id = 7;
SELECT count(*) FROM crid_home.crid_public_id_keys WHERE key_id = 7;
}, extra_params => [ '-U', 'key_admin', '-v', 'ON_ERROR_STOP=1' ]);
is($out, '1', 'a key is made, and its row restored again is skipped') or diag($err);

is($node->safe_psql('reg', q{SELECT count(*) FROM public.stolen}), '0', 'no planted function ran');
diag($node->safe_psql('reg', q{SELECT what || ' as ' || by_user FROM public.stolen}));

# Renamed back: the worker finds its schema again and reserves.
$node->safe_psql('reg', q{ALTER SCHEMA public RENAME TO planted; ALTER SCHEMA crid_home RENAME TO public},
	extra_params => [ '-U', 'reg_owner' ]);
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
like($node->safe_psql('postgres', 'SELECT count(DISTINCT crid_next()) FROM generate_series(1, 3000)'),
	qr/^3000$/, 'crid_next() mints again once crid\'s schema has its name back');
is($node->safe_psql('reg', q{SELECT count(*) FROM planted.stolen}), '0', 'still no planted function ran');

# crid_check() names the registry database's owner, who could do this, with
# the fix (a superuser owner); after it, the row is gone.
like($node->safe_psql('postgres', q{SELECT problem || ' ' || object || ': ' || fix FROM crid_check() WHERE problem = 'registry_owner'}),
	qr/^registry_owner reg: ALTER DATABASE reg OWNER TO /, 'crid_check() names a registry database owned by no superuser');
$node->safe_psql('postgres', 'ALTER DATABASE reg OWNER TO CURRENT_USER');
is($node->safe_psql('postgres', q{SELECT count(*) FROM crid_check() WHERE problem = 'registry_owner'}), '0',
	'... and not after the fix');

$node->stop;
done_testing();
