#include "core/ipam/ipv4.hpp"

#include <charconv>

namespace kp::ipam {

std::string ipv4_address::to_string() const {
  return std::to_string(value >> 24) + "." + std::to_string((value >> 16) & 0xFF) + "." +
         std::to_string((value >> 8) & 0xFF) + "." + std::to_string(value & 0xFF);
}

std::optional<ipv4_address> parse_ipv4(std::string_view text) {
  std::uint32_t out = 0;
  for (int part = 0; part < 4; ++part) {
    auto dot = text.find('.');
    if ((part < 3) == (dot == std::string_view::npos)) return std::nullopt;
    auto octet = text.substr(0, dot);
    // Go's net.ParseIP refuses leading zeros (they read as octal elsewhere).
    if (octet.empty() || octet.size() > 3 || (octet.size() > 1 && octet[0] == '0')) {
      return std::nullopt;
    }
    unsigned v = 0;
    auto [end, ec] = std::from_chars(octet.data(), octet.data() + octet.size(), v);
    if (ec != std::errc() || end != octet.data() + octet.size() || v > 255) return std::nullopt;
    out = (out << 8) | v;
    text = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  }
  return ipv4_address{out};
}

result<ipv4_interface> parse_ipv4_cidr(std::string_view text) {
  auto slash = text.find('/');
  auto bad = [&](std::string_view why) {
    return make_error("invalid_address",
                      "\"" + std::string(text) + "\" is not an IPv4 CIDR: " + std::string(why));
  };
  if (slash == std::string_view::npos) return bad("the /prefix is missing");
  auto address = parse_ipv4(text.substr(0, slash));
  if (!address) return bad("the address is not a dotted quad");
  auto bits_text = text.substr(slash + 1);
  int bits = -1;
  auto [end, ec] = std::from_chars(bits_text.data(), bits_text.data() + bits_text.size(), bits);
  if (bits_text.empty() || ec != std::errc() || end != bits_text.data() + bits_text.size() ||
      bits < 0 || bits > 32) {
    return bad("the prefix length must be 0 to 32");
  }
  ipv4_interface out;
  out.address = *address;
  out.subnet.prefix = bits;
  out.subnet.network = ipv4_address{address->value & out.subnet.mask()};
  return out;
}

result<address_range> parse_address_range(std::string_view text) {
  if (text.find('/') != std::string_view::npos) {
    auto cidr = parse_ipv4_cidr(text);
    if (!cidr) return cidr.error();
    return address_range{cidr->subnet.network, cidr->subnet.broadcast()};
  }
  auto dash = text.find('-');
  auto first = parse_ipv4(text.substr(0, dash));
  auto last = dash == std::string_view::npos ? first : parse_ipv4(text.substr(dash + 1));
  if (!first || !last) {
    return make_error("invalid_address",
                      "\"" + std::string(text) + "\" is not an address, a range a-b or a CIDR");
  }
  if (*last < *first) {
    return make_error("invalid_address",
                      "\"" + std::string(text) + "\": the range ends before it starts");
  }
  return address_range{*first, *last};
}

}  // namespace kp::ipam
