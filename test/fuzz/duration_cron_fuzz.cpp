// Go durations and cron schedules from any text: parsing never crashes, a parsed duration
// prints in Go's form and parses back to the same length, and a parsed schedule answers
// next_after without looping forever.
#include <chrono>

#include "core/time/cron_schedule.hpp"
#include "core/time/go_duration.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = kp::fuzz::text_of(data, size);
  if (auto d = kp::time::parse_go_duration(text)) {
    const auto printed = kp::time::format_go_duration(*d);
    auto again = kp::time::parse_go_duration(printed);
    kp::fuzz::check(again.ok() && *again == *d, "duration round trip", printed);
  }
  if (auto cron = kp::time::cron_schedule::parse(text)) {
    // 2026-01-01T00:00:00Z, then a leap day.
    for (std::int64_t at : {1767225600, 1709164800}) {
      auto t = std::chrono::sys_seconds(std::chrono::seconds(at));
      if (auto next = cron->next_after(t)) kp::fuzz::check(*next > t, "cron next is later");
    }
  }
  return 0;
}
