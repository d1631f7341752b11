#pragma once
// IPv4 addresses and subnets for the simple IPAM: strict dotted quads ("10.0.0.5", no leading
// zeros, no shorthand), CIDR prefixes and inclusive address ranges.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::ipam {

struct ipv4_address {
  std::uint32_t value = 0;
  friend auto operator<=>(const ipv4_address&, const ipv4_address&) = default;
  std::string to_string() const;
};

std::optional<ipv4_address> parse_ipv4(std::string_view text);

struct ipv4_subnet {
  ipv4_address network;  // host bits cleared
  int prefix = 32;

  std::uint32_t mask() const { return prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix); }
  ipv4_address broadcast() const { return {network.value | ~mask()}; }
  bool contains(ipv4_address a) const { return (a.value & mask()) == network.value; }
  std::uint64_t size() const { return std::uint64_t{1} << (32 - prefix); }
  std::string to_string() const { return network.to_string() + "/" + std::to_string(prefix); }
  friend bool operator==(const ipv4_subnet&, const ipv4_subnet&) = default;
};

// An address with its prefix as written: "10.0.0.5/24" gives address 10.0.0.5 in 10.0.0.0/24.
struct ipv4_interface {
  ipv4_address address;
  ipv4_subnet subnet;
  // True when the address is the subnet's network address (host bits zero): the Go provider's
  // signal that the address is to be allocated from that subnet.
  bool is_network() const { return address == subnet.network; }
};

// "a.b.c.d/n" with 0 <= n <= 32; errors are "invalid_address" naming the text.
result<ipv4_interface> parse_ipv4_cidr(std::string_view text);

struct address_range {
  ipv4_address first;
  ipv4_address last;  // inclusive
  bool contains(ipv4_address a) const { return first <= a && a <= last; }
};

// "10.0.0.1", "10.0.0.10-10.0.0.20" or a CIDR "10.0.0.64/26".
result<address_range> parse_address_range(std::string_view text);

}  // namespace kp::ipam
