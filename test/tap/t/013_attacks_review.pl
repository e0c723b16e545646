# Attacks on what issue 39's review left: a database owner, no superuser,
# against the planner hooks of a library newer than its database's crid.
#
# A server runs one crid library for every database, but each database's
# crid is at the version its last ALTER EXTENSION crid UPDATE left: between
# a package upgrade and that update (which many never run), the library's
# planner hooks look in crid's schema for functions and tables the older
# version does not have. crid's schema is often public, where the database
# owner may create: a function of the right name and arguments planted
# there must not be what the hooks add to every role's statements (the
# converted sequences' nextval(), currval(), lastval()), nor a table of the
# right name what decides which sequences are converted. Each planted function is a trap that says as whom it ran and
# tries to make its planter a superuser.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../lib";
use CridTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = crid_node('attacks', open => 0, conf => "crid.node_id = 3\nlog_min_messages = warning");
$node->safe_psql('postgres', 'CREATE ROLE atk_owner LOGIN');

my $trap = q{
CREATE FUNCTION public.atk_trap() RETURNS bigint LANGUAGE plpgsql AS $t$
BEGIN
    RAISE WARNING 'crid-trap ran as %', current_user;
    BEGIN
        EXECUTE 'ALTER ROLE atk_owner SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN 42;
END $t$;
};

sub superuser_gained
{
	return $node->safe_psql('postgres', "SELECT rolsuper FROM pg_roles WHERE rolname = 'atk_owner'") eq 't';
}

# --- converted sequences, in a database whose crid is 0.3.0 ----------------
$node->safe_psql('postgres', 'CREATE DATABASE old3 OWNER atk_owner');
$node->safe_psql('old3', q{CREATE EXTENSION crid VERSION '0.3.0';
CREATE TABLE public.victim (id bigserial PRIMARY KEY, v integer)});
$node->safe_psql('old3', $trap . q{
CREATE TABLE public.crid_sequences (seq regclass, family text, plain_last bigint);
INSERT INTO public.crid_sequences VALUES ('public.victim_id_seq', 'snowflake', 0);
CREATE FUNCTION public.crid_sequence_nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_identity(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_currval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
CREATE FUNCTION public.crid_sequence_lastval() RETURNS bigint LANGUAGE sql AS 'SELECT public.atk_trap()';
}, extra_params => [ '-U', 'atk_owner' ]);

my ($ret, $out, $err) = $node->psql('old3', q{INSERT INTO public.victim (v) VALUES (1) RETURNING id});
is($out, '1', "a superuser's INSERT takes the serial's own nextval(), not a planted function");
unlike($err, qr/crid-trap/, 'no planted nextval() ran');
($ret, $out, $err) = $node->psql('old3',
	q{SELECT nextval('public.victim_id_seq'); SELECT lastval(), currval('public.victim_id_seq')});
is($out, "2\n2|2", "nextval(), lastval() and currval() are PostgreSQL's");
unlike($err, qr/crid-trap/, 'no planted lastval() or currval() ran');
ok(!superuser_gained(), 'the database owner is no superuser');

# --- and once updated, the hooks serve crid's own objects ------------------
$node->safe_psql('old3', q{DROP TABLE public.crid_sequences;
DROP FUNCTION public.crid_sequence_nextval(regclass), public.crid_sequence_identity(regclass),
              public.crid_sequence_currval(regclass), public.crid_sequence_lastval()});
$node->safe_psql('old3', q{ALTER EXTENSION crid UPDATE;
SELECT crid_sequence_convert('public.victim_id_seq')});
($ret, $out, $err) = $node->psql('old3', q{INSERT INTO public.victim (v) VALUES (2) RETURNING id > 1000000});
is($out, 't', 'after the update, the converted serial hands out snowflake ids');
ok(!superuser_gained(), 'the database owner is no superuser');

done_testing();
