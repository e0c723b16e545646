#include "snowflake/layout_cache.hpp"

#include "common/args.hpp"
#include "common/boundary.hpp"
#include "snowflake/snowflake_settings.hpp"

#include <string>

namespace crid::pg::snowflake {

namespace {

// The last text parsed and its layout. Globals, so no C++ object with a
// destructor sits in a frame that ereport may leave.
std::string cached_text;
core::snowflake::Layout cached_layout;
bool cached_valid = false;

} // namespace

const core::snowflake::Layout &layout_of_text(std::string_view text) {
    if (!cached_valid || cached_text != text) {
        cached_valid = false; // a failed parse must not leave a stale pair
        cached_layout = core::snowflake::layout_named(text);
        cached_text.assign(text);
        cached_valid = true;
    }
    return cached_layout;
}

const core::snowflake::Layout &layout_arg(FunctionCallInfo fcinfo, int n) {
    if (PG_NARGS() <= n)
        return server_layout_or_error();
    if (PG_ARGISNULL(n))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("the snowflake layout must not be NULL"),
                        errhint("Name a preset (%s) or spell a layout.", core::snowflake::preset_list.data())));
    text *t = PG_GETARG_TEXT_PP(n);
    std::string_view v(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
    return *pg::guarded([&] { return &layout_of_text(v); });
}

} // namespace crid::pg::snowflake
