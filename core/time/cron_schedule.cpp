#include "core/time/cron_schedule.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

namespace kp::time {

namespace {

using namespace std::chrono;

constexpr std::array<std::string_view, 12> month_names{"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<std::string_view, 7> day_names{"SUN", "MON", "TUE", "WED",
                                                    "THU", "FRI", "SAT"};

struct field_spec {
  std::string_view name;
  int low;
  int high;
  const std::string_view* names;  // names[i] stands for low + i (or nullptr)
  int name_count;
};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = s.find(sep, pos);
    out.push_back(s.substr(pos, end == std::string_view::npos ? s.npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return out;
}

result<int> parse_value(std::string_view text, const field_spec& f) {
  for (int i = 0; i < f.name_count; ++i) {
    std::string upper;
    for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == f.names[i]) return f.low + i;
  }
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return make_error("invalid_cron",
                      "\"" + std::string(text) + "\" is not a valid " + std::string(f.name));
  }
  return value;
}

// Sets the bits of one field; returns whether it was a bare "*" or "?".
result<bool> parse_field(std::string_view text, const field_spec& f, auto& bits) {
  bool star = text == "*" || text == "?";
  for (auto item : split(text, ',')) {
    int step = 1;
    auto slash = item.find('/');
    std::string_view range = item.substr(0, slash);
    if (slash != std::string_view::npos) {
      auto s = parse_value(item.substr(slash + 1), {"step", 1, 1 << 20, nullptr, 0});
      if (!s || *s <= 0)
        return make_error("invalid_cron", "invalid step in \"" + std::string(item) + "\"");
      step = *s;
    }
    int first = f.low, last = f.high;
    if (range != "*" && range != "?") {
      auto dash = range.find('-');
      auto a = parse_value(range.substr(0, dash), f);
      if (!a) return a.error();
      first = last = *a;
      if (dash != std::string_view::npos) {
        auto b = parse_value(range.substr(dash + 1), f);
        if (!b) return b.error();
        last = *b;
      } else if (slash != std::string_view::npos) {
        last = f.high;  // "5/15" means from 5 to the end in steps of 15
      }
    }
    // Day-of-week 7 is Sunday too.
    if (f.high == 6 && last == 7) {
      if (first == 7) first = 0;
      last = 6;
      if (first != 0 || step != 1) bits.set(0);
    }
    if (first < f.low || last > f.high || first > last) {
      return make_error("invalid_cron", "\"" + std::string(item) + "\" is out of range for " +
                                            std::string(f.name) + " (" + std::to_string(f.low) +
                                            "-" + std::to_string(f.high) + ")");
    }
    for (int v = first; v <= last; v += step) bits.set(static_cast<std::size_t>(v));
  }
  return star;
}

}  // namespace

result<cron_schedule> cron_schedule::parse(std::string_view text) {
  std::string_view spec = text;
  while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.front())))
    spec.remove_prefix(1);
  while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.back())))
    spec.remove_suffix(1);
  std::string expanded;
  if (!spec.empty() && spec.front() == '@') {
    if (spec == "@yearly" || spec == "@annually")
      expanded = "0 0 1 1 *";
    else if (spec == "@monthly")
      expanded = "0 0 1 * *";
    else if (spec == "@weekly")
      expanded = "0 0 * * 0";
    else if (spec == "@daily" || spec == "@midnight")
      expanded = "0 0 * * *";
    else if (spec == "@hourly")
      expanded = "0 * * * *";
    else
      return make_error("invalid_cron", "unknown schedule macro \"" + std::string(spec) + "\"");
    spec = expanded;
  }
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < spec.size()) {
    while (i < spec.size() && std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    std::size_t start = i;
    while (i < spec.size() && !std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    if (i > start) fields.push_back(spec.substr(start, i - start));
  }
  if (fields.size() != 5) {
    return make_error("invalid_cron",
                      "schedule \"" + std::string(text) + "\" has " +
                          std::to_string(fields.size()) +
                          " fields; expected 5 (minute hour day-of-month month day-of-week)");
  }
  cron_schedule c;
  c.text_ = std::string(text);
  auto wrap = [&](result<bool> r) -> result<bool> {
    if (!r)
      return make_error("invalid_cron",
                        "schedule \"" + std::string(text) + "\": " + r.error().message);
    return r;
  };
  if (auto r = wrap(parse_field(fields[0], {"minute", 0, 59, nullptr, 0}, c.minutes_)); !r)
    return r.error();
  if (auto r = wrap(parse_field(fields[1], {"hour", 0, 23, nullptr, 0}, c.hours_)); !r)
    return r.error();
  auto dom = wrap(parse_field(fields[2], {"day of month", 1, 31, nullptr, 0}, c.days_of_month_));
  if (!dom) return dom.error();
  if (auto r = wrap(parse_field(fields[3], {"month", 1, 12, month_names.data(), 12}, c.months_));
      !r)
    return r.error();
  auto dow =
      wrap(parse_field(fields[4], {"day of week", 0, 6, day_names.data(), 7}, c.days_of_week_));
  if (!dow) return dow.error();
  c.any_day_of_month_ = *dom;
  c.any_day_of_week_ = *dow;
  return c;
}

std::optional<sys_seconds> cron_schedule::next_after(sys_seconds t) const {
  auto candidate = floor<minutes>(t) + minutes(1);
  const auto give_up = candidate + days(5 * 366);
  while (candidate < give_up) {
    auto day = floor<days>(candidate);
    year_month_day ymd{day};
    if (!months_.test(static_cast<unsigned>(ymd.month()))) {
      // First minute of the next month.
      auto next = ymd.year() / ymd.month() / 1d + months(1);
      candidate = sys_days(next);
      continue;
    }
    bool dom_ok = days_of_month_.test(static_cast<unsigned>(ymd.day()));
    bool dow_ok = days_of_week_.test(weekday(day).c_encoding());
    bool day_ok = (any_day_of_month_ || any_day_of_week_) ? (dom_ok && dow_ok) : (dom_ok || dow_ok);
    if (!day_ok) {
      candidate = day + days(1);
      continue;
    }
    hh_mm_ss<minutes> time_of_day{candidate - day};
    if (!hours_.test(static_cast<std::size_t>(time_of_day.hours().count()))) {
      candidate = floor<hours>(candidate) + hours(1);
      continue;
    }
    if (!minutes_.test(static_cast<std::size_t>(time_of_day.minutes().count()))) {
      candidate += minutes(1);
      continue;
    }
    return time_point_cast<seconds>(candidate);
  }
  return std::nullopt;
}

}  // namespace kp::time
