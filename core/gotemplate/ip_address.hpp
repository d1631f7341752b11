#pragma once
// IP addresses and prefixes as Go's net package parses and prints them (net.ParseIP,
// net.ParseCIDR, IP.String), for the cidrhost and cidrslaac functions.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kp::gotemplate {

struct ip_address {
  std::array<std::uint8_t, 16> bytes{};  // IPv4 in the last 4 bytes
  bool v4 = false;
};

struct ip_prefix {
  ip_address ip;       // the address as written
  ip_address network;  // the address with the host bits cleared
  int bits = 0;        // prefix length
};

std::optional<ip_address> parse_ip(std::string_view s);
std::optional<ip_prefix> parse_cidr(std::string_view s);
// Dotted quad for IPv4, RFC 5952 for IPv6 (longest run of zero groups as "::").
std::string format_ip(const ip_address& ip);
// net.ParseMAC for 6- and 8-byte addresses (aa:bb:.., aa-bb-.., aabb.ccdd.eeff).
std::optional<std::string> parse_mac(std::string_view s);

}  // namespace kp::gotemplate
