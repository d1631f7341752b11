#pragma once
// The Go provider's simple IPAM (kpp.md section 4.6): a template's `ipconfigN` whose ip= is a
// *network* address with a prefix ("ip=192.168.0.0/24,gw=192.168.0.1") asks for an address
// from that subnet; an ip6= prefix ("ip6=fd00:1::/64") asks for the NIC's SLAAC (EUI-64)
// address. Pools appear on first use; every address seen on Nodes, VMs and host bridges is in
// use. No persistence: after a restart call rebuild() with what the cluster shows.
// Not thread-safe: one owner (the region actor) calls it.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ipam/address_pool.hpp"
#include "core/ipam/ipconfig.hpp"

namespace kp::ipam {

// The Proxmox host bridge the NIC is on (GET /nodes/{n}/network): its own address with prefix
// and its gateway, either may be empty.
struct host_bridge {
  std::string cidr;  // "192.168.10.11/24"
  std::string gateway;
};

struct allocation {
  std::string ipconfig;                 // the value to write into the clone's ipconfigN
  std::optional<ipv4_address> address;  // set when allocated from a pool (release it on delete)
  std::string address4;                 // "10.0.0.7/24" for the templates' .Network, or ""
  std::string address6;                 // "fd00:1::be24:11ff:fe00:1/64", or ""
  std::string gateway4;
  std::string gateway6;
};

class simple_ipam {
 public:
  // True when the ipconfig asks for an IPv4 allocation (ip= is a network address, /16 to /30).
  static bool wants_ipv4_allocation(const ipconfig& config);
  // True when ip6= is a prefix with zero host bits (SLAAC from the MAC).
  static bool wants_slaac(const ipconfig& config);

  // Declares a pool before any template asks for it, with ranges never to hand out ("10.0.0.1",
  // "10.0.0.10-10.0.0.20", "10.0.0.64/26"), e.g. addresses a DHCP server or other machines own.
  // Replaces an existing pool's definition, keeping what is in use. Errors: "invalid_address",
  // "invalid_pool".
  status define_pool(std::string_view cidr, std::string_view gateway,
                     const std::vector<std::string>& excluded);

  // An address seen on a Node (InternalIP/ExternalIP), "10.0.0.5" or "10.0.0.5/24", is in use.
  // IPv6 and garbage are ignored (Node addresses come from many sources).
  void observe_address(std::string_view address);
  // A VM's ipconfigN: its static ip= is in use. Errors only for an unparsable value.
  status observe_ipconfig(std::string_view text);
  // Forgets every observation and allocation (pools keep their definition) and observes again.
  void rebuild(const std::vector<std::string>& node_addresses,
               const std::vector<std::string>& vm_ipconfigs,
               const std::vector<host_bridge>& bridges = {});

  // The concrete ipconfig for a new VM's NIC from its template's value. Gateway: the template's
  // gw=, else the bridge's own address when it is in the subnet (the Go provider's default).
  // The search for a free address starts at the bridge's own address, so VMs get addresses near
  // their host's. A template without IPAM keys is returned unchanged. Errors: "invalid_ipconfig",
  // "invalid_pool", "ipam_exhausted" (naming the subnet), "invalid_mac".
  result<allocation> allocate(std::string_view template_ipconfig, const host_bridge& bridge,
                              std::string_view mac);
  // An address ("10.0.0.7", "10.0.0.7/24") or an ipconfig ("ip=10.0.0.7/24,...") of a deleted VM.
  // False when nothing was held.
  bool release(std::string_view address_or_ipconfig);

  const address_pool* pool(const ipv4_subnet& subnet) const;
  std::size_t pool_count() const { return pools_.size(); }

 private:
  result<address_pool*> pool_for(const ipv4_subnet& subnet, std::optional<ipv4_address> gateway);

  std::map<std::pair<std::uint32_t, int>, address_pool> pools_;
  std::set<std::uint32_t> observed_;  // every IPv4 seen, also outside any pool (for later pools)
};

}  // namespace kp::ipam
