// libpq has no call that checks connection options without connecting:
// PQconninfoParse catches what is no connection string and unknown keywords,
// but the values (port=abc, sslmode=bogus, a service no service file
// defines, three ports for two hosts) are read only on the way to a
// connection, in PQconnectStartParams. So crid sends libpq that way with
// hosts it cannot reach, and reads its verdict from where it stopped.
//
// The hosts it cannot reach: hostaddr set to one token per host that is no
// numeric address ("crid.check.0.invalid", ...). hostaddr decides where
// libpq connects (host then serves only TLS and ~/.pgpass, never DNS), and
// libpq reads it with getaddrinfo(AI_NUMERICHOST), which fails on the spot
// without a lookup; libpq logs "could not parse network address" with the
// token and goes on to the next host. No socket is ever made. Before it gets
// to a host's address, libpq has looked the service up, checked every
// option's value (pqConnectOptions2: sslmode, gssencmode,
// target_session_attrs, load_balance_hosts, require_auth, the TLS versions,
// ports against hosts, hosts against hostaddrs) and read that host's port
// (an integer; 1 to 65535, or the host is skipped). So libpq accepted the
// options exactly when every token is in its error message; when one is
// missing, libpq stopped or skipped a host for a reason of its own, and its
// message without the tokens' lines is that reason. A token is in libpq's
// message only where libpq quotes the address it could not parse: no earlier
// message names a hostaddr. (Read against libpq's fe-connect.c of
// PostgreSQL 15 to 18: the checks above, and the address parse, sit in the
// same order in each.)
//
// How many hosts: after a service file and PGHOST/PGHOSTADDR fill in what
// the string leaves out (a service may hold host=a,b port=5432,5433). Only
// libpq knows that, so it is asked first with sslmode and port set to
// values it refuses: pqConnectOptions2 refuses the sslmode before any
// connection is tried (and the port, parsed before any address, would stop
// it if it did not), and PQconninfo() of that connection shows the options
// as filled in. The token list then has as many entries as libpq's hostaddr
// list (so it still matches the hosts, or not, as the real one does) or,
// without one, as its host list.
//
// Replaced, the hostaddrs themselves are checked here as libpq would, with
// getaddrinfo(AI_NUMERICHOST). Not checked: keepalives and tcp_user_timeout
// (libpq reads them only on a TCP socket, so a bad one shows in the
// worker's connection errors), and what only the registry server decides
// (user, password, database).
//
// libpq's calls raise no PostgreSQL error and its strings live in malloc
// memory; they are copied into fixed buffers and the connections finished
// before any ereport.
#include "registry/conninfo_check.hpp"

#include "libpq-fe.h"

extern "C" {
#include "lib/stringinfo.h"
}

#include <netdb.h>
#include <sys/socket.h>

#include <cstdio>

