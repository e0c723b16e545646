// crid_fill_id_with_gene(id_column, family, key_column [, bits]): a BEFORE
// INSERT OR UPDATE ... FOR EACH ROW trigger that fills a NULL id with a new id
// of `family` carrying the gene of another column, gene_of(key_column, bits):
//
//   snowflake  snowflake_next(crid.node_id, gene); bits must be omitted or
//              equal crid.snowflake_gene_bits
//   crid       crid_next(gene, bits)
//   uuidv7     uuid_generate_v7(gene, bits)
//
// A column DEFAULT cannot read another column, hence a trigger. It serves
// tables that are not partitioned by the id: PostgreSQL routes a row to its
// partition before BEFORE ROW triggers run, so a table partitioned by the
// id's gene needs the id in the INSERT itself (docs/genes.md, "Writing rows
// whose id carries another column's gene").
// An id that is not NULL is left as it is.
#include "common/postgres_headers.hpp"

#include "genes/gene_generators.hpp"
#include "genes/gene_keys.hpp"
#include "snowflake/snowflake_settings.hpp"
#include "snowflake/snowflake_source.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace {

constexpr const char *function = "crid_fill_id_with_gene";
constexpr const char *usage = "Use EXECUTE FUNCTION crid_fill_id_with_gene('id', 'crid', 'user_id', '4'): the id "
                              "column, the family (snowflake, crid or uuidv7), the key column, and the gene bits "
                              "(for snowflake: omitted, or crid.snowflake_gene_bits).";

enum class Family { snowflake, crid, uuidv7 };

Family family_arg(const char *name) {
    if (pg_strcasecmp(name, "snowflake") == 0)
        return Family::snowflake;
    if (pg_strcasecmp(name, "crid") == 0)
        return Family::crid;
    if (pg_strcasecmp(name, "uuidv7") == 0)
        return Family::uuidv7;
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s: unknown id family \"%s\"", function, name),
                    errhint("The family is snowflake, crid or uuidv7. %s", usage)));
    pg_unreachable();
}

// The attribute number of a column named in an argument.
int column_arg(Relation rel, const char *name, const char *role) {
    int att = SPI_fnumber(RelationGetDescr(rel), name);
    if (att <= 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: the %s column \"%s\" is not a column of %s", function, role, name,
                               RelationGetRelationName(rel)),
                        errhint("%s", usage)));
    return att;
}

// The gene bits argument: a whole number (its range is checked where used).
int32 bits_arg(const char *text) {
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: gene bits \"%s\" is not a whole number", function, text), errhint("%s", usage)));
    return int32(v);
}

// The snowflake id of this server's node with the gene; the gene bits are
// the layout's.
int64_t snowflake_id(Datum key, Oid key_type, bool have_bits, int32 bits) {
    const int layout_bits = crid::pg::snowflake::server_layout_or_error().gene_bits;
    if (layout_bits == 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: snowflake ids of this server carry no gene", function),
                        errhint("Set crid.snowflake_gene_bits (and restart) to reserve low bits for a shard gene.")));
    if (have_bits && bits != layout_bits)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("%s: gene bits %d differ from crid.snowflake_gene_bits (%d)", function, bits, layout_bits),
                 errhint("Snowflake ids carry as many gene bits as the layout has; omit the argument.")));
    int node = crid::pg::snowflake::configured_node();
    if (node < 0)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("%s: crid.node_id is not set", function),
                 errhint("Set crid.node_id in postgresql.conf: the trigger mints on this server's node.")));
    crid::pg::snowflake::check_node_id_not_backfill_node(function);
    int32 gene = crid::pg::genes::gene_of_datum(key, key_type, layout_bits, function);
    return crid::pg::snowflake::mint(node, gene);
}

// The trigger data, once it is a BEFORE INSERT OR UPDATE ... FOR EACH ROW
// call with 3 or 4 arguments; an ERROR naming the way to create it else.
TriggerData *trigger_call(FunctionCallInfo fcinfo) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("%s: not called as a trigger", function), errhint("%s", usage)));
    TriggerData *td = reinterpret_cast<TriggerData *>(fcinfo->context);
    if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
        !(TRIGGER_FIRED_BY_INSERT(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event)))
        ereport(ERROR,
                (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                 errmsg("%s: must be fired BEFORE INSERT OR UPDATE ... FOR EACH ROW", function), errhint("%s", usage)));
    const Trigger *tg = td->tg_trigger;
    if (tg->tgnargs < 3 || tg->tgnargs > 4)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: takes 3 or 4 arguments, not %d", function, tg->tgnargs), errhint("%s", usage)));
    return td;
}

// A new id of `family` whose gene comes from `key`.
Datum mint_id(Family family, Datum key, Oid key_type, bool have_bits, int32 bits) {
    switch (family) {
    case Family::snowflake:
        return Int64GetDatum(snowflake_id(key, key_type, have_bits, bits));
    case Family::crid: {
        int32 gene = crid::pg::genes::gene_of_datum(key, key_type, bits, function);
        return Int64GetDatum(crid::pg::genes::mint_crid(gene, bits));
    }
    case Family::uuidv7:
    default: {
        int32 gene = crid::pg::genes::gene_of_datum(key, key_type, bits, function);
        return crid::pg::genes::mint_uuidv7(gene, bits);
    }
    }
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_fill_id_with_gene);

Datum crid_fill_id_with_gene(PG_FUNCTION_ARGS) {
    TriggerData *td = trigger_call(fcinfo);
    const bool inserting = TRIGGER_FIRED_BY_INSERT(td->tg_event);
    const Trigger *tg = td->tg_trigger;
    Relation rel = td->tg_relation;
    TupleDesc desc = RelationGetDescr(rel);
    const int id_att = column_arg(rel, tg->tgargs[0], "id");
    const Family family = family_arg(tg->tgargs[1]);
    const int key_att = column_arg(rel, tg->tgargs[2], "key");
    const bool have_bits = tg->tgnargs == 4;
    const int32 bits = have_bits ? bits_arg(tg->tgargs[3]) : 0;
    if (!have_bits && family != Family::snowflake)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: %s ids need the gene bits as the fourth argument", function, tg->tgargs[1]),
                        errhint("%s", usage)));
    const Oid id_type = getBaseType(SPI_gettypeid(desc, id_att));
    const Oid wanted = family == Family::uuidv7 ? UUIDOID : INT8OID;
    if (id_type != wanted)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s: the id column \"%s\" is %s, but %s ids are %s", function, tg->tgargs[0],
                               format_type_be(id_type), tg->tgargs[1], format_type_be(wanted))));

    HeapTuple tuple = inserting ? td->tg_trigtuple : td->tg_newtuple;
    bool id_null, key_null;
    (void)heap_getattr(tuple, id_att, desc, &id_null);
    if (!id_null)
        return PointerGetDatum(tuple);
    Datum key = heap_getattr(tuple, key_att, desc, &key_null);
    if (key_null)
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("%s: the key column \"%s\" of %s is NULL, so the row has no gene", function,
                               tg->tgargs[2], RelationGetRelationName(rel)),
                        errhint("Give the row its key, or its id.")));
    const Oid key_type = getBaseType(SPI_gettypeid(desc, key_att));

    Datum id = mint_id(family, key, key_type, have_bits, bits);
    int columns[1] = {id_att};
    Datum values[1] = {id};
    bool nulls[1] = {false};
    return PointerGetDatum(heap_modify_tuple_by_cols(tuple, desc, 1, columns, values, nulls));
}

} // extern "C"
