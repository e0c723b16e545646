// Reading keys and arguments for shard genes, shared by the gene SQL
// functions, the generators that take a gene and the trigger
// crid_fill_id_with_gene. These ereport: call them before any C++ object is
// alive.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::genes {

// gene_of(key, bits) of a key Datum of type `type`: smallint, integer and
// bigint keys by their low bits (two's complement), text and varchar keys by
// MurmurHash3 of their UTF-8 bytes (converted from the database encoding when
// that is not UTF-8), uuid keys by MurmurHash3 of their 16 bytes. ERROR 22023
// for a key of another type or bits outside 1 to 31, naming `function`.
int32 gene_of_datum(Datum key, Oid type, int32 bits, const char *function);

// The hint of a generator's NULL gene argument: a NULL would silently mint
// an id without the gene the caller asked for.
inline constexpr const char *null_gene_hint =
    "A generator given a NULL gene cannot mint an id that routes to its shard.";

} // namespace crid::pg::genes
