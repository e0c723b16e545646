// A minimal unit-test harness for src/core: TEST cases register themselves,
// CHECK_* record failures with file:line, and main() prints one summary line.
// Kept tiny on purpose: the core has no dependencies and neither do its tests.
#pragma once

#include "../../src/core/error.hpp"

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace crid::test {

struct Case {
    const char *name;
    std::function<void()> body;
};

std::vector<Case> &registry();
// Failures recorded by the case that is running.
int &current_failures();

struct Register {
    Register(const char *name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

inline void fail(const char *file, int line, const std::string &what) {
    ++current_failures();
    std::cerr << "    " << file << ":" << line << ": " << what << "\n";
}

template <class A, class B>
std::string show_pair(const A &a, const B &b) {
    std::ostringstream s;
    s << a << " != " << b;
    return s.str();
}

// The message of the crid::core::Error an expression throws ("" for none).
template <class F>
std::string message_of(F f) {
    try {
        f();
    } catch (const crid::core::Error &e) {
        return e.what();
    }
    return "";
}

// True when `needle` occurs in `haystack`: for checking error messages.
inline bool contains(const std::string &haystack, const std::string &needle) {
    return haystack.find(needle) != std::string::npos;
}

} // namespace crid::test

#define CRID_CAT2(a, b) a##b
#define CRID_CAT(a, b) CRID_CAT2(a, b)
#define TEST(name)                                                                                                     \
    static void CRID_CAT(test_, name)();                                                                               \
    static crid::test::Register CRID_CAT(register_, name)(#name, CRID_CAT(test_, name));                               \
    static void CRID_CAT(test_, name)()

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            crid::test::fail(__FILE__, __LINE__, "CHECK(" #cond ") failed");                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                                                                 \
    do {                                                                                                               \
        auto &&va_ = (a);                                                                                              \
        auto &&vb_ = (b);                                                                                              \
        if (!(va_ == vb_))                                                                                             \
            crid::test::fail(__FILE__, __LINE__, "CHECK_EQ(" #a ", " #b "): " + crid::test::show_pair(va_, vb_));      \
    } while (0)

// The expression must throw crid::core::Error of the given kind.
#define CHECK_THROWS(expr, error_kind)                                                                                 \
    do {                                                                                                               \
        bool thrown_ = false;                                                                                          \
        try {                                                                                                          \
            (void)(expr);                                                                                              \
        } catch (const crid::core::Error &e_) {                                                                        \
            thrown_ = e_.kind() == crid::core::ErrorKind::error_kind;                                                  \
            if (!thrown_)                                                                                              \
                crid::test::fail(__FILE__, __LINE__, "wrong error kind from " #expr ": " + std::string(e_.what()));    \
            else                                                                                                       \
                break;                                                                                                 \
        }                                                                                                              \
        if (!thrown_)                                                                                                  \
            crid::test::fail(__FILE__, __LINE__, #expr " did not throw " #error_kind);                                 \
    } while (0)
