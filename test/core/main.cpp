// Runs every registered core test case and ends with "N passed, M failed".
#include "check.hpp"

#include <cstring>
#include <exception>

namespace crid::test {

std::vector<Case> &registry() {
    static std::vector<Case> cases;
    return cases;
}

int &current_failures() {
    static int failures = 0;
    return failures;
}

} // namespace crid::test

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : nullptr;
    int passed = 0, failed = 0;
    for (auto &c : crid::test::registry()) {
        if (only && !std::strstr(c.name, only))
            continue;
        crid::test::current_failures() = 0;
        try {
            c.body();
        } catch (const std::exception &e) {
            crid::test::fail(__FILE__, __LINE__, std::string("unexpected exception: ") + e.what());
        }
        bool ok = crid::test::current_failures() == 0;
        std::cout << (ok ? "ok      " : "FAILED  ") << c.name << "\n";
        (ok ? passed : failed)++;
    }
    std::cout << "core: " << passed << " passed, " << failed << " failed\n";
    return failed == 0 ? 0 : 1;
}
