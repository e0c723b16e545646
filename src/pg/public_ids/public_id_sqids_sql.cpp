// SQL functions of the short text of public ids: the opaque face of a
// 63-bit id written with Sqids (crid_mask_sqid) and read back into the id
// (crid_unmask_sqid). The face is written as two Sqids numbers, its high 31
// bits and its low 32: the npm package, which most applications decoding
// Sqids use, holds numbers as JavaScript numbers (exact to 2^53 - 1 and
// refused above), so a single 63-bit number would not read back there.
//
// The codec (src/core/sqids) is built once per call site and options: when
// the alphabet and blocklist are constants or parameters, every row after
// the first compares pointers; options computed per row are compared by
// value, and the codec built again only when they change.
#include "common/postgres_headers.hpp"

#include "common/args.hpp"
#include "common/boundary.hpp"
#include "public_ids/public_id_keys.hpp"

#include "core/base62.hpp"
#include "core/id_text.hpp"
#include "core/sqids.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
}

using namespace crid;
using pg::public_ids::key_for_call;

namespace {

// The options of one call site: the codec, and what it was built from.
struct SqidsState {
    bool stable = false;                       // alphabet and blocklist stay put for the query
    Datum alphabet_arg = 0, blocklist_arg = 0; // as passed last time
    std::string alphabet;
    int min_length = -1;
    std::vector<std::string> blocklist;
    std::unique_ptr<core::sqids::Codec> codec;
};

void delete_state(void *state) { delete static_cast<SqidsState *>(state); }

std::string_view text_of(Datum d) {
    text *t = DatumGetTextPP(d);
    return std::string_view(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

// The elements of a text[] (ERROR 22004 for a NULL one), as palloc'd datums.
int words_of(Datum d, const char *function, Datum **elems) {
    ArrayType *a = DatumGetArrayTypeP(d);
    bool *nulls;
    int n;
    deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, elems, &nulls, &n);
    for (int i = 0; i < n; ++i)
        if (nulls[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("%s: the blocklist must not hold NULL", function)));
    for (int i = 0; i < n; ++i)
        (*elems)[i] = PointerGetDatum(PG_DETOAST_DATUM_PACKED((*elems)[i]));
    return n;
}

// Text made inside guarded(), handed back as plain bytes: no C++ object may
// be alive when PostgreSQL copies it into a text (which can raise). Room for
// a 63-character prefix, '_' and the longest id min_length asks for.
struct Out {
    char data[512];
    size_t size;
};

// The codec for arguments `first` (alphabet), first + 1 (min_length) and
// first + 2 (blocklist), rebuilt only when their values change.
const core::sqids::Codec &codec_for_call(FunctionCallInfo fcinfo, int first, const char *function) {
    Datum alphabet_arg = PointerGetDatum(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(first)));
    int32 min_length = PG_GETARG_INT32(first + 1);
    Datum blocklist_arg = PG_GETARG_DATUM(first + 2);
    auto &cache = pg::public_ids::call_cache(fcinfo);
    if (cache.extra == nullptr) {
        // The callback first: once the state exists, nothing may fail
        // before the context knows to delete it.
        auto *cb = static_cast<MemoryContextCallback *>(
            MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(MemoryContextCallback)));
        cb->func = delete_state;
        cb->arg = pg::guarded([] { return new SqidsState; });
        cache.extra = cb->arg;
        MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, cb);
        // The same pointers mean the same options only for arguments that
        // stay put for the whole query (constants, parameters): a value
        // computed per row may sit where the last row's was, holding
        // something else. The call site's expression never changes.
        static_cast<SqidsState *>(cache.extra)->stable =
            get_fn_expr_arg_stable(fcinfo->flinfo, first) && get_fn_expr_arg_stable(fcinfo->flinfo, first + 2);
    }
    auto *state = static_cast<SqidsState *>(cache.extra);
    if (state->stable && state->codec && state->alphabet_arg == alphabet_arg && state->blocklist_arg == blocklist_arg &&
        state->min_length == min_length)
        return *state->codec;
    std::string_view alphabet = text_of(alphabet_arg);
    Datum *elems = nullptr;
    int n = words_of(blocklist_arg, function, &elems);
    pg::guarded([&] {
        std::vector<std::string> blocklist;
        for (int i = 0; i < n; ++i)
            blocklist.emplace_back(text_of(elems[i]));
        if (!state->codec || state->alphabet != alphabet || state->min_length != min_length ||
            state->blocklist != blocklist) {
            state->codec.reset(); // a codec that fails to build leaves none behind
            state->codec = std::make_unique<core::sqids::Codec>(alphabet, min_length, blocklist);
            state->alphabet = alphabet;
            state->min_length = min_length;
            state->blocklist = std::move(blocklist);
        }
        return 0;
    });
    state->alphabet_arg = alphabet_arg;
    state->blocklist_arg = blocklist_arg;
    return *state->codec;
}

