// Running a fixed statement as a table's owner: as_owner.hpp.
#include "common/as_owner.hpp"

extern "C" {
#include "catalog/pg_class.h"
#include "utils/guc.h"
#include "utils/syscache.h"
}

namespace crid::pg {

Oid relation_owner(Oid relid, const char *function) {
    HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
    if (!HeapTupleIsValid(tuple))
        elog(ERROR, "%s: cache lookup failed for relation %u", function, relid);
    Oid owner = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
    ReleaseSysCache(tuple);
    return owner;
}

AsOwner begin_as_owner(Oid owner) {
    AsOwner saved;
    GetUserIdAndSecContext(&saved.saved_user, &saved.saved_context);
    SetUserIdAndSecContext(owner, saved.saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
    saved.guc_nest = NewGUCNestLevel();
    (void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                            false);
    return saved;
}

void end_as_owner(const AsOwner &saved) {
    AtEOXact_GUC(false, saved.guc_nest);
    SetUserIdAndSecContext(saved.saved_user, saved.saved_context);
}

} // namespace crid::pg
