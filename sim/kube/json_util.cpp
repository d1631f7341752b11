#include "sim/kube/json_util.hpp"

#include "sim/kube/time_fields.hpp"

#include <openssl/rand.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace kp::sim::kube {
namespace json = boost::json;

const json::value* find_path(const json::object& root,
                             std::initializer_list<std::string_view> path) {
  const json::object* cur = &root;
  const json::value* v = nullptr;
  for (auto key : path) {
    if (!cur) return nullptr;
    v = cur->if_contains(key);
    if (!v) return nullptr;
    cur = v->if_object();
  }
  return v;
}

std::string_view string_at(const json::object& root, std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  if (!v || !v->is_string()) return {};
  const auto& s = v->get_string();
  return {s.data(), s.size()};
}

const json::object* object_at(const json::object& root,
                              std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  return v ? v->if_object() : nullptr;
}

const json::array* array_at(const json::object& root,
                            std::initializer_list<std::string_view> path) {
  const auto* v = find_path(root, path);
  return v ? v->if_array() : nullptr;
}

json::object& ensure_object(json::object& parent, std::string_view key) {
  auto& v = parent[key];
  if (!v.is_object()) v = json::object{};
  return v.get_object();
}

json::array& ensure_array(json::object& parent, std::string_view key) {
  auto& v = parent[key];
  if (!v.is_array()) v = json::array{};
  return v.get_array();
}

std::string_view meta_name(const json::object& o) {
  return string_at(o, {"metadata", "name"});
}
std::string_view meta_namespace(const json::object& o) {
  return string_at(o, {"metadata", "namespace"});
}
std::string_view meta_uid(const json::object& o) {
  return string_at(o, {"metadata", "uid"});
}
bool has_deletion_timestamp(const json::object& o) {
  const auto* v = find_path(o, {"metadata", "deletionTimestamp"});
  return v && !v->is_null();
}

std::string format_time(sys_time t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string format_micro_time(sys_time t) {
  auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  if (secs > t) secs -= std::chrono::seconds(1);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
  std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[48];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[96];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(micros));
  return out;
}

std::optional<sys_time> parse_time(std::string_view text) {
  return parse_kube_time(text, false);
}

std::string make_uid() {
  unsigned char b[16];
  RAND_bytes(b, sizeof b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  char out[40];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

std::string url_decode(std::string_view text) {
  auto hex = [](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out += ' ';
      continue;
    }
    if (c == '%' && i + 2 < text.size()) {
      int a = hex(text[i + 1]);
      int b = hex(text[i + 2]);
      if (a >= 0 && b >= 0) {
        out += static_cast<char>(a * 16 + b);
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

std::multimap<std::string, std::string> parse_query(std::string_view query) {
  std::multimap<std::string, std::string> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.empty()) continue;
    auto eq = part.find('=');
    if (eq == std::string_view::npos)
      out.emplace(url_decode(part), "");
    else
      out.emplace(url_decode(part.substr(0, eq)), url_decode(part.substr(eq + 1)));
  }
  return out;
}

std::optional<std::int64_t> as_int(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return static_cast<std::int64_t>(v.get_uint64());
  if (v.is_double()) {
    double d = v.get_double();
    if (std::floor(d) == d && std::fabs(d) < 9e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace kp::sim::kube

namespace kp::sim::kube {

std::optional<std::int64_t> parse_int64(std::string_view text) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_uint64(std::string_view text) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace kp::sim::kube