// What both functions take before their first argument, in this order (a
// key's refusal comes before an option's): the key of argument 1, the
// options of arguments 2 to 5 (none may be NULL), the prefix and the codec.
struct SqidsCall {
    const pg::public_ids::PublicKey &key;
    std::string_view prefix;
    const core::sqids::Codec &codec;
};

// `prefix_arg`: 2, or 3 when a bits argument comes before the options.
SqidsCall sqids_call(FunctionCallInfo fcinfo, const char *function, int prefix_arg = 2) {
    const auto &key = key_for_call(fcinfo, 1, function);
    pg::require_not_null(fcinfo, prefix_arg, function, "prefix");
    pg::require_not_null(fcinfo, prefix_arg + 1, function, "alphabet");
    pg::require_not_null(fcinfo, prefix_arg + 2, function, "min_length");
    pg::require_not_null(fcinfo, prefix_arg + 3, function, "blocklist");
    core::id_text::set_utf8(GetDatabaseEncoding() == PG_UTF8);
    std::string_view prefix = text_of(PG_GETARG_DATUM(prefix_arg));
    return {key, prefix, codec_for_call(fcinfo, prefix_arg + 1, function)};
}

// The text of a face: its Sqids numbers after prefix_, as plain bytes.
Out face_text(std::string_view prefix, const core::sqids::Codec &codec, std::span<const uint64_t> numbers) {
    return pg::guarded([&] {
        core::base62::check_prefix(prefix);
        std::string s = prefix.empty() ? std::string() : std::string(prefix) + "_";
        s += codec.encode(numbers);
        Out o;
        if (s.size() > sizeof o.data)
            throw core::Error(core::ErrorKind::internal, "a Sqids face longer than 512 bytes");
        o.size = s.size();
        memcpy(o.data, s.data(), s.size());
        return o;
    });
}

// The numbers of a face's text (after prefix_), spelled as encode spells them.
void face_numbers(std::string_view in, std::string_view prefix, const core::sqids::Codec &codec,
                  std::span<uint64_t> numbers) {
    pg::guarded([&] {
        core::base62::check_prefix(prefix);
        std::string_view body = in;
        if (!prefix.empty()) {
            if (in.size() <= prefix.size() || in.substr(0, prefix.size()) != prefix || in[prefix.size()] != '_')
                throw core::Error(core::ErrorKind::invalid_text,
                                  "invalid " + std::string(prefix) + " id " + core::id_text::shown(in) +
                                      ": it does not start with \"" + std::string(prefix) + "_\"");
            body = in.substr(prefix.size() + 1);
        }
        codec.decode_exact(body, numbers);
        return 0;
    });
}

constexpr uint64_t low_mask = 0xFFFFFFFFu;

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_mask_sqid);
PG_FUNCTION_INFO_V1(crid_unmask_sqid);
PG_FUNCTION_INFO_V1(crid_mask_sqid_bits);
PG_FUNCTION_INFO_V1(crid_unmask_sqid_bits);

// crid_mask_sqid(id, key_id, bits, prefix, alphabet, min_length, blocklist):
// with bits 53, the 53-bit face of an id below 2^53 as ONE Sqids number, which
// npm's sqids decodes into a JavaScript number exactly; with 63, the text
// crid_mask_sqid(id, key_id, prefix, ...) writes.
Datum crid_mask_sqid_bits(PG_FUNCTION_ARGS) {
    const char *function = "crid_mask_sqid";
    const auto [key, prefix, codec] = sqids_call(fcinfo, function, 3);
    const int bits = pg::public_ids::face_bits_arg(fcinfo, 2, function);
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t id = PG_GETARG_INT64(0);
    pg::public_ids::require_within_bits(id, bits, function, "id");
    Out out;
    if (bits == 63) {
        uint64_t face = key.permutation.face(uint64_t(id));
        const uint64_t numbers[2] = {face >> 32, face & low_mask};
        out = face_text(prefix, codec, numbers);
    } else {
        const uint64_t numbers[1] = {key.permutation53.face(uint64_t(id))};
        out = face_text(prefix, codec, numbers);
    }
    PG_RETURN_TEXT_P(cstring_to_text_with_len(out.data, int(out.size)));
}

