#include "common/boundary.hpp"

#include <cstdio>

namespace crid::pg {

namespace {

int sqlstate_of(core::ErrorKind kind) noexcept {
    switch (kind) {
    case core::ErrorKind::invalid_parameter:
        return ERRCODE_INVALID_PARAMETER_VALUE;
    case core::ErrorKind::numeric_out_of_range:
        return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
    case core::ErrorKind::datetime_out_of_range:
        return ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;
    case core::ErrorKind::invalid_text:
        return ERRCODE_INVALID_TEXT_REPRESENTATION;
    case core::ErrorKind::null_value:
        return ERRCODE_NULL_VALUE_NOT_ALLOWED;
    case core::ErrorKind::prerequisite_state:
        return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
    case core::ErrorKind::internal:
        break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

void copy_text(char (&dst)[512], const char *src) noexcept { std::snprintf(dst, sizeof dst, "%s", src); }

} // namespace

void capture_current_exception(CaughtError &out) noexcept {
    out.sqlstate = ERRCODE_INTERNAL_ERROR;
    out.hint[0] = '\0';
    try {
        throw;
    } catch (const core::Error &e) {
        out.sqlstate = sqlstate_of(e.kind());
        copy_text(out.message, e.what());
        copy_text(out.hint, e.hint().c_str());
    } catch (const std::bad_alloc &) {
        out.sqlstate = ERRCODE_OUT_OF_MEMORY;
        copy_text(out.message, "out of memory in crid");
    } catch (const std::exception &e) {
        std::snprintf(out.message, sizeof out.message, "internal error in crid: %s", e.what());
    } catch (...) {
        copy_text(out.message, "internal error in crid: unknown C++ exception");
    }
}

bool catch_pg_error(void (*step)(void *), void *context, CaughtError &error, void (*after_error)(void *)) {
    MemoryContext caller_context = CurrentMemoryContext;
    volatile bool ok = false;
    PG_TRY();
    {
        step(context);
        ok = true;
    }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller_context);
        ErrorData *data = CopyErrorData();
        FlushErrorState();
        error.sqlstate = data->sqlerrcode;
        copy_text(error.message, data->message ? data->message : "unknown error");
        copy_text(error.hint, data->hint ? data->hint : "");
        FreeErrorData(data);
        if (after_error)
            after_error(context);
    }
    PG_END_TRY();
    return ok;
}

void raise_caught(const CaughtError &e) {
    ereport(ERROR, (errcode(e.sqlstate), errmsg("%s", e.message), e.hint[0] ? errhint("%s", e.hint) : 0));
    pg_unreachable();
}

} // namespace crid::pg
