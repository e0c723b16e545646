#include "snowflake_settings.hpp"

#include "boundary.hpp"
#include "settings_support.hpp"

#include "../core/node_set.hpp"
#include "../core/time_units.hpp"

#include <cstdlib>

namespace crid::pg::snowflake {

namespace {

char *epoch_text = nullptr;
int node_bits = 10;
int sequence_bits = 12;
int gene_bits = 0;
int clock_wait_ms = 5;
int clock_borrow_ms = 1000;
int node_id = -1;
int backfill_node_id = -1;
char *allowed_nodes_text = nullptr;

// Parsed by the check hook, installed by the assign hook (which must not fail).
core::NodeSet allowed_nodes;

core::snowflake::Layout layout;
LayoutSource loaded_from;

// Called by the GUC machinery: no exception of any kind may leave it.
bool check_allowed_nodes(char **newval, void **extra, GucSource) {
    core::NodeSet parsed;
    pg::CaughtError error;
    if (!pg::attempt([&] { parsed = core::NodeSet::parse(*newval ? *newval : ""); }, error)) {
        GUC_check_errdetail("%s", error.message);
        return false;
    }
    // PostgreSQL 15 frees a GUC's extra with free().
    auto *copy = static_cast<core::NodeSet *>(std::malloc(sizeof(core::NodeSet)));
    if (!copy)
        return false;
    std::memcpy(static_cast<void *>(copy), &parsed, sizeof parsed);
    *extra = copy;
    return true;
}

void assign_allowed_nodes(const char *, void *extra) {
    if (extra)
        std::memcpy(static_cast<void *>(&allowed_nodes), extra, sizeof allowed_nodes);
}

} // namespace

void define_settings() {
    const GucContext layout_context = fixed_at_start_context();
    DefineCustomStringVariable("crid.snowflake_epoch", "Time zero of this server's snowflake ids.",
                               "Fixed at server start: generation and decoding must agree.", &epoch_text,
                               "2026-01-01 00:00:00+00", layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_node_bits", "Width of the node field of snowflake ids.", nullptr,
                            &node_bits, 10, 0, 16, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_sequence_bits", "Width of the per-millisecond sequence of snowflake ids.",
                            nullptr, &sequence_bits, 12, 1, 22, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_gene_bits", "Width of the shard gene in the low bits of snowflake ids.",
                            nullptr, &gene_bits, 0, 0, 16, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.clock_wait_ms",
                            "A clock step back of at most this many ms waits for the clock to catch up.", nullptr,
                            &clock_wait_ms, 5, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.clock_borrow_ms",
                            "A clock step back of at most this many ms continues on a logical clock ahead of it.",
                            "Beyond it, generation fails rather than risk a repeated id.", &clock_borrow_ms, 1000, 0,
                            3600000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.node_id", "The snowflake node of snowflake_next() without arguments.",
                            "-1 means unset. Only superusers and the server configuration may set it.", &node_id, -1,
                            -1, 65535, PGC_SUSET, 0, nullptr, nullptr, nullptr);
    // Fixed at start like the layout it must fit: every backend must refuse
    // the same node, and a session must not be able to lift the refusal.
    DefineCustomIntVariable("crid.backfill_node", "The snowflake node kept for ids of past times (backfills).",
                            "snowflake_next() refuses it, so ids that snowflake_pack() gives it never equal a live "
                            "id. -1 means none.",
                            &backfill_node_id, -1, -1, 65535, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("crid.snowflake_nodes", "The snowflake nodes this server may mint for.",
                               "Ranges such as '0-15,32'; empty means every node of the layout.", &allowed_nodes_text,
                               "", PGC_SIGHUP, 0, check_allowed_nodes, assign_allowed_nodes, nullptr);
}

void load_server_layout() {
    int64_t epoch = epoch_setting_unix_ms("crid.snowflake_epoch", epoch_text);
    int nb = node_bits, sb = sequence_bits, gb = gene_bits;
    // The layout is assigned inside the guard: it owns a std::string, which
    // must not live in a frame that ereport may leave.
    pg::guarded([&] {
        if (63 - nb - sb - gb < 32)
            throw core::Error(core::ErrorKind::invalid_parameter,
                              "crid.snowflake_node_bits (" + std::to_string(nb) + ") + crid.snowflake_sequence_bits (" +
                                  std::to_string(sb) + ") + crid.snowflake_gene_bits (" + std::to_string(gb) +
                                  ") leave " + std::to_string(63 - nb - sb - gb) + " time bits; at least 32 are needed",
                              "Lower the node, sequence or gene bits so they add up to at most 31.");
        layout = core::snowflake::server_layout(epoch, nb, sb, gb);
    });
    // Validated with the layout it must fit, so a wrong node stops the start
    // (without preloading nothing is minted and nothing refused: a wrong node
    // must not stop decoding; snowflake_pack names it when used).
    const long long last_node = core::snowflake::max_node(layout);
    if (process_shared_preload_libraries_in_progress && backfill_node_id > last_node)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("crid.backfill_node %d is outside the snowflake nodes of this server's layout (0 to %lld)",
                        backfill_node_id, last_node),
                 errhint("crid.snowflake_node_bits = %d; choose a node of the layout, or -1 for none.", nb)));
    loaded_from.remember(epoch_text, {nb, sb, gb});
}

const core::snowflake::Layout &server_layout() { return layout; }

const core::snowflake::Layout &server_layout_or_error() {
    if (!loaded_from.matches(epoch_text, {node_bits, sequence_bits, gene_bits}))
        load_server_layout();
    return layout;
}

core::snowflake::Policy current_policy() { return {clock_wait_ms, clock_borrow_ms}; }

int configured_node() { return node_id; }

void check_node_allowed(int64_t node) {
    if (!allowed_nodes.contains(node))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("this server may not mint snowflake ids for node %lld", static_cast<long long>(node)),
                        errdetail("crid.snowflake_nodes is \"%s\".", allowed_nodes_text),
                        errhint("Another server owns that node; ask its administrator, or change "
                                "crid.snowflake_nodes in this server's configuration.")));
}

void check_not_backfill_node(int64_t node) {
    if (node >= 0 && node == backfill_node_id)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("snowflake node %lld is crid.backfill_node: live ids are not minted on it",
                               static_cast<long long>(node)),
                        errdetail("Ids of past times are packed on that node (snowflake_pack), so a live id there "
                                  "could equal one of them."),
                        errhint("Mint on another node.")));
}

void check_node_id_not_backfill_node(const char *function) {
    if (node_id >= 0 && node_id == backfill_node_id)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: crid.node_id %d is crid.backfill_node, where live ids are not minted", function, node_id),
                 errdetail("Ids of past times are packed on that node (snowflake_pack), so a live id there "
                           "could equal one of them."),
                 errhint("Give crid.node_id another node.")));
}

} // namespace crid::pg::snowflake
