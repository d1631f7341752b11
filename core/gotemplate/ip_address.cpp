#include "core/gotemplate/ip_address.hpp"

#include <cstdio>
#include <vector>

namespace kp::gotemplate {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go refuses leading zeros in IPv4 parts since 1.17.
bool parse_v4(std::string_view s, std::uint8_t* out) {
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (s.empty() || s[0] != '.') return false;
      s.remove_prefix(1);
    }
    std::size_t n = 0;
    int v = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9' && n < 4) v = v * 10 + (s[n++] - '0');
    if (n == 0 || n > 3 || v > 255 || (n > 1 && s[0] == '0')) return false;
    out[part] = static_cast<std::uint8_t>(v);
    s.remove_prefix(n);
  }
  return s.empty();
}

bool parse_v6(std::string_view s, std::array<std::uint8_t, 16>& out) {
  std::vector<std::uint16_t> head, tail;
  bool ellipsis = false;
  std::vector<std::uint16_t>* cur = &head;
  std::uint8_t v4[4];
  bool has_v4 = false;
  if (s.starts_with("::")) {
    ellipsis = true;
    cur = &tail;
    s.remove_prefix(2);
  }
  while (!s.empty()) {
    // An embedded IPv4 address ends the text.
    auto colon = s.find(':');
    std::string_view part = s.substr(0, colon);
    if (part.find('.') != std::string_view::npos && colon == std::string_view::npos) {
      if (!parse_v4(part, v4)) return false;
      has_v4 = true;
      s = {};
      break;
    }
    if (part.empty() || part.size() > 4) return false;
    std::uint16_t v = 0;
    for (char c : part) {
      int h = hex_value(c);
      if (h < 0) return false;
      v = static_cast<std::uint16_t>(v * 16 + h);
    }
    cur->push_back(v);
    if (colon == std::string_view::npos) {
      s = {};
      break;
    }
    s.remove_prefix(colon + 1);
    if (s.starts_with(":")) {
      if (ellipsis) return false;
      ellipsis = true;
      cur = &tail;
      s.remove_prefix(1);
    } else if (s.empty()) {
      return false;
    }
  }
  std::size_t groups = head.size() + tail.size() + (has_v4 ? 2 : 0);
  if (ellipsis ? groups > 7 : groups != 8) return false;
  std::vector<std::uint16_t> all = head;
  all.resize(8 - tail.size() - (has_v4 ? 2 : 0), 0);
  all.insert(all.end(), tail.begin(), tail.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    out[2 * i] = static_cast<std::uint8_t>(all[i] >> 8);
    out[2 * i + 1] = static_cast<std::uint8_t>(all[i] & 0xFF);
  }
  if (has_v4) {
    for (int i = 0; i < 4; ++i) out[12 + i] = v4[i];
  }
  return true;
}

bool is_v4_mapped(const std::array<std::uint8_t, 16>& b) {
  for (int i = 0; i < 10; ++i) {
    if (b[i] != 0) return false;
  }
  return b[10] == 0xFF && b[11] == 0xFF;
}

}  // namespace

std::optional<ip_address> parse_ip(std::string_view s) {
  ip_address ip;
  if (s.find(':') == std::string_view::npos) {
    if (!parse_v4(s, ip.bytes.data() + 12)) return std::nullopt;
    ip.bytes[10] = ip.bytes[11] = 0xFF;
    ip.v4 = true;
    return ip;
  }
  if (!parse_v6(s, ip.bytes)) return std::nullopt;
  ip.v4 = false;
  return ip;
}

std::optional<ip_prefix> parse_cidr(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto ip = parse_ip(s.substr(0, slash));
  if (!ip) return std::nullopt;
  std::string_view len = s.substr(slash + 1);
  if (len.empty() || len.size() > 3 || (len.size() > 1 && len[0] == '0')) return std::nullopt;
  int bits = 0;
  for (char c : len) {
    if (c < '0' || c > '9') return std::nullopt;
    bits = bits * 10 + (c - '0');
  }
  int max = ip->v4 ? 32 : 128;
  if (bits > max) return std::nullopt;
  ip_prefix p;
  p.ip = *ip;
  p.bits = bits;
  p.network = *ip;
  int offset = ip->v4 ? 96 : 0;  // IPv4 bits live in the last 32 of the 128
  for (int b = offset + bits; b < 128; ++b) {
    p.network.bytes[static_cast<std::size_t>(b / 8)] &=
        static_cast<std::uint8_t>(~(0x80 >> (b % 8)));
  }
  return p;
}

std::string format_ip(const ip_address& ip) {
  const auto& b = ip.bytes;
  if (ip.v4 || is_v4_mapped(b)) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
    return buf;
  }
  std::uint16_t g[8];
  for (int i = 0; i < 8; ++i) g[i] = static_cast<std::uint16_t>((b[2 * i] << 8) | b[2 * i + 1]);
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out.push_back(':');
    char buf[8];
    std::snprintf(buf, sizeof buf, "%x", g[i]);
    out += buf;
  }
  return out;
}

std::optional<std::string> parse_mac(std::string_view s) {
  std::string out;
  if (s.size() >= 14 && s[4] == '.') {
    // aabb.ccdd.eeff
    for (std::size_t i = 0; i < s.size(); i += 5) {
      if (i + 4 > s.size() || (i + 4 < s.size() && s[i + 4] != '.')) return std::nullopt;
      for (std::size_t k = 0; k < 4; k += 2) {
        int h = hex_value(s[i + k]), l = hex_value(s[i + k + 1]);
        if (h < 0 || l < 0) return std::nullopt;
        out.push_back(static_cast<char>(h * 16 + l));
      }
    }
  } else {
    if (s.size() < 17) return std::nullopt;
    char sep = s[2];
    if (sep != ':' && sep != '-') return std::nullopt;
    for (std::size_t i = 0; i < s.size(); i += 3) {
      if (i + 2 > s.size() || (i + 2 < s.size() && s[i + 2] != sep)) return std::nullopt;
      int h = hex_value(s[i]), l = hex_value(s[i + 1]);
      if (h < 0 || l < 0) return std::nullopt;
      out.push_back(static_cast<char>(h * 16 + l));
    }
  }
  if (out.size() != 6 && out.size() != 8) return std::nullopt;
  return out;
}

}  // namespace kp::gotemplate
