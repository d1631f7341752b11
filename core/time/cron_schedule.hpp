#pragma once
// Standard five-field cron schedules ("minute hour day-of-month month day-of-week") and the
// macros @yearly/@annually, @monthly, @weekly, @daily/@midnight, @hourly, evaluated in UTC, as
// Karpenter's disruption budgets use them.
#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::time {

class cron_schedule {
 public:
  // Fields accept *, ?, lists (1,5), ranges (1-5), steps (*/15, 1-30/5) and month/day names
  // (JAN..DEC, SUN..SAT). Day-of-week is 0-6 with 0 = Sunday (7 also means Sunday).
  static result<cron_schedule> parse(std::string_view text);

  // The first matching minute strictly after `t` (seconds are dropped), or nothing within
  // five years (a schedule such as "0 0 30 2 *" never fires).
  std::optional<std::chrono::sys_seconds> next_after(std::chrono::sys_seconds t) const;

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  std::bitset<13> months_;         // 1..12
  std::bitset<7> days_of_week_;    // 0..6
  bool any_day_of_month_ = false;  // "*" or "?": combine with day-of-week by AND, else by OR
  bool any_day_of_week_ = false;
};

}  // namespace kp::time
