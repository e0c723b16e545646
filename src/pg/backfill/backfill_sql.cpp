// The checks of crid_backfill() that need the parser: the procedure itself is
// PL/pgSQL (sql/crid--0.1.0--0.2.0.sql), since it commits between batches.
// Plain PostgreSQL C: no C++ object lives in these frames, so ereport may
// leave them.
#include "common/postgres_headers.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/parse_coerce.h"
#include "parser/parser.h"
#include "utils/lsyscache.h"
}

namespace {

// Parse errors point into the text "SELECT (\n<expression>\n)", not into the
// user's CALL: report them as an internal query, as PL/pgSQL does.
void expression_error_context(void *arg) {
    int position = geterrposition();
    if (position > 0) {
        errposition(0);
        internalerrposition(position);
        internalerrquery(static_cast<const char *>(arg));
    }
    errcontext("crid_backfill expression");
}

// True when `raw` is exactly `SELECT (<one expression>)`: one statement, one
// unnamed target, no FROM, WHERE or any other clause. The expression is then
// safe to paste between parentheses into the batch UPDATE: it cannot close
// them and add clauses or statements.
bool single_expression(List *raw) {
    if (list_length(raw) != 1)
        return false;
    Node *stmt = linitial_node(RawStmt, raw)->stmt;
    if (!IsA(stmt, SelectStmt))
        return false;
    SelectStmt *s = castNode(SelectStmt, stmt);
    if (s->op != SETOP_NONE || list_length(s->targetList) != 1 || s->fromClause || s->whereClause || s->groupClause ||
        s->havingClause || s->windowClause || s->valuesLists || s->sortClause || s->limitOffset || s->limitCount ||
        s->lockingClause || s->withClause || s->distinctClause || s->intoClause)
        return false;
    return linitial_node(ResTarget, s->targetList)->name == nullptr;
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(crid_backfill_check_expression);

// crid_backfill_check_expression(rel regclass, column_name name, expression
// text): ERROR unless the expression is one expression over rel's columns
// whose value the column accepts (as UPDATE's SET would convert it), and the
// call runs outside a transaction block. Changes nothing.
Datum crid_backfill_check_expression(PG_FUNCTION_ARGS) {
    Oid relid = PG_GETARG_OID(0);
    char *column = NameStr(*PG_GETARG_NAME(1));
    char *expression = text_to_cstring(PG_GETARG_TEXT_PP(2));
    // Called by crid_backfill after its own checks, but any role may call it:
    // a relation or column that is not there is an ERROR of its kind here too.
    if (!get_rel_name(relid))
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("crid_backfill: relation with OID %u does not exist", relid)));
    AttrNumber attnum = get_attnum(relid, column);
    if (attnum <= 0)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_COLUMN),
                 errmsg("crid_backfill: column \"%s\" of relation %s does not exist", column, get_rel_name(relid))));
    StringInfoData sql;
    initStringInfo(&sql);
    appendStringInfo(&sql, "SELECT (\n%s\n)", expression);
    ErrorContextCallback context{error_context_stack, expression_error_context, sql.data};
    error_context_stack = &context;
    List *raw = raw_parser(sql.data, RAW_PARSE_DEFAULT);
    if (!single_expression(raw))
        ereport(ERROR,
                (errcode(ERRCODE_SYNTAX_ERROR), errmsg("crid_backfill: \"%s\" is not one expression", expression),
                 errhint("Give what would follow SET column = in an UPDATE, such as "
                         "uuid_generate_v7_deterministic(created_at, id).")));

    // Analyse it as SELECT (<expression>) FROM rel: names resolve as in the
    // batch UPDATE, and the value's type is known.
    RawStmt *stmt = linitial_node(RawStmt, raw);
    castNode(SelectStmt, stmt->stmt)->fromClause =
        list_make1(makeRangeVar(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid), -1));
    Query *query = parse_analyze_fixedparams(stmt, sql.data, nullptr, 0, nullptr);
    if (query->hasAggs || query->hasWindowFuncs || query->hasTargetSRFs)
        ereport(ERROR,
                (errcode(ERRCODE_GROUPING_ERROR),
                 errmsg("crid_backfill: \"%s\" uses an aggregate, window or set-returning function", expression),
                 errhint("The expression is evaluated once per row, as in UPDATE ... SET column = expression.")));
    error_context_stack = context.previous;

    Node *value = reinterpret_cast<Node *>(linitial_node(TargetEntry, query->targetList)->expr);
    Oid coltype, colcollation;
    int32 coltypmod;
    get_atttypetypmodcoll(relid, attnum, &coltype, &coltypmod, &colcollation);
    if (!coerce_to_target_type(nullptr, value, exprType(value), coltype, coltypmod, COERCION_ASSIGNMENT,
                               COERCE_IMPLICIT_CAST, -1))
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("crid_backfill: expression \"%s\" is of type %s, but column %s of %s is of type %s",
                               expression, format_type_be(exprType(value)), quote_identifier(column),
                               get_rel_name(relid), format_type_with_typemod(coltype, coltypmod)),
                        errhint("Cast the expression to %s, or choose another column.", format_type_be(coltype))));
    // Last, so the checks above answer also where the call could not run.
    if (IsTransactionBlock())
        ereport(ERROR, (errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
                        errmsg("crid_backfill commits after every batch, so it cannot run inside a transaction block"),
                        errhint("CALL it on its own, outside BEGIN ... COMMIT.")));
    PG_RETURN_VOID();
}

} // extern "C"
