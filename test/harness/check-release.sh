#!/usr/bin/env bash
# Release checks of `make test`, one "ok"/"not ok" line each: the versions in
# crid.control and META.json agree, META.json follows the PGXN meta spec,
# released scripts are unchanged, every upgrade script follows the rules for
# extension scripts, the upgrade chain reaches the default version, and the
# benchmark figures of the README and docs/ are the report's.
source "$(dirname "$0")/common.sh"
cd "$CRID_ROOT"

version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" crid.control)
# The upgrade scripts, in the Makefile's order.
read -r -a upgrades <<<"$(make -s --no-print-directory PG_CONFIG="$PG_CONFIG" print-UPGRADE_SCRIPTS)"
# The checks made below, printed before the first: one per `check` line at
# the top level and per released script, and the checks of the loop over
# the upgrade scripts for each. A run that stops early is short of the
# plan; a check added to the loop without counting it here is one too many.
checks_per_upgrade=5
plan $(($(grep -c '^check "' "$0") + $(grep -c '^released ' "$0") + checks_per_upgrade * ${#upgrades[@]}))
meta_version() { perl -MJSON::PP -0777 -ne "print JSON::PP->new->decode(\$_)->$1" META.json; }
check "crid.control default_version ($version) = META.json version ($(meta_version '{version}'))" \
    test "$version" = "$(meta_version '{version}')"
check "META.json provides crid at the same version" test "$version" = "$(meta_version '{provides}{crid}{version}')"
check "META.json follows the PGXN meta spec 1.0.0" perl test/harness/check-meta.pl META.json

# A released script is never edited: its checksum is recorded here when it is
# released, and a new version adds an upgrade script instead.
released() { # released file sha256
    check "$1 is unchanged since its release" test "$(sha256sum "$1" | cut -d' ' -f1)" = "$2"
}
# A released script changes only for a security fix that leaves the objects
# it makes identical (CONTRIBUTING.md, "Cut a release"): the copies of the
# scripts as they shipped stay in test/fixtures/released/, and
# test/tap/t/011_released_scripts.pl installs each version from both and
# compares the catalogs. Issue 39 qualified every name of the scripts'
# statements that run as the superuser who installs crid.
released sql/crid--0.1.0.sql eac6c9a1a768447f8097f9721f2decf05358f46c8c03cf5b68687b6b645a5034
released sql/crid--0.1.0--0.2.0.sql aa856c53d56a5ac87cd9b610d4b3e14931f8a07afeb08bbd3bf6a39b115aec0d
released sql/crid--0.2.0--0.3.0.sql 7630444d3a0c1dcdabe6959a18f5ea21ab70f5bf8aa86602ff1c7657a78cccaf
released test/fixtures/released/crid--0.1.0.sql aa5da1c9937c2704b20d841eeed2d7ad253eaf6a40a6c9dcb7c5d1a699669794
released test/fixtures/released/crid--0.1.0--0.2.0.sql bc104e193baa17ae58f8b2488a8b80b6f30e8b1292cc0b43c9cd0a7a70595fbd
released test/fixtures/released/crid--0.2.0--0.3.0.sql ab587ad0dde362fbf9abe2ad95494695b8e4146d3699494134556812be1acbf1

# Nothing the scripts run as the superuser who installs crid resolves through
# the search_path (docs/security.md): in DO blocks, views and top-level
# SELECTs, crid's functions are called as @extschema@.NAME and operators
# written OPERATOR(pg_catalog.X). The lint finds what the scripts as
# released had.
check "sql/crid--0.1.0.sql qualifies its calls and operators" perl test/harness/check-script-names.pl sql/crid--0.1.0.sql
check "the name lint refuses the view and the DO block of the scripts as released" \
    bash -c "! perl test/harness/check-script-names.pl test/fixtures/released/crid--0.1.0--0.2.0.sql >/dev/null \
             && ! perl test/harness/check-script-names.pl --known test/fixtures/released/crid--0.1.0.sql \
                  test/fixtures/released/crid--0.2.0--0.3.0.sql >/dev/null"

# The upgrade chain, in the Makefile's order, leads from 0.1.0 to the default.
reached=0.1.0
for f in "${upgrades[@]}"; do
    from=$(basename "$f" .sql | sed 's/^crid--\(.*\)--.*/\1/')
    to=$(basename "$f" .sql | sed 's/^crid--.*--\(.*\)/\1/')
    check "$f upgrades from the version before it ($reached)" test "$from" = "$reached"
    reached=$to
    check "$f starts with the \\echo guard for ALTER EXTENSION ... UPDATE TO '$to'" \
        grep -q "^\\\\echo Use \"ALTER EXTENSION crid UPDATE TO '$to'\" to load this file. \\\\quit" "$f"
    # CREATE OR REPLACE may only replace functions crid created itself: one
    # of an older script. Anything else could take over a user's object.
    replaced_foreign=0
    for name in $(grep -oiE 'CREATE OR REPLACE (FUNCTION|PROCEDURE) +[a-z_0-9.@]+' "$f" | awk '{print $NF}'); do
        grep -qiE "CREATE (FUNCTION|PROCEDURE) +$name\\b" sql/crid--0.1.0.sql "${upgrades[@]}" || replaced_foreign=1
    done
    check "$f replaces only functions of crid's own" test "$replaced_foreign" = 0
    check "$f qualifies the calls and operators of its DO blocks, views and SELECTs" \
        perl test/harness/check-script-names.pl $(printf -- '--known %s ' sql/crid--0.1.0.sql "${upgrades[@]}") "$f"
    check "$f names the extension's schema only as @extschema@" \
        bash -c "! grep -nE '\\b(public|pg_temp)\\.[a-z_]+\\(' '$f' | grep -v '^[0-9]*: *--'"
done
check "the upgrade chain reaches the default version $version" test "$reached" = "$version"
# The benchmark figures of the README and docs/ are those of the committed
# report, copied by make bench, never typed by hand.
check "the benchmark tables and outputs of the README and docs/ are bench/report.md's" test/harness/bench-docs.sh check
check "sql/crid--$version.sql is built from the chain" \
    bash -c "make -s --no-print-directory PG_CONFIG='$PG_CONFIG' sql/crid--$version.sql && head -1 sql/crid--$version.sql | grep -q 'generated by make'"

checks_done
