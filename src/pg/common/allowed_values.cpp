#include "common/allowed_values.hpp"

#include "common/pg_compat.hpp"

#include <cstdio>

namespace crid::pg {

namespace {

// The setting of that name (names are case-insensitive), nullptr if none.
// Found by walking every setting: PostgreSQL 15 keeps its lookup static.
config_generic *setting_named(const char *name) {
    int count = 0;
    config_generic **all = compat::guc_variables(count);
    for (int i = 0; i < count; ++i)
        if (all[i] && pg_strcasecmp(all[i]->name, name) == 0)
            return all[i];
    return nullptr;
}

// The unit an integer setting is written in, as postgresql.conf spells it.
const char *unit_of(int flags) {
    switch (flags & GUC_UNIT) {
    case GUC_UNIT_MS:
        return "ms";
    case GUC_UNIT_S:
        return "s";
    case GUC_UNIT_MIN:
        return "min";
    case GUC_UNIT_BYTE:
        return "B";
    case GUC_UNIT_KB:
        return "kB";
    case GUC_UNIT_MB:
        return "MB";
    default:
        return nullptr;
    }
}

void describe_int(const config_int *s, char *out, size_t size) {
    if (const char *unit = unit_of(s->gen.flags))
        std::snprintf(out, size, "%s takes %d %s to %d %s.", s->gen.name, s->min, unit, s->max, unit);
    else
        std::snprintf(out, size, "%s takes an integer from %d to %d.", s->gen.name, s->min, s->max);
}

void describe_enum(const config_enum *s, char *out, size_t size) {
    size_t used = size_t(std::snprintf(out, size, "%s is one of:", s->gen.name));
    bool first = true;
    for (const config_enum_entry *e = s->options; e->name && used < size; ++e) {
        if (e->hidden)
            continue;
        used += size_t(std::snprintf(out + used, size - used, "%s %s", first ? "" : ",", e->name));
        first = false;
    }
    if (used < size)
        std::snprintf(out + used, size - used, ".");
}

} // namespace

void describe_allowed(const char *name, char *out, size_t size) {
    out[0] = '\0';
    config_generic *setting = setting_named(name);
    if (!setting || (setting->flags & GUC_CUSTOM_PLACEHOLDER))
        return;
    switch (setting->vartype) {
    case PGC_BOOL:
        std::snprintf(out, size, "%s is on or off.", setting->name);
        break;
    case PGC_INT:
        describe_int(reinterpret_cast<config_int *>(setting), out, size);
        break;
    case PGC_REAL: {
        const config_real *s = reinterpret_cast<config_real *>(setting);
        std::snprintf(out, size, "%s takes a number from %g to %g.", s->gen.name, s->min, s->max);
        break;
    }
    case PGC_ENUM:
        describe_enum(reinterpret_cast<config_enum *>(setting), out, size);
        break;
    case PGC_STRING:
        break; // its check hook's detail says what it takes
    }
}

} // namespace crid::pg
