#include "marks/mark_io.hpp"

extern "C" {
#include "storage/fd.h"
}

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace crid::pg::marks {

ReadResult read_mark_file(const char *name, char *text, size_t size, char *why, size_t why_size) {
    text[0] = '\0';
    int fd = OpenTransientFile(name, O_RDONLY | PG_BINARY);
    if (fd < 0) {
        if (errno == ENOENT)
            return ReadResult::missing;
        std::snprintf(why, why_size, "could not open \"%s\": %s", name, strerror(errno));
        return ReadResult::unreadable;
    }
    size_t len = 0;
    for (;;) {
        ssize_t n = ::read(fd, text + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            std::snprintf(why, why_size, "could not read \"%s\": %s", name, strerror(errno));
            CloseTransientFile(fd);
            return ReadResult::unreadable;
        }
        if (n == 0)
            break;
        len += size_t(n);
        if (len == size - 1) {
            std::snprintf(why, why_size, "\"%s\" is larger than a mark file can be", name);
            CloseTransientFile(fd);
            return ReadResult::unreadable;
        }
    }
    CloseTransientFile(fd);
    text[len] = '\0';
    if (std::strlen(text) != len) {
        std::snprintf(why, why_size, "\"%s\" holds NUL bytes", name);
        return ReadResult::unreadable;
    }
    return ReadResult::read;
}

void write_mark_file(const char *name, const char *temp_name, const char *text) {
    size_t len = std::strlen(text);
    int fd = OpenTransientFile(temp_name, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not create \"%s\": %m", temp_name)));
    errno = 0;
    if (::write(fd, text, len) != ssize_t(len)) {
        if (errno == 0)
            errno = ENOSPC;
        int saved = errno;
        CloseTransientFile(fd);
        errno = saved;
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not write \"%s\": %m", temp_name)));
    }
    if (pg_fsync(fd) != 0) {
        int saved = errno;
        CloseTransientFile(fd);
        errno = saved;
        ereport(data_sync_elevel(ERROR), (errcode_for_file_access(), errmsg("could not fsync \"%s\": %m", temp_name)));
    }
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not close \"%s\": %m", temp_name)));
    durable_rename(temp_name, name, ERROR);
}

void warn_damaged(const char *name, const char *ids, const char *detail) {
    ereport(WARNING,
            (errmsg("crid: \"%s\" is damaged: %s are refused until it is repaired", name, ids), errdetail("%s", detail),
             errhint("As a superuser, run SELECT crid_reset_high_water(at) with a time no earlier than the "
                     "newest id of this server, or restore the file from a backup and restart.")));
}

void raise_damaged(const char *name, const char *ids, const char *newest, const char *detail) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("%s cannot be minted: \"%s\" is damaged", ids, name), errdetail("%s", detail),
                    errhint("As a superuser, repair it with SELECT crid_reset_high_water(at), at a time no earlier "
                            "than the newest %s of this server; or restore the file from a backup and restart the "
                            "server.",
                            newest)));
    pg_unreachable();
}

} // namespace crid::pg::marks
