// crid.registry checked at server start as libpq itself reads it, without a
// byte on the network and without a DNS lookup (conninfo_check.cpp says how).
#pragma once

#include "common/postgres_headers.hpp"

namespace crid::pg::registry {

// ERROR naming crid.registry and libpq's reason when libpq refuses the
// options of `conninfo` (a string PQconninfoParse accepted): a value it
// cannot read (port=abc, sslmode=bogus, target_session_attrs=...), a
// service no service file defines, ports that do not match the hosts, a
// hostaddr that is no numeric address. Never shows the string, nor any
// password in it.
void check_conninfo_with_libpq(const char *conninfo);

} // namespace crid::pg::registry
