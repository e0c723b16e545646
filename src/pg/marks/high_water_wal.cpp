#include "marks/high_water_wal.hpp"

#include "marks/high_water.hpp"

extern "C" {
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
}

#include <cstring>

namespace crid::pg::marks {

namespace {

// The record's one kind (the low four bits of info belong to PostgreSQL).
constexpr uint8 xlog_mark = 0x10;

// The record: the mark, then the layout text with its NUL.
struct MarkRecord {
    int64 unix_ms;
    char layout[FLEXIBLE_ARRAY_MEMBER];
};

void redo(XLogReaderState *record) {
    uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    if (info != xlog_mark)
        elog(PANIC, "crid redo: unknown record info %u", info);
    const MarkRecord *mark = reinterpret_cast<const MarkRecord *>(XLogRecGetData(record));
    // Only plain data crosses here: a record too short is a corrupt WAL.
    if (XLogRecGetDataLen(record) <= offsetof(MarkRecord, layout) ||
        XLogRecGetData(record)[XLogRecGetDataLen(record) - 1] != '\0')
        elog(PANIC, "crid redo: malformed high-water record");
    apply_replayed(mark->unix_ms, mark->layout);
}

void describe(StringInfo buf, XLogReaderState *record) {
    const MarkRecord *mark = reinterpret_cast<const MarkRecord *>(XLogRecGetData(record));
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == xlog_mark)
        appendStringInfo(buf, "high-water mark %lld ms, layout %s", static_cast<long long>(mark->unix_ms),
                         mark->layout);
}

const char *identify(uint8 info) { return (info & ~XLR_INFO_MASK) == xlog_mark ? "HIGH_WATER" : nullptr; }

RmgrData rmgr = {
    .rm_name = "crid",
    .rm_redo = redo,
    .rm_desc = describe,
    .rm_identify = identify,
    .rm_startup = nullptr,
    .rm_cleanup = nullptr,
    .rm_mask = nullptr,
    .rm_decode = nullptr,
};

} // namespace

void register_rmgr() { RegisterCustomRmgr(crid_rmgr_id, &rmgr); }

void log_mark(int64_t unix_ms, const char *layout) {
    MarkRecord head;
    head.unix_ms = unix_ms;
    XLogBeginInsert();
    XLogRegisterData(reinterpret_cast<char *>(&head), offsetof(MarkRecord, layout));
    XLogRegisterData(const_cast<char *>(layout), int(std::strlen(layout) + 1));
    XLogRecPtr end = XLogInsert(crid_rmgr_id, xlog_mark);
    XLogFlush(end);
}

} // namespace crid::pg::marks
