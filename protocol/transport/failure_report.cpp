#include "protocol/transport/failure_report.hpp"

#include <cstdio>

namespace kp::transport {

std::string describe(const std::exception_ptr& failure) {
  if (!failure) return "no exception";
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void report_failure(const failure_reporter& reporter, std::string_view where,
                    const std::exception_ptr& failure) noexcept {
  try {
    const std::string what = describe(failure);
    if (reporter) {
      reporter(where, what);
    } else {
      std::fprintf(stderr, "transport: %.*s threw: %s\n", static_cast<int>(where.size()),
                   where.data(), what.c_str());
    }
  } catch (...) {
    // The reporter itself failed (out of memory): nothing safer is left to do.
  }
}

}  // namespace kp::transport
