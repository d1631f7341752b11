#include "sim/pve/request_params.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace kp::sim::pve {

void request_params::add(std::string key, std::string value) {
  items_.emplace_back(std::move(key), std::move(value));
}

void request_params::set(const std::string& key, std::string value) {
  erase(key);
  add(key, std::move(value));
}

void request_params::erase(std::string_view key) {
  std::erase_if(items_, [&](const auto& kv) { return kv.first == key; });
}

bool request_params::has(std::string_view key) const {
  return std::any_of(items_.begin(), items_.end(), [&](const auto& kv) { return kv.first == key; });
}

std::optional<std::string> request_params::get(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  return std::nullopt;
}

std::string request_params::get_or(std::string_view key, std::string fallback) const {
  auto v = get(key);
  return v ? *v : std::move(fallback);
}

std::vector<std::string> request_params::all(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_)
    if (k == key) out.push_back(v);
  return out;
}

std::optional<bool> request_params::get_bool(std::string_view key) const {
  auto v = get(key);
  if (!v) return std::nullopt;
  std::string s = *v;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "1" || s == "on" || s == "yes" || s == "true") return true;
  if (s == "0" || s == "off" || s == "no" || s == "false") return false;
  return std::nullopt;
}

std::string url_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = hex(text[i + 1]), lo = hex(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::string url_encode(std::string_view text) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 15]);
    }
  }
  return out;
}

void parse_form(std::string_view text, request_params& out) {
  while (!text.empty()) {
    auto amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view{} : text.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    std::string key = url_decode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? "" : url_decode(pair.substr(eq + 1), true);
    out.add(std::move(key), std::move(value));
  }
}

namespace {
std::string json_scalar(const boost::json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_bool()) return v.as_bool() ? "1" : "0";
  if (v.is_int64()) return std::to_string(v.as_int64());
  if (v.is_uint64()) return std::to_string(v.as_uint64());
  if (v.is_double()) {
    double d = v.as_double();
    if (d == static_cast<double>(static_cast<long long>(d)))
      return std::to_string(static_cast<long long>(d));
    return boost::json::serialize(v);
  }
  if (v.is_null()) return "";
  return boost::json::serialize(v);
}
}  // namespace

status parse_json_object(std::string_view text, request_params& out) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
  boost::system::error_code ec;
  auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return make_error("invalid_json", "request body is not a JSON object");
  for (const auto& [k, val] : v.as_object()) {
    if (val.is_array()) {
      for (const auto& e : val.as_array()) out.add(std::string(k), json_scalar(e));
    } else if (!val.is_null()) {
      out.add(std::string(k), json_scalar(val));
    }
  }
  return {};
}

result<std::vector<multipart_part>> parse_multipart(std::string_view content_type,
                                                    std::string_view body) {
  auto pos = content_type.find("boundary=");
  if (pos == std::string_view::npos)
    return make_error("invalid_multipart", "multipart request without boundary");
  std::string boundary(content_type.substr(pos + 9));
  if (auto semi = boundary.find(';'); semi != std::string::npos) boundary.resize(semi);
  if (boundary.size() >= 2 && boundary.front() == '"')
    boundary = boundary.substr(1, boundary.size() - 2);
  const std::string delimiter = "--" + boundary;
  std::vector<multipart_part> parts;
  std::size_t at = body.find(delimiter);
  if (at == std::string_view::npos) return make_error("invalid_multipart", "boundary not found");
  while (true) {
    at += delimiter.size();
    if (body.substr(at, 2) == "--") break;  // closing delimiter
    if (body.substr(at, 2) == "\r\n") at += 2;
    auto header_end = body.find("\r\n\r\n", at);
    if (header_end == std::string_view::npos)
      return make_error("invalid_multipart", "part without headers");
    std::string_view headers = body.substr(at, header_end - at);
    std::size_t content_start = header_end + 4;
    auto next = body.find("\r\n" + delimiter, content_start);
    if (next == std::string_view::npos) return make_error("invalid_multipart", "unterminated part");
    multipart_part part;
    part.body = std::string(body.substr(content_start, next - content_start));
    auto field = [&](std::string_view key) -> std::string {
      std::string needle = std::string(key) + "=\"";
      auto p = headers.find(needle);
      if (p == std::string_view::npos) return "";
      // "name=" must not match inside "filename=".
      if (key == "name") {
        while (p != std::string_view::npos && p > 0 && headers[p - 1] != ' ' &&
               headers[p - 1] != ';')
          p = headers.find(needle, p + 1);
        if (p == std::string_view::npos) return "";
      }
      p += needle.size();
      auto e = headers.find('"', p);
      return std::string(headers.substr(p, e - p));
    };
    part.name = field("name");
    part.filename = field("filename");
    parts.push_back(std::move(part));
    at = next + 2;
  }
  return parts;
}

}  // namespace kp::sim::pve
