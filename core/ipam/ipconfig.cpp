#include "core/ipam/ipconfig.hpp"

#include "core/gotemplate/ip_address.hpp"
#include "core/ipam/ipv4.hpp"

namespace kp::ipam {
namespace {

kp::error invalid(std::string_view text, const std::string& why) {
  return make_error("invalid_ipconfig", "ipconfig \"" + std::string(text) + "\": " + why);
}

bool is_ipv6_cidr(std::string_view s) {
  auto p = gotemplate::parse_cidr(s);
  return p && !p->ip.v4;
}

bool is_ipv6(std::string_view s) {
  auto p = gotemplate::parse_ip(s);
  return p && !p->v4;
}

}  // namespace

result<ipconfig> parse_ipconfig(std::string_view text) {
  ipconfig out;
  std::string_view rest = text;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string_view::npos)
      return invalid(text, "\"" + std::string(item) + "\" has no =");
    auto key = item.substr(0, eq);
    std::string value(item.substr(eq + 1));
    std::optional<std::string>* slot = nullptr;
    if (key == "ip") slot = &out.ip;
    if (key == "gw") slot = &out.gw;
    if (key == "ip6") slot = &out.ip6;
    if (key == "gw6") slot = &out.gw6;
    if (slot == nullptr) {
      return invalid(text, "unknown key \"" + std::string(key) + "\" (ip, gw, ip6, gw6)");
    }
    if (*slot) return invalid(text, std::string(key) + " given twice");
    if (key == "ip" && value != "dhcp" && !parse_ipv4_cidr(value)) {
      return invalid(text, "ip \"" + value + "\" is neither dhcp nor an IPv4 CIDR");
    }
    if (key == "gw" && !parse_ipv4(value)) {
      return invalid(text, "gw \"" + value + "\" is not an IPv4 address");
    }
    if (key == "ip6" && value != "dhcp" && value != "auto" && !is_ipv6_cidr(value)) {
      return invalid(text, "ip6 \"" + value + "\" is neither dhcp, auto nor an IPv6 CIDR");
    }
    if (key == "gw6" && !is_ipv6(value)) {
      return invalid(text, "gw6 \"" + value + "\" is not an IPv6 address");
    }
    *slot = std::move(value);
  }
  return out;
}

std::string render_ipconfig(const ipconfig& config) {
  std::string out;
  auto add = [&](const char* key, const std::optional<std::string>& v) {
    if (!v) return;
    if (!out.empty()) out += ',';
    out += key;
    out += '=';
    out += *v;
  };
  add("ip", config.ip);
  add("gw", config.gw);
  add("ip6", config.ip6);
  add("gw6", config.gw6);
  return out;
}

}  // namespace kp::ipam