namespace crid::pg::registry {

namespace {

// A value libpq refuses for sslmode and for port alike.
constexpr const char refused_value[] = "crid-refuses-to-connect";
constexpr const char token_prefix[] = "crid.check.";

// The worker hands crid.registry to libpq as dbname with expand_dbname = 1
// (registry_remote.cpp); so does every call here. (It adds only
// fallback_application_name and client_encoding, which only the server
// checks.)
PGconn *start(const char *conninfo, const char *keyword, const char *value, const char *keyword2 = nullptr,
              const char *value2 = nullptr) {
    const char *keywords[] = {"dbname", keyword, keyword2, nullptr};
    const char *values[] = {conninfo, value, value2, nullptr};
    return PQconnectStartParams(keywords, values, 1);
}

// Elements of a libpq list (host, hostaddr, port): libpq splits at every
// comma, with no escape; an empty text is no list.
int list_length(const char *text) {
    if (!text || !text[0])
        return 0;
    int n = 1;
    for (const char *c = text; *c; ++c)
        n += *c == ',';
    return n;
}

const char *value_of(const PQconninfoOption *options, const char *keyword) {
    for (const PQconninfoOption *o = options; o && o->keyword; ++o)
        if (std::strcmp(o->keyword, keyword) == 0)
            return o->val;
    return nullptr;
}

// What libpq would connect with, after the service file and the
// environment: the number of host slots, and the hostaddr list.
struct Filled {
    int hosts = 1;
    char hostaddr[1024] = "";
    bool hostaddr_too_long = false;
};

Filled filled_options(const char *conninfo) {
    Filled filled;
    PGconn *conn = start(conninfo, "sslmode", refused_value, "port", refused_value);
    PQconninfoOption *options = conn ? PQconninfo(conn) : nullptr;
    const char *hostaddr = value_of(options, "hostaddr");
    int addresses = list_length(hostaddr), hosts = list_length(value_of(options, "host"));
    filled.hosts = addresses ? addresses : hosts ? hosts : 1;
    if (hostaddr) {
        int n = std::snprintf(filled.hostaddr, sizeof filled.hostaddr, "%s", hostaddr);
        filled.hostaddr_too_long = n >= int(sizeof filled.hostaddr);
    }
    if (options)
        PQconninfoFree(options);
    PQfinish(conn);
    return filled;
}

void token(int host, char (&out)[48]) { std::snprintf(out, sizeof out, "%s%d.invalid", token_prefix, host); }

// libpq's message without the lines of the unreachable tokens, on one line.
void reason_from(const char *message, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (const char *line = message; line && *line && used < size;) {
        const char *end = std::strchr(line, '\n');
        size_t length = end ? size_t(end - line) : std::strlen(line);
        bool ours = false;
        for (const char *p = line; p + sizeof token_prefix - 1 <= line + length && !ours; ++p)
            ours = std::strncmp(p, token_prefix, sizeof token_prefix - 1) == 0;
        if (length > 0 && !ours) {
            int n = std::snprintf(out + used, size - used, "%s%.*s", used ? "; " : "", int(length), line);
            used += n > 0 ? size_t(n) : 0;
        }
        line = end ? end + 1 : nullptr;
    }
}

// Overwrites every occurrence of `secret` in `text` with asterisks.
void mask(char *text, const char *secret) {
    size_t length = std::strlen(secret);
    if (length == 0)
        return;
    for (char *at = std::strstr(text, secret); at; at = std::strstr(at + length, secret))
        std::memset(at, '*', length);
}

// libpq never quotes a password in these messages; should one ever, the
// values the string holds for options libpq itself hides (password,
// sslpassword: dispchar '*') are masked anyway.
void mask_secrets(const char *conninfo, char *text) {
    PQconninfoOption *options = PQconninfoParse(conninfo, nullptr);
    for (PQconninfoOption *o = options; o && o->keyword; ++o)
        if (o->dispchar && o->dispchar[0] == '*' && o->val)
            mask(text, o->val);
    if (options)
        PQconninfoFree(options);
}

// libpq's verdict: true when it went through every host; else its reason.
bool libpq_accepts(const char *conninfo, int hosts, char *reason, size_t size) {
    StringInfoData addresses;
    initStringInfo(&addresses);
    for (int i = 0; i < hosts; ++i) {
        char t[48];
        token(i, t);
        appendStringInfo(&addresses, "%s%s", i ? "," : "", t);
    }
    // palloc is done: from here to PQfinish nothing can raise.
    PGconn *conn = start(conninfo, "hostaddr", addresses.data);
    bool accepted = true;
    // No connection object (libpq out of memory), or one still connecting
    // (it cannot be, with no address to connect to): no verdict to read.
    if (conn && PQstatus(conn) == CONNECTION_BAD) {
        const char *message = PQerrorMessage(conn);
        for (int i = 0; i < hosts && accepted; ++i) {
            char t[48];
            token(i, t);
            accepted = std::strstr(message, t) != nullptr;
        }
        if (!accepted)
            reason_from(message, reason, size);
    }
    PQfinish(conn);
    pfree(addresses.data);
    if (!accepted && !reason[0])
        std::snprintf(reason, size, "libpq did not try every host it names");
    return accepted;
}

// Each hostaddr as libpq reads it (getaddrinfo with AI_NUMERICHOST, which
// never looks a name up); false with the reason at the first it refuses.
bool addresses_numeric(const Filled &filled, char *reason, size_t size) {
    if (filled.hostaddr_too_long)
        return true; // not read whole: the worker's libpq still checks it
    const char *element = filled.hostaddr;
    while (element) {
        const char *comma = std::strchr(element, ',');
        char address[256];
        std::snprintf(address, sizeof address, "%.*s", int(comma ? comma - element : std::strlen(element)), element);
        if (address[0]) {
            struct addrinfo hint = {};
            hint.ai_flags = AI_NUMERICHOST;
            hint.ai_socktype = SOCK_STREAM;
            hint.ai_family = AF_UNSPEC;
            struct addrinfo *found = nullptr;
            int rc = getaddrinfo(address, nullptr, &hint, &found);
            if (found)
                freeaddrinfo(found);
            if (rc != 0) {
                std::snprintf(reason, size, "could not parse network address \"%s\": %s", address, gai_strerror(rc));
                return false;
            }
        }
        element = comma ? comma + 1 : nullptr;
    }
    return true;
}

} // namespace

void check_conninfo_with_libpq(const char *conninfo) {
    char reason[1024] = "";
    const Filled filled = filled_options(conninfo);
    if (libpq_accepts(conninfo, filled.hosts, reason, sizeof reason) &&
        addresses_numeric(filled, reason, sizeof reason))
        return;
    mask_secrets(conninfo, reason);
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid value for parameter \"crid.registry\": libpq refuses its connection options"),
                    errdetail("libpq: %s", reason),
                    errhint("The connection string is not shown: it may hold a password. Checked without "
                            "connecting; libpq reads the same options when the worker connects.")));
}

} // namespace crid::pg::registry
