#include "protocol/proxmox/upid.hpp"

#include <cctype>
#include <vector>

namespace kp::proxmox {

namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool parse_hex(std::string_view digits, std::size_t min_len, std::size_t max_len,
               std::uint64_t& out) {
  if (digits.size() < min_len || digits.size() > max_len) return false;
  out = 0;
  for (char c : digits) {
    int v = 0;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      return false;
    }
    out = out * 16 + static_cast<std::uint64_t>(v);
  }
  return true;
}

// Node names are DNS labels: alphanumerics and inner dashes.
bool valid_node(std::string_view node) {
  if (node.empty() || !is_alnum(node.front()) || !is_alnum(node.back())) return false;
  for (char c : node) {
    if (!is_alnum(c) && c != '-') return false;
  }
  return true;
}

// Type, id and user may not contain ':', whitespace or '/'.
bool valid_field(std::string_view field, bool may_be_empty) {
  if (field.empty()) return may_be_empty;
  for (char c : field) {
    if (c == ':' || c == '/' || std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

result<upid> parse_upid(std::string_view text) {
  auto fail = [&](const char* why) {
    return make_error("invalid_upid", "'" + std::string(text.substr(0, 200)) + "': " + why);
  };
  if (text.substr(0, 5) != "UPID:") return fail("does not start with UPID:");
  if (text.empty() || text.back() != ':') return fail("does not end with ':'");
  std::vector<std::string_view> fields;
  std::string_view rest = text.substr(5, text.size() - 6);
  while (true) {
    auto colon = rest.find(':');
    fields.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (fields.size() != 7) return fail("expected 7 fields");
  upid u;
  std::uint64_t n = 0;
  if (!valid_node(fields[0])) return fail("bad node name");
  u.node = fields[0];
  if (!parse_hex(fields[1], 8, 8, n)) return fail("pid is not 8 hex digits");
  u.pid = static_cast<std::uint32_t>(n);
  if (!parse_hex(fields[2], 8, 9, n)) return fail("pstart is not 8 or 9 hex digits");
  u.pstart = n;
  if (!parse_hex(fields[3], 8, 8, n)) return fail("starttime is not 8 hex digits");
  u.starttime = static_cast<std::uint32_t>(n);
  if (!valid_field(fields[4], false)) return fail("bad task type");
  u.type = fields[4];
  if (!valid_field(fields[5], true)) return fail("bad task id");
  u.id = fields[5];
  if (!valid_field(fields[6], false)) return fail("bad user");
  u.user = fields[6];
  u.text = text;
  return u;
}

}  // namespace kp::proxmox
