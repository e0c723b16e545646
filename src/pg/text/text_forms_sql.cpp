// SQL functions of the text forms of ids: branded base62 bigints
// (id_encode/id_decode), and base62, ULID and TypeID text of UUIDs. The
// codecs are in src/core (base62, base32); this file only moves bytes.
#include "common/postgres_headers.hpp"

#include "common/boundary.hpp"
#include "common/args.hpp"

#include "core/base32.hpp"
#include "core/base62.hpp"

#include <string_view>

extern "C" {
#include "mb/pg_wchar.h"
}

using namespace crid;
namespace b32 = crid::core::base32;
namespace b62 = crid::core::base62;

namespace {

// A text argument. Messages echo it as typed: by UTF-8 characters in a UTF-8
// database, byte by byte in another encoding (whose characters the core does
// not know, and where raw UTF-8 in a message could be invalid text).
std::string_view text_arg(FunctionCallInfo fcinfo, int n) {
    core::id_text::set_utf8(GetDatabaseEncoding() == PG_UTF8);
    text *t = PG_GETARG_TEXT_PP(n);
    return std::string_view(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

Datum text_datum(const core::id_text::Text &t) {
    return PointerGetDatum(cstring_to_text_with_len(t.data, int(t.size)));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_id_encode);
PG_FUNCTION_INFO_V1(crid_id_decode);
PG_FUNCTION_INFO_V1(crid_uuid_to_base62);
PG_FUNCTION_INFO_V1(crid_base62_to_uuid);
PG_FUNCTION_INFO_V1(crid_uuid_to_ulid);
PG_FUNCTION_INFO_V1(crid_ulid_to_uuid);
PG_FUNCTION_INFO_V1(crid_uuid_to_typeid);
PG_FUNCTION_INFO_V1(crid_typeid_to_uuid);

// id_encode(id bigint, prefix text): "prefix_" + 11 base62 digits.
Datum crid_id_encode(PG_FUNCTION_ARGS) {
    int64_t id = PG_GETARG_INT64(0);
    std::string_view prefix = text_arg(fcinfo, 1);
    core::id_text::Text out = pg::guarded([&] { return b62::encode_id(id, prefix); });
    return text_datum(out);
}

// id_decode(text, prefix text): the bigint of a branded id.
Datum crid_id_decode(PG_FUNCTION_ARGS) {
    std::string_view in = text_arg(fcinfo, 0), prefix = text_arg(fcinfo, 1);
    PG_RETURN_INT64(pg::guarded([&] { return b62::decode_id(in, prefix); }));
}

Datum crid_uuid_to_base62(PG_FUNCTION_ARGS) { return text_datum(b62::encode_uuid(pg::uuid_arg(fcinfo, 0))); }

Datum crid_base62_to_uuid(PG_FUNCTION_ARGS) {
    std::string_view in = text_arg(fcinfo, 0);
    return pg::uuid_datum(pg::guarded([&] { return b62::decode_uuid(in); }));
}

Datum crid_uuid_to_ulid(PG_FUNCTION_ARGS) { return text_datum(b32::encode_ulid(pg::uuid_arg(fcinfo, 0))); }

Datum crid_ulid_to_uuid(PG_FUNCTION_ARGS) {
    std::string_view in = text_arg(fcinfo, 0);
    return pg::uuid_datum(pg::guarded([&] { return b32::decode_ulid(in); }));
}

// uuid_to_typeid(prefix text, id uuid)
Datum crid_uuid_to_typeid(PG_FUNCTION_ARGS) {
    std::string_view prefix = text_arg(fcinfo, 0);
    core::Uuid u = pg::uuid_arg(fcinfo, 1);
    core::id_text::Text out = pg::guarded([&] { return b32::encode_typeid(prefix, u); });
    return text_datum(out);
}

// typeid_to_uuid(text [, prefix text]): with a prefix, the TypeID must carry it.
Datum crid_typeid_to_uuid(PG_FUNCTION_ARGS) {
    std::string_view in = text_arg(fcinfo, 0);
    if (PG_NARGS() < 2)
        return pg::uuid_datum(pg::guarded([&] { return b32::decode_typeid(in).uuid; }));
    std::string_view prefix = text_arg(fcinfo, 1);
    return pg::uuid_datum(pg::guarded([&] { return b32::decode_typeid_as(in, prefix); }));
}

} // extern "C"
