// The one exception type the core throws. It carries a kind that the
// PostgreSQL boundary maps to a SQLSTATE, so a bad input raised deep in the
// core still reaches the user as 22003 / 22023 / ... and not as XX000.
#pragma once
#include "pure_cpp.hpp"

#include <stdexcept>
#include <string>

namespace crid::core {

enum class ErrorKind {
    invalid_parameter,     // 22023
    numeric_out_of_range,  // 22003
    datetime_out_of_range, // 22008
    invalid_text,          // 22P02
    null_value,            // 22004
    prerequisite_state,    // 55000
    internal,              // XX000
};

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string &message, const std::string &hint = {})
        : std::runtime_error(message), kind_(kind), hint_(hint) {}
    ErrorKind kind() const noexcept { return kind_; }
    const std::string &hint() const noexcept { return hint_; }

  private:
    ErrorKind kind_;
    std::string hint_;
};

} // namespace crid::core
