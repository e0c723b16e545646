#include "common/start_settings.hpp"

#include "common/allowed_values.hpp"
#include "common/pg_compat.hpp"

extern "C" {
#include "lib/stringinfo.h"
#include "utils/varlena.h"
}

#include <cstdio>

// Every frame here may see a PostgreSQL ERROR (a value refused, memory
// running out): only trivially destructible locals, and plain arrays in
// palloc memory for what is remembered.
namespace crid::pg::start_settings {

namespace {

constexpr const char prefix[] = "crid.";
constexpr int prefix_length = sizeof prefix - 1;

// A crid.* value as postgresql.conf or the command line wrote it.
struct Remembered {
    char *name;
    char *value;
    GucSource source;
    char *file; // nullptr unless it came from a configuration file
    int line;
};

Remembered *remembered = nullptr;
int remembered_count = 0;

bool is_crid_setting(const config_generic *setting) {
    return setting && pg_strncasecmp(setting->name, prefix, prefix_length) == 0;
}

bool is_placeholder(const config_generic *setting) { return (setting->flags & GUC_CUSTOM_PLACEHOLDER) != 0; }

// "set in file "…/postgresql.conf" line 12", for the log: where to look.
void where_set(const Remembered &r, char *out, size_t size) {
    if (r.file)
        std::snprintf(out, size, "%s is set in file \"%s\" line %d", r.name, r.file, r.line);
    else if (r.source == PGC_S_ARGV)
        std::snprintf(out, size, "%s is set on the server's command line", r.name);
    else
        std::snprintf(out, size, "%s is set", r.name);
}

// The crid.* setting crid defines whose name is nearest to `name`, when it
// is near enough to be the one meant (a letter or three off); else nullptr.
const char *nearest_setting(const char *name) {
    constexpr int near_enough = 3;
    int count = 0;
    config_generic **all = compat::guc_variables(count);
    const char *best = nullptr;
    int best_distance = near_enough + 1;
    for (int i = 0; i < count; ++i) {
        if (!is_crid_setting(all[i]) || is_placeholder(all[i]))
            continue;
        int d = varstr_levenshtein(name, int(std::strlen(name)), all[i]->name, int(std::strlen(all[i]->name)), 1, 1, 1,
                                   true);
        if (d < best_distance) {
            best_distance = d;
            best = all[i]->name;
        }
    }
    return best;
}

// A crid.* name crid does not define: logged (never with its value, which
// may be a mistyped crid.registry with a password).
void log_unknown(const Remembered &r) {
    char where[MAXPGPATH + 128];
    where_set(r, where, sizeof where);
    const char *meant = nearest_setting(r.name);
    ereport(LOG, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("unrecognized configuration parameter \"%s\"", r.name),
                  errdetail("crid defines no setting of that name, and \"crid.\" is its prefix."),
                  meant ? errhint("Did you mean \"%s\"?", meant) : 0, errcontext("%s", where)));
}

// PostgreSQL's own message for a refused value, logged with what the
// setting allows and where the value is set.
void log_refused(ErrorData *error, const Remembered &r) {
    char allowed[512];
    describe_allowed(r.name, allowed, sizeof allowed);
    if (allowed[0] && !error->detail)
        error->detail = pstrdup(allowed);
    else if (allowed[0] && !error->hint)
        error->hint = pstrdup(allowed);
    if (!error->context) {
        char where[MAXPGPATH + 128];
        where_set(r, where, sizeof where);
        error->context = pstrdup(where);
    }
    error->elevel = LOG;
    ThrowErrorData(error);
}

// True when PostgreSQL takes the value: set_config_option with changeVal
// false parses it and runs the check hook exactly as a real assignment
// would, and changes nothing. A refusal is an ERROR, caught here so that
// every bad setting is logged before the start stops. No C++ object lives
// in this frame.
bool accepted(const Remembered &r) {
    MemoryContext caller = CurrentMemoryContext;
    volatile bool ok = true;
    PG_TRY();
    { (void)set_config_option(r.name, r.value, PGC_POSTMASTER, r.source, GUC_ACTION_SET, false, ERROR, false); }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller);
        ErrorData *error = CopyErrorData();
        FlushErrorState();
        log_refused(error, r);
        FreeErrorData(error);
        ok = false;
    }
    PG_END_TRY();
    return ok;
}

char *copy_or_null(const char *text) { return text ? pstrdup(text) : nullptr; }

} // namespace

bool at_server_start() { return process_shared_preload_libraries_in_progress && !IsUnderPostmaster; }

void remember_placeholders() {
    int count = 0;
    config_generic **all = compat::guc_variables(count);
    remembered = static_cast<Remembered *>(palloc0(sizeof(Remembered) * size_t(count > 0 ? count : 1)));
    remembered_count = 0;
    for (int i = 0; i < count; ++i) {
        config_generic *setting = all[i];
        if (!is_crid_setting(setting) || !is_placeholder(setting))
            continue;
        // A placeholder is a string setting: its value is the text as written.
        const char *value = *reinterpret_cast<config_string *>(setting)->variable;
        if (!value || setting->source == PGC_S_DEFAULT)
            continue;
        Remembered &r = remembered[remembered_count++];
        r.name = pstrdup(setting->name);
        r.value = pstrdup(value);
        r.source = setting->source;
        r.file = copy_or_null(setting->sourcefile);
        r.line = setting->sourceline;
    }
}

void check_remembered() {
    StringInfoData refused;
    initStringInfo(&refused);
    int problems = 0;
    for (int i = 0; i < remembered_count; ++i) {
        const Remembered &r = remembered[i];
        int flags = GetConfigOptionFlags(r.name, true);
        bool ok = true;
        if (flags & GUC_CUSTOM_PLACEHOLDER) {
            log_unknown(r);
            ok = false;
        } else {
            ok = accepted(r);
        }
        if (!ok)
            appendStringInfo(&refused, "%s%s", problems++ ? ", " : "", r.name);
    }
    remembered_count = 0;
    if (problems > 0)
        ereport(ERROR,
                (errcode(ERRCODE_CONFIG_FILE_ERROR),
                 errmsg_plural("crid setting %s is invalid", "crid settings %s are invalid", problems, refused.data),
                 errdetail("The messages before this one say what each takes and where it is set."),
                 errhint("Correct them and start the server again: a wrong crid setting would give this "
                         "server other ids than the configuration says.")));
    pfree(refused.data);
}

} // namespace crid::pg::start_settings
