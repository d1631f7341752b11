#include "core/ipam/address_pool.hpp"

namespace kp::ipam {

result<address_pool> address_pool::create(pool_options options) {
  const auto& s = options.subnet;
  if (s.prefix < 16 || s.prefix > 30) {
    return make_error("invalid_pool",
                      "subnet " + s.to_string() + ": the simple IPAM takes prefixes /16 to /30");
  }
  if (options.gateway && !s.contains(*options.gateway)) {
    return make_error("invalid_pool", "subnet " + s.to_string() + ": gateway " +
                                          options.gateway->to_string() + " is outside it");
  }
  return address_pool(std::move(options));
}

address_pool::address_pool(pool_options options)
    : options_(std::move(options)), in_use_(options_.subnet.size(), false) {
  for (std::uint64_t i = 0; i < options_.subnet.size(); ++i) {
    if (allocatable(ipv4_address{options_.subnet.network.value + static_cast<std::uint32_t>(i)}))
      ++capacity_;
  }
}

bool address_pool::allocatable(ipv4_address a) const {
  const auto& s = options_.subnet;
  if (!s.contains(a) || a == s.network || a == s.broadcast()) return false;
  if (options_.gateway && a == *options_.gateway) return false;
  for (const auto& r : options_.excluded) {
    if (r.contains(a)) return false;
  }
  return true;
}

bool address_pool::in_use(ipv4_address a) const {
  return options_.subnet.contains(a) && in_use_[index_of(a)];
}

result<ipv4_address> address_pool::allocate(std::optional<ipv4_address> start) {
  const auto& s = options_.subnet;
  const std::uint32_t size = static_cast<std::uint32_t>(s.size());
  std::uint32_t first =
      start && s.contains(*start) ? static_cast<std::uint32_t>(index_of(*start)) : 1;
  for (std::uint32_t step = 0; step < size; ++step) {
    std::uint32_t i = (first + step) % size;
    ipv4_address a{s.network.value + i};
    if (!in_use_[i] && allocatable(a)) {
      in_use_[i] = true;
      ++used_;
      return a;
    }
  }
  return make_error("ipam_exhausted",
                    "subnet " + s.to_string() + ": no free address (" + std::to_string(capacity_) +
                        " allocatable, all in use; network, broadcast, gateway and " +
                        std::to_string(options_.excluded.size()) + " excluded ranges left out)");
}

bool address_pool::reserve(ipv4_address a) {
  if (!allocatable(a)) return false;
  if (!in_use_[index_of(a)]) {
    in_use_[index_of(a)] = true;
    ++used_;
  }
  return true;
}

bool address_pool::release(ipv4_address a) {
  if (!in_use(a)) return false;
  in_use_[index_of(a)] = false;
  --used_;
  return true;
}

}  // namespace kp::ipam
