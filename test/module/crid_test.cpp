// The test module crid_test: a C entry point the tests bind with CREATE
// FUNCTION ... AS 'crid_test', so they can prove that C++ exceptions of every
// kind become ERRORs and leave the backend alive. It compiles crid's own
// exception boundary (the very code crid.so runs) into a library that is
// only installed for tests, so crid.so ships no test entry point.
#include "../../src/pg/common/boundary.cpp"

#include <stdexcept>
#include <vector>

extern "C" {

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(crid_debug_throw);

// crid_debug_throw(kind text): throws the named kind of C++ exception.
Datum crid_debug_throw(PG_FUNCTION_ARGS) {
    char *kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
    int64_t size = crid::pg::guarded([&]() -> int64_t {
        std::string k(kind);
        if (k == "runtime")
            throw std::runtime_error("a std::runtime_error from the debug hook");
        if (k == "bad_alloc")
            throw std::bad_alloc();
        if (k == "core")
            throw crid::core::Error(crid::core::ErrorKind::invalid_parameter, "a core error from the debug hook",
                                    "raised on purpose");
        if (k == "int")
            throw 42;
        if (k == "vector")
            return int64_t(std::vector<int>(4).at(10)); // throws std::out_of_range
        return int64_t(k.size());
    });
    PG_RETURN_INT64(size);
}

} // extern "C"
