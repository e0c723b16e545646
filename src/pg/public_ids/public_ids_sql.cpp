// SQL functions of public ids: the UUIDv47 face of a UUIDv7 and the opaque
// face of a 63-bit id, both ways (crid_mask, crid_unmask). The keys come from
// public_id_keys.cpp; the mappings are in src/core (uuidv47, permutation63).
//
// A NULL id has a NULL face (a view's outer join shows no face, not an
// error); a NULL key id is ERROR 22004, since a face computed with no key
// would be a NULL a DEFAULT or a view stores silently.
#include "common/postgres_headers.hpp"

#include "common/args.hpp"
#include "public_ids/public_id_keys.hpp"

#include "core/uuidv47.hpp"

using namespace crid;
using pg::public_ids::key_for_call;
using pg::public_ids::require_not_negative;

namespace {

void require_uuid_version(const core::Uuid &u, int version, const char *function, const char *what) {
    if (u.version() == version && u.rfc_variant())
        return;
    // The text is copied out of its std::string before ereport: the longjmp
    // of ERROR would skip the string's destructor.
    char text[40];
    {
        const std::string s = u.to_string();
        strlcpy(text, s.c_str(), sizeof text);
    }
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s: %s is not a version %d UUID of the RFC 9562 variant", function, text, version),
                    errhint("%s", what)));
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_mask_bigint);
PG_FUNCTION_INFO_V1(crid_unmask_bigint);
PG_FUNCTION_INFO_V1(crid_mask_uuid);
PG_FUNCTION_INFO_V1(crid_unmask_uuid);
PG_FUNCTION_INFO_V1(crid_mask_bigint_bits);
PG_FUNCTION_INFO_V1(crid_unmask_bigint_bits);

// crid_mask(id bigint, key_id integer): the opaque face of a 63-bit id.
Datum crid_mask_bigint(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_mask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t id = PG_GETARG_INT64(0);
    require_not_negative(id, "crid_mask", "id");
    PG_RETURN_INT64(int64_t(key.permutation.face(uint64_t(id))));
}

// crid_unmask(face bigint, key_id integer): the id behind a face.
Datum crid_unmask_bigint(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_unmask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t face = PG_GETARG_INT64(0);
    require_not_negative(face, "crid_unmask", "face");
    PG_RETURN_INT64(int64_t(key.permutation.id(uint64_t(face))));
}

// crid_mask(id bigint, key_id integer, bits integer): with bits 53, the face
// of an id below 2^53 in a keyed permutation of 0 .. 2^53 - 1 (so a
// JavaScript-safe id has a JavaScript-safe face); with 63, crid_mask(id, key_id).
Datum crid_mask_bigint_bits(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_mask");
    const int bits = pg::public_ids::face_bits_arg(fcinfo, 2, "crid_mask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t id = PG_GETARG_INT64(0);
    pg::public_ids::require_within_bits(id, bits, "crid_mask", "id");
    PG_RETURN_INT64(int64_t(bits == 63 ? key.permutation.face(uint64_t(id)) : key.permutation53.face(uint64_t(id))));
}

// crid_unmask(face bigint, key_id integer, bits integer): the id behind it.
Datum crid_unmask_bigint_bits(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_unmask");
    const int bits = pg::public_ids::face_bits_arg(fcinfo, 2, "crid_unmask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t face = PG_GETARG_INT64(0);
    pg::public_ids::require_within_bits(face, bits, "crid_unmask", "face");
    PG_RETURN_INT64(int64_t(bits == 63 ? key.permutation.id(uint64_t(face)) : key.permutation53.id(uint64_t(face))));
}

// crid_mask(id uuid, key_id integer): the UUIDv47 face of a UUIDv7.
Datum crid_mask_uuid(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_mask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    core::Uuid v7 = pg::uuid_arg(fcinfo, 0);
    require_uuid_version(v7, 7, "crid_mask", "Only a UUIDv7 has a UUIDv47 face.");
    return pg::uuid_datum(core::uuidv47_face(v7, key.sip));
}

// crid_unmask(face uuid, key_id integer): the UUIDv7 behind a UUIDv47 face.
Datum crid_unmask_uuid(PG_FUNCTION_ARGS) {
    const auto &key = key_for_call(fcinfo, 1, "crid_unmask");
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    core::Uuid face = pg::uuid_arg(fcinfo, 0);
    require_uuid_version(face, 4, "crid_unmask",
                         "A UUIDv47 face says version 4, as crid_mask(uuid, integer) makes it.");
    return pg::uuid_datum(core::uuidv47_id(face, key.sip));
}

} // extern "C"
