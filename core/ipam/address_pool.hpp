#pragma once
// One IPv4 subnet the simple IPAM hands addresses out of (kpp.md section 4.6). Never handed
// out: the network and broadcast addresses, the gateway and the excluded ranges. State is in
// memory only: after a restart it is rebuilt by reserving every address seen on Nodes and VMs.
#include <cstddef>
#include <optional>
#include <vector>

#include "core/ipam/ipv4.hpp"
#include "core/result.hpp"

namespace kp::ipam {

struct pool_options {
  ipv4_subnet subnet;
  std::optional<ipv4_address> gateway;
  std::vector<address_range> excluded;
};

class address_pool {
 public:
  // Errors ("invalid_pool"): a prefix outside /16 to /30 (a bitmap of at most 64 Ki addresses;
  // /31 and /32 leave nothing to share), a gateway outside the subnet.
  static result<address_pool> create(pool_options options);

  const ipv4_subnet& subnet() const { return options_.subnet; }
  const std::optional<ipv4_address>& gateway() const { return options_.gateway; }
  const std::vector<address_range>& excluded() const { return options_.excluded; }

  // The first free address at or after `start` (wrapping around the subnet), or from the
  // first host when `start` is absent or outside. The Go provider starts at the host bridge's
  // own address, so a VM gets an address near its host's. Exhaustion is "ipam_exhausted".
  result<ipv4_address> allocate(std::optional<ipv4_address> start = std::nullopt);
  // Marks an address as in use (rebuilding after a restart, or a static address seen on a
  // Node). False when it is outside the subnet or never allocatable; reserving twice is fine.
  bool reserve(ipv4_address address);
  // False when the address was not in use.
  bool release(ipv4_address address);

  bool in_use(ipv4_address address) const;
  bool allocatable(ipv4_address address) const;       // in the subnet and not excluded
  std::size_t capacity() const { return capacity_; }  // allocatable addresses
  std::size_t used() const { return used_; }
  std::size_t available() const { return capacity_ - used_; }

 private:
  explicit address_pool(pool_options options);
  std::size_t index_of(ipv4_address a) const { return a.value - options_.subnet.network.value; }

  pool_options options_;
  std::vector<bool> in_use_;  // one bit per address of the subnet
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace kp::ipam
