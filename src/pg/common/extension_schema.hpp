// Where extension crid lives in this database: objects crid reads itself
// (its functions for the planner hook, its key table for public ids) are
// found by this schema's OID, never through a search_path.
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg {

// The schema of extension crid in this database, or InvalidOid. Reads
// pg_extension (a catalog scan): callers cache what they find with it.
Oid crid_schema();

} // namespace crid::pg
