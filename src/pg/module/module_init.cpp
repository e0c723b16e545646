// Module entry point: settings, and shared memory when preloaded.
#include "common/postgres_headers.hpp"
#include "common/pg_compat.hpp"

#include "crid_ids/block_shared.hpp"
#include "crid_ids/crid_ids_settings.hpp"
#include "common/clock_policy.hpp"
#include "common/start_settings.hpp"
#include "registry/registry_settings.hpp"
#include "worker/worker_main.hpp"
#include "worker/state_texts.hpp"
#include "marks/high_water_keeper.hpp"
#include "marks/high_water_wal.hpp"
#include "module/shared_memory.hpp"
#include "snowflake/node_fence.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "public_ids/faces_in_plans.hpp"
#include "queries_by_time/time_predicates.hpp"
#include "sequences/sequence_plans.hpp"
#include "uuidv7/uuidv7_source.hpp"

extern "C" {

CRID_MODULE_MAGIC;

void _PG_init(void);

// Only PostgreSQL calls and functions that guard their own C++ run here. When
// preloaded, a wrong setting is an ERROR here, which stops the server start
// with a message naming the setting: a value PostgreSQL refuses or a crid.*
// name crid does not define (start_settings.hpp), then settings wrong only
// together (a snowflake or crid layout) or as libpq reads them
// (crid.registry). History on disk that disagrees with valid settings never
// does: it stops only the minting that depends on it (high_water.hpp,
// registry_mark.hpp).
void _PG_init(void) {
    // The values waiting in placeholders must be copied before the first
    // setting is defined: defining it consumes its placeholder.
    const bool server_start = crid::pg::start_settings::at_server_start();
    if (server_start)
        crid::pg::start_settings::remember_placeholders();
    crid::pg::uuidv7::define_settings();
    crid::pg::snowflake::define_settings();
    crid::pg::crid_ids::define_settings();
    crid::pg::registry::define_settings();
    crid::pg::define_clock_settings();
    crid::pg::queries_by_time::init(process_shared_preload_libraries_in_progress);
    // Loaded or preloaded: a plan that folds a face must depend on the role.
    crid::pg::public_ids::install_plan_hooks();
    // Before MarkGUCPrefixReserved, which would only warn about a crid.*
    // name crid does not define and drop it.
    if (server_start)
        crid::pg::start_settings::check_remembered();
    MarkGUCPrefixReserved("crid");
    if (process_shared_preload_libraries_in_progress) {
        crid::pg::snowflake::load_server_layout();
        crid::pg::snowflake::check_node_settings();
        crid::pg::crid_ids::load_layout();
        crid::pg::registry::load_registry_table();
        crid::pg::registry::validate_at_start();
        crid::pg::install_shared_memory_hooks();
        // Converted sequences hand out crid ids through nextval() and IDENTITY.
        crid::pg::sequences::install_plan_hook();
        crid::pg::crid_ids::set_timeout_explainer(crid::pg::worker::explain_timeout);
        crid::pg::snowflake::set_text_filter(crid::pg::registry::for_caller);
        // pg_upgrade's servers (binary upgrade mode) restore catalogs and
        // set the WAL level; crid's workers would reserve blocks and take
        // node leases there, in a cluster without its mark files yet.
        if (!IsBinaryUpgrade) {
            crid::pg::worker::register_worker();
            crid::pg::marks::register_keeper();
        }
        crid::pg::marks::register_rmgr();
    }
}

} // extern "C"
