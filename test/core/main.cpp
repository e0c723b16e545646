// Runs every registered core test case (or those whose name contains one of
// the arguments) and ends with "N passed, M failed".
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
    int passed = 0, failed = 0;
    for (auto &c : crid::test::registry()) {
        bool chosen = argc == 1;
        for (int i = 1; i < argc; ++i)
            chosen = chosen || std::strstr(c.name, argv[i]) != nullptr;
        if (!chosen)
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
