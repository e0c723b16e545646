#include "genes/gene_keys.hpp"

#include "common/boundary.hpp"

#include "core/gene.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
}

namespace crid::pg::genes {

namespace {

// The gene of `len` bytes: MurmurHash3 over them, masked.
int32 gene_of_bytes(const char *data, size_t len, int32 bits) {
    return pg::guarded([&] { return core::gene::of_bytes(data, len, bits); });
}

// The gene of a text key over its UTF-8 bytes, as an application computes it.
int32 gene_of_text(text *key, int32 bits) {
    const char *data = VARDATA_ANY(key);
    int len = int(VARSIZE_ANY_EXHDR(key));
    const char *utf8 = pg_server_to_any(data, len, PG_UTF8);
    size_t utf8_len = utf8 == data ? size_t(len) : std::strlen(utf8);
    return gene_of_bytes(utf8, utf8_len, bits);
}

} // namespace

int32 gene_of_datum(Datum key, Oid type, int32 bits, const char *function) {
    int64_t integer;
    switch (type) {
    case INT2OID:
        integer = DatumGetInt16(key);
        break;
    case INT4OID:
        integer = DatumGetInt32(key);
        break;
    case INT8OID:
        integer = DatumGetInt64(key);
        break;
    case TEXTOID:
    case VARCHAROID:
        return gene_of_text(DatumGetTextPP(key), bits);
    case UUIDOID:
        return gene_of_bytes(reinterpret_cast<const char *>(DatumGetUUIDP(key)->data), UUID_LEN, bits);
    default:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: a key of type %s has no gene", function, format_type_be(type)),
                        errhint("Keys are smallint, integer, bigint, text, varchar or uuid.")));
    }
    return pg::guarded([&] { return core::gene::of_key(integer, bits, function); });
}

} // namespace crid::pg::genes
