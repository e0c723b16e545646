// Where extension crid lives in this database: objects crid reads itself
// (its functions for the planner hook, its key table for public ids) are
// found by this schema's OID, never through a search_path.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

// The schema of extension crid in this database, or InvalidOid. Reads
// pg_extension (a catalog scan): callers cache what they find with it.
Oid crid_schema();

// Whether object `objid` of catalog `classid` is a member of extension crid
// (its pg_depend entry of type 'e'). A name found in crid's schema may be
// anyone's who can create there, the database owner's say, when this
// database's crid is of an older version than the library and lacks the
// object: callers that would run it, or read it, for every role check this.
bool crid_member(Oid classid, Oid objid);

} // namespace crid::pg