// crid_unmask_sqid(text, key_id, bits, prefix, alphabet, min_length,
// blocklist): the id behind text crid_mask_sqid made with the same bits and
// options.
Datum crid_unmask_sqid_bits(PG_FUNCTION_ARGS) {
    const char *function = "crid_unmask_sqid";
    const auto [key, prefix, codec] = sqids_call(fcinfo, function, 3);
    const int bits = pg::public_ids::face_bits_arg(fcinfo, 2, function);
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    std::string_view in = text_of(PG_GETARG_DATUM(0));
    uint64_t n[2] = {0, 0};
    face_numbers(in, prefix, codec, std::span<uint64_t>(n, bits == 63 ? 2 : 1));
    const bool fits = bits == 63 ? (n[0] >> 31 == 0 && n[1] <= low_mask) : n[0] <= core::Permutation53::max;
    if (!fits)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid Sqids face: its numbers are not a %d-bit face", bits)));
    if (bits == 63)
        PG_RETURN_INT64(int64_t(key.permutation.id((n[0] << 32) | n[1])));
    PG_RETURN_INT64(int64_t(key.permutation53.id(n[0])));
}

// crid_mask_sqid(id, key_id, prefix, alphabet, min_length, blocklist): the
// face of a 63-bit id as [high 31 bits, low 32 bits] in Sqids, after prefix_.
Datum crid_mask_sqid(PG_FUNCTION_ARGS) {
    const char *function = "crid_mask_sqid";
    const auto [key, prefix, codec] = sqids_call(fcinfo, function);
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    int64_t id = PG_GETARG_INT64(0);
    pg::public_ids::require_not_negative(id, function, "id");
    uint64_t face = key.permutation.face(uint64_t(id));
    Out out = pg::guarded([&] {
        core::base62::check_prefix(prefix);
        const uint64_t numbers[2] = {face >> 32, face & low_mask};
        std::string s = prefix.empty() ? std::string() : std::string(prefix) + "_";
        s += codec.encode(numbers);
        Out o;
        if (s.size() > sizeof o.data)
            throw core::Error(core::ErrorKind::internal, "a Sqids face longer than 512 bytes");
        o.size = s.size();
        memcpy(o.data, s.data(), s.size());
        return o;
    });
    PG_RETURN_TEXT_P(cstring_to_text_with_len(out.data, int(out.size)));
}

// crid_unmask_sqid(text, key_id, prefix, alphabet, min_length, blocklist):
// the id behind Sqids text that crid_mask_sqid made with the same options.
Datum crid_unmask_sqid(PG_FUNCTION_ARGS) {
    const char *function = "crid_unmask_sqid";
    const auto [key, prefix, codec] = sqids_call(fcinfo, function);
    if (PG_ARGISNULL(0))
        PG_RETURN_NULL();
    std::string_view in = text_of(PG_GETARG_DATUM(0));
    uint64_t face = pg::guarded([&] {
        core::base62::check_prefix(prefix);
        std::string_view body = in;
        if (!prefix.empty()) {
            if (in.size() <= prefix.size() || in.substr(0, prefix.size()) != prefix || in[prefix.size()] != '_')
                throw core::Error(core::ErrorKind::invalid_text,
                                  "invalid " + std::string(prefix) + " id " + core::id_text::shown(in) +
                                      ": it does not start with \"" + std::string(prefix) + "_\"");
            body = in.substr(prefix.size() + 1);
        }
        uint64_t n[2];
        codec.decode_exact(body, n);
        if (n[0] >> 31 != 0 || n[1] > low_mask)
            throw core::Error(core::ErrorKind::invalid_text,
                              "invalid Sqids face " + core::id_text::shown(in) + ": its numbers are not a 63-bit face",
                              "crid_mask_sqid writes a face as its high 31 bits and its low 32 bits.");
        return (n[0] << 32) | n[1];
    });
    PG_RETURN_INT64(int64_t(key.permutation.id(face)));
}

} // extern "C"
