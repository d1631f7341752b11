#include "sim/kube/time_fields.hpp"

#include <array>
#include <charconv>
#include <ctime>

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

// Field names holding a metav1.Time in the built-in kinds kube-sim serves.
constexpr std::array<std::string_view, 19> time_names = {"creationTimestamp",
                                                         "deletionTimestamp",
                                                         "lastTransitionTime",
                                                         "lastHeartbeatTime",
                                                         "lastProbeTime",
                                                         "lastUpdateTime",
                                                         "startTime",
                                                         "completionTime",
                                                         "lastScheduleTime",
                                                         "lastSuccessfulTime",
                                                         "firstTimestamp",
                                                         "lastTimestamp",
                                                         "startedAt",
                                                         "finishedAt",
                                                         "expirationTimestamp",
                                                         "deprecatedFirstTimestamp",
                                                         "deprecatedLastTimestamp",
                                                         "time",
                                                         "terminationTimestamp"};
// And a metav1.MicroTime.
constexpr std::array<std::string_view, 4> micro_names = {"acquireTime", "renewTime", "eventTime",
                                                         "lastObservedTime"};

bool in(std::string_view name, const auto& names) {
  for (auto n : names)
    if (n == name) return true;
  return false;
}

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  auto [end, ec] = std::from_chars(s.data() + at, s.data() + at + n, out);
  return ec == std::errc{} && end == s.data() + at + n;
}

struct refusal {
  std::string detail;
};

}  // namespace

std::optional<sys_time> parse_kube_time(std::string_view s, bool micro) {
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  std::size_t i = 19;
  std::int64_t micros = 0;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    std::size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    std::size_t n = i - start;
    if (n == 0 || (micro && n != 6)) return std::nullopt;
    for (std::size_t k = 0; k < 6; ++k) micros = micros * 10 + (k < n ? s[start + k] - '0' : 0);
  } else if (micro) {
    return std::nullopt;
  }
  std::int64_t offset_minutes = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !digits(s, i + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_minutes = (s[i] == '+' ? 1 : -1) * (oh * 60 + om);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  std::time_t tt = timegm(&tm);
  return std::chrono::system_clock::from_time_t(tt) + std::chrono::microseconds(micros) -
         std::chrono::minutes(offset_minutes);
}

namespace {

std::optional<refusal> normalize(json::value& v, bool micro) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_string())
    return refusal{"json: cannot unmarshal " +
                   std::string(v.is_object()  ? "object"
                               : v.is_array() ? "array"
                               : v.is_bool()  ? "bool"
                                              : "number") +
                   " into Go value of type string"};
  std::string text(v.get_string());
  auto t = parse_kube_time(text, micro);
  if (!t) {
    const char* layout = micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
    return refusal{"parsing time \"" + text + "\" as \"" + layout + "\": cannot parse \"" + text +
                   "\" as \"" + layout + "\""};
  }
  v = micro ? format_micro_time(*t) : format_time(*t);
  return std::nullopt;
}

// Maps whose keys are the user's, never field names.
constexpr std::array<std::string_view, 12> free_maps = {
    "labels",      "annotations", "data",        "stringData", "binaryData", "nodeSelector",
    "matchLabels", "capacity",    "allocatable", "limits",     "requests",   "parameters"};

std::optional<refusal> walk(json::value& v, bool in_managed_fields) {
  if (auto* o = v.if_object()) {
    for (auto& kv : *o) {
      std::string_view key = kv.key();
      if (in(key, free_maps)) continue;
      bool is_micro = in(key, micro_names);
      // "time" is a Time only in managedFields entries.
      bool is_time = in(key, time_names) && (key != "time" || in_managed_fields);
      if ((is_time || is_micro) && !kv.value().is_object() && !kv.value().is_array()) {
        if (auto r = normalize(kv.value(), is_micro)) return r;
        continue;
      }
      if (auto r = walk(kv.value(), in_managed_fields || key == "managedFields")) return r;
    }
  } else if (auto* a = v.if_array()) {
    for (auto& item : *a)
      if (auto r = walk(item, in_managed_fields)) return r;
  }
  return std::nullopt;
}

}  // namespace

api_status normalize_time_fields(json::object& object, const std::string& kind,
                                 const std::string& version) {
  json::value v(std::move(object));
  auto r = walk(v, false);
  object = std::move(v.get_object());
  if (r)
    return bad_request(kind + " in version \"" + version + "\" cannot be handled as a " + kind +
                       ": " + r->detail);
  return api_ok{};
}

}  // namespace kp::sim::kube
