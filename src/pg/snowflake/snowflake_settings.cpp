#include "snowflake/snowflake_settings.hpp"

#include "common/boundary.hpp"
#include "common/pg_compat.hpp"
#include "common/settings_support.hpp"
#include "snowflake/node_fence.hpp"

#include "core/clock.hpp"
#include "core/snowflake_lease.hpp"

#include "core/snowflake_node_set.hpp"
#include "core/time_units.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace crid::pg::snowflake {

namespace {

char *epoch_text = nullptr;
char *layout_text = nullptr; // crid.snowflake_layout: '' builds the layout from the settings below
constexpr const char *default_epoch_text = "2026-01-01 00:00:00+00";
int node_bits = 10;
int sequence_bits = 12;
int gene_bits = 0;
// crid.node_id: a node number (-1: none) or 'lease' (node_lease); text that
// is neither (node_invalid) its check hook refuses.
constexpr int node_lease = -2, node_invalid = -3;
char *node_id_text = nullptr;
int node_id = -1;
bool layout_loaded = false;
int backfill_node_id = -1;
char *allowed_nodes_text = nullptr;

// Parsed by the check hook, installed by the assign hook (which must not fail).
core::NodeSet allowed_nodes;

core::snowflake::Layout layout;
LayoutSource loaded_from;

// Called by the GUC machinery: no exception of any kind may leave it. Its
// detail says what is wrong and what the setting takes: at server start it
// is the message that stops the start (start_settings.hpp).
bool check_allowed_nodes(char **newval, void **extra, GucSource) {
    core::NodeSet parsed;
    pg::CaughtError error;
    if (!pg::attempt([&] { parsed = core::NodeSet::parse(*newval ? *newval : ""); }, error)) {
        GUC_check_errdetail("%s. crid.snowflake_nodes lists nodes from 0 to 65535 and ranges of them, separated by "
                            "commas, such as '0-15,32'; empty means every node.",
                            error.message);
        return false;
    }
    auto *copy = static_cast<core::NodeSet *>(compat::guc_extra_alloc(sizeof(core::NodeSet)));
    if (!copy)
        return false;
    std::memcpy(static_cast<void *>(copy), &parsed, sizeof parsed);
    *extra = copy;
    return true;
}

// "lease" in any case, blanks around it allowed.
bool names_lease(const char *text) {
    if (pg_strncasecmp(text, "lease", 5) != 0)
        return false;
    const char *rest = text + 5;
    while (*rest == ' ')
        ++rest;
    return *rest == '\0';
}

// crid.node_id: a number or 'lease'. Called by the GUC machinery: no
// exception may leave it.
bool check_node_id(char **newval, void **extra, GucSource) {
    const char *text = *newval ? *newval : "";
    while (*text == ' ')
        ++text;
    int value = node_invalid;
    if (names_lease(text)) {
        value = node_lease;
    } else {
        char *end = nullptr;
        errno = 0;
        long n = std::strtol(text, &end, 10);
        if (end != text && errno == 0 && end[strspn(end, " ")] == '\0' && n >= -1 && n <= 65535)
            value = int(n);
    }
    if (value == node_invalid) {
        GUC_check_errdetail("crid.node_id takes a node number from 0 to 65535, -1 for none, or 'lease'.");
        return false;
    }
    if (value >= 0 && layout_loaded && value > core::snowflake::max_node(layout)) {
        GUC_check_errdetail("crid.snowflake_node_bits = %d allows nodes 0 to %lld.", layout.node_bits,
                            static_cast<long long>(core::snowflake::max_node(layout)));
        return false;
    }
    int *copy = static_cast<int *>(compat::guc_extra_alloc(sizeof(int)));
    if (!copy)
        return false;
    *copy = value;
    *extra = copy;
    return true;
}

void assign_node_id(const char *, void *extra) {
    if (extra)
        node_id = *static_cast<int *>(extra);
}

void assign_allowed_nodes(const char *, void *extra) {
    if (extra)
        std::memcpy(static_cast<void *>(&allowed_nodes), extra, sizeof allowed_nodes);
}

// What the layout was built from, besides the widths: the epoch, or the
// layout named by crid.snowflake_layout (marked so the two never match).
const char *source_key() {
    static char key[LayoutSource::max_key];
    std::snprintf(key, sizeof key, "%s%s", layout_text && layout_text[0] ? "layout:" : "",
                  layout_text && layout_text[0] ? layout_text : (epoch_text ? epoch_text : ""));
    return key;
}

// How many nodes of the layout crid.node_id = 'lease' may lease.
int64_t lease_pool_size(int64_t max_node) { return core::lease::wanted(true, -1, allowed_nodes, max_node).size(); }

} // namespace

