// Network functions of the Go provider: cidrhost (go-cidr's Host) and cidrslaac (EUI-64).
#include "core/gotemplate/ip_address.hpp"
#include "core/gotemplate/provider_function_groups.hpp"

namespace kp::gotemplate {

namespace {

using args_t = std::span<const value>;

kp::error fail(std::string message) {
  return make_error("function", std::move(message));
}

// cidrhost(cidr string, hostnum ...int): the address itself, or host number n of the prefix
// (negative numbers count back from the last address).
result<value> cidrhost(args_t a) {
  auto cidr = string_arg(a[0]);
  if (!cidr) return cidr.error();
  auto p = parse_cidr(*cidr);
  if (!p) return fail("invalid CIDR address: " + *cidr);
  if (a.size() == 1) return value(format_ip(p->ip));
  auto num = int_arg(a[1]);
  if (!num) return num.error();
  int host_bits = (p->ip.v4 ? 32 : 128) - p->bits;
  std::int64_t n = *num;
  // go-cidr: max = 2^host_bits - 1; -k means max - (k - 1).
  std::uint64_t offset = 0;
  bool fits = true;
  if (host_bits >= 63) {
    offset = n >= 0 ? static_cast<std::uint64_t>(n) : 0;
    if (n < 0) {
      // The distance back from the last address; the top 64 bits become all ones below.
      offset = static_cast<std::uint64_t>(-(n + 1));
    }
  } else {
    std::uint64_t max = (std::uint64_t{1} << host_bits) - 1;
    std::uint64_t mag =
        n >= 0 ? static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(-(n + 1));
    fits = mag <= max;
    offset = n >= 0 ? mag : max - mag;
  }
  if (!fits) {
    return fail("prefix of " + std::to_string(p->bits) + " does not accommodate a host numbered " +
                std::to_string(n));
  }
  ip_address out = p->network;
  if (host_bits >= 63 && n < 0) {
    // Last address minus offset: set every host bit, then subtract.
    for (int b = (p->ip.v4 ? 96 : 0) + p->bits; b < 128; ++b) {
      out.bytes[static_cast<std::size_t>(b / 8)] |= static_cast<std::uint8_t>(0x80 >> (b % 8));
    }
    std::uint64_t borrow = offset;
    for (int i = 15; i >= 0 && borrow; --i) {
      std::uint64_t cur = out.bytes[static_cast<std::size_t>(i)];
      std::uint64_t sub = borrow & 0xFF;
      borrow >>= 8;
      if (cur < sub) {
        cur += 256;
        ++borrow;
      }
      out.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(cur - sub);
    }
    return value(format_ip(out));
  }
  std::uint64_t carry = offset;
  for (int i = 15; i >= 0 && carry; --i) {
    std::uint64_t sum = out.bytes[static_cast<std::size_t>(i)] + (carry & 0xFF);
    carry >>= 8;
    out.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sum & 0xFF);
    carry += sum >> 8;
  }
  return value(format_ip(out));
}

// cidrslaac(mac, cidr string): the prefix's network with bytes from prefix/8 on (at least the
// last 8) taken from the modified EUI-64 of the MAC, and the prefix length kept.
result<value> cidrslaac(args_t a) {
  auto mac_s = string_arg(a[0]);
  if (!mac_s) return mac_s.error();
  auto cidr = string_arg(a[1]);
  if (!cidr) return cidr.error();
  auto p = parse_cidr(*cidr);
  if (!p) return fail("invalid CIDR address: " + *cidr);
  auto mac = parse_mac(*mac_s);
  if (!mac) return fail("address " + *mac_s + ": invalid MAC address");
  if (p->ip.v4) return fail("slaac generator requires an IPv6 prefix");
  if (p->bits > 112) return fail("slaac generator requires a mask of /64 to /112");
  std::array<std::uint8_t, 16> eui = p->network.bytes;
  for (int i = 0; i < 3; ++i)
    eui[static_cast<std::size_t>(8 + i)] =
        static_cast<std::uint8_t>((*mac)[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 3; ++i)
    eui[static_cast<std::size_t>(13 + i)] =
        static_cast<std::uint8_t>((*mac)[static_cast<std::size_t>(3 + i)]);
  eui[11] = 0xFF;
  eui[12] = 0xFE;
  eui[8] ^= 0x02;
  ip_address out = p->network;
  for (int i = 15; i >= p->bits / 8; --i)
    out.bytes[static_cast<std::size_t>(i)] = eui[static_cast<std::size_t>(i)];
  return value(format_ip(out) + "/" + std::to_string(p->bits));
}

}  // namespace

void add_network_functions(function_table& t) {
  using p = go_param;
  t.add("cidrhost", {p::string, p::integer}, true, cidrhost);
  t.add("cidrslaac", {p::string, p::string}, false, cidrslaac);
}

}  // namespace kp::gotemplate