void define_settings() {
    const GucContext layout_context = fixed_at_start_context();
    DefineCustomStringVariable("crid.snowflake_epoch", "Time zero of this server's snowflake ids.",
                               "Fixed at server start: generation and decoding must agree.", &epoch_text,
                               default_epoch_text, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("crid.snowflake_layout",
                               "This server's snowflake layout, by preset name or spelled out.",
                               "Such as 'javascript' (ids below 2^53). Empty: the layout of crid.snowflake_epoch and "
                               "the crid.snowflake_*_bits settings, which must then keep their defaults.",
                               &layout_text, "", layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_node_bits", "Width of the node field of snowflake ids.", nullptr,
                            &node_bits, 10, 0, 16, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_sequence_bits", "Width of the per-millisecond sequence of snowflake ids.",
                            nullptr, &sequence_bits, 12, 1, 22, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("crid.snowflake_gene_bits", "Width of the shard gene in the low bits of snowflake ids.",
                            nullptr, &gene_bits, 0, 0, 16, layout_context, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("crid.node_id", "The snowflake node of snowflake_next() without arguments.",
                               "A node number (-1: unset), or 'lease' for a node leased from the registry. Only "
                               "superusers and the server configuration may set it.",
                               &node_id_text, "-1", PGC_SUSET, 0, check_node_id, assign_node_id, nullptr);
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

namespace {

bool layout_named_by_setting() { return layout_text && layout_text[0] != '\0'; }

// crid.snowflake_layout: a preset or a spelled layout, whole; the settings
// it replaces must keep their defaults, so no two settings say different
// things about the same ids.
void load_named_layout() {
    if (std::strcmp(epoch_text ? epoch_text : "", default_epoch_text) != 0 || node_bits != 10 || sequence_bits != 12 ||
        gene_bits != 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("crid.snowflake_layout \"%s\" is set, and so is crid.snowflake_epoch or a "
                               "crid.snowflake_*_bits setting",
                               layout_text),
                        errhint("crid.snowflake_layout names the whole layout: spell the epoch and the widths there "
                                "(e.g. 'epoch=2026-01-01,unit=1s,node=4,sequence=16,gene=3,bits=53') and remove "
                                "the other settings.")));
    pg::guarded([&] {
        core::snowflake::Layout named = core::snowflake::layout_named(layout_text);
        if (named.use_sign_bit)
            throw core::Error(core::ErrorKind::invalid_parameter,
                              "crid.snowflake_layout \"" + std::string(layout_text) +
                                  "\" uses the sign bit; this server mints only positive ids",
                              "Choose a layout without sign=true.");
        if (named.epoch_unix_ms > core::wall_clock_ns() / core::ns_per_ms)
            throw core::Error(core::ErrorKind::invalid_parameter,
                              "crid.snowflake_layout \"" + std::string(layout_text) + "\": its epoch is in the future",
                              "Ids count time from the epoch; choose a past time.");
        named.name = "server";
        layout = named;
    });
}

} // namespace

void load_server_layout() {
    int nb = node_bits, sb = sequence_bits, gb = gene_bits;
    if (layout_named_by_setting())
        load_named_layout();
    else {
        int64_t epoch = epoch_setting_unix_ms("crid.snowflake_epoch", epoch_text);
        // The layout is assigned inside the guard: it owns a std::string, which
        // must not live in a frame that ereport may leave.
        pg::guarded([&] {
            if (63 - nb - sb - gb < 32)
                throw core::Error(core::ErrorKind::invalid_parameter,
                                  "crid.snowflake_node_bits (" + std::to_string(nb) +
                                      ") + crid.snowflake_sequence_bits (" + std::to_string(sb) +
                                      ") + crid.snowflake_gene_bits (" + std::to_string(gb) + ") leave " +
                                      std::to_string(63 - nb - sb - gb) + " time bits; at least 32 are needed",
                                  "Lower the node, sequence or gene bits so they add up to at most 31.");
            layout = core::snowflake::server_layout(epoch, nb, sb, gb);
        });
    }
    // Validated with the layout it must fit, so a wrong node stops the start
    // (without preloading nothing is minted and nothing refused: a wrong node
    // must not stop decoding; snowflake_pack names it when used).
    const long long last_node = core::snowflake::max_node(layout);
    if (process_shared_preload_libraries_in_progress && backfill_node_id > last_node)
        ereport(
            ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
             errmsg("crid.backfill_node %d is outside the snowflake nodes of this server's layout (0 to %lld)",
                    backfill_node_id, last_node),
             errhint("The layout has %d node bits; choose a node of the layout, or -1 for none.", layout.node_bits)));
    loaded_from.remember(source_key(), {nb, sb, gb});
    layout_loaded = true;
}

const core::snowflake::Layout &server_layout() { return layout; }

const core::snowflake::Layout &server_layout_or_error() {
    if (!loaded_from.matches(source_key(), {node_bits, sequence_bits, gene_bits}))
        load_server_layout();
    return layout;
}

void server_layout_text(char (&out)[256]) {
    const core::snowflake::Layout &layout = server_layout();
    pg::guarded([&] { std::snprintf(out, sizeof out, "%s", core::snowflake::describe(layout).c_str()); });
}

int configured_node() { return node_id == node_lease ? leased_node_or_error() : node_id; }

bool node_id_is_lease() { return node_id == node_lease; }
int static_node_id() { return node_id >= 0 ? node_id : -1; }

const core::NodeSet &allowed_node_set() { return allowed_nodes; }

void check_node_settings() {
    int64_t max_node = core::snowflake::max_node(layout);
    if (node_id > max_node)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("crid.node_id %d is outside the snowflake layout", node_id),
                        errdetail("crid.snowflake_node_bits = %d allows nodes 0 to %lld.", layout.node_bits,
                                  static_cast<long long>(max_node))));
    if (node_id == node_lease && lease_pool_size(max_node) == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("crid.node_id = 'lease' finds no node to lease in crid.snowflake_nodes \"%s\"",
                               allowed_nodes_text),
                        errdetail("crid.snowflake_node_bits = %d allows nodes 0 to %lld.", layout.node_bits,
                                  static_cast<long long>(max_node))));
}

void check_node_allowed(int64_t node) {
    if (!allowed_nodes.contains(node))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("this server may not mint snowflake ids for node %lld", static_cast<long long>(node)),
                        errdetail("crid.snowflake_nodes is \"%s\".", allowed_nodes_text),
                        errhint("Another server owns that node; ask its administrator, or change "
                                "crid.snowflake_nodes in this server's configuration.")));
}

int backfill_node() { return backfill_node_id; }

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
