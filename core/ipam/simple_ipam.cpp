#include "core/ipam/simple_ipam.hpp"

#include <array>
#include <limits>

#include "core/gotemplate/function_table.hpp"
#include "core/gotemplate/ip_address.hpp"

namespace kp::ipam {
namespace {

std::optional<ipv4_address> address_of(std::string_view text) {
  if (text.find('/') != std::string_view::npos) {
    auto cidr = parse_ipv4_cidr(text);
    if (!cidr) return std::nullopt;
    return cidr->address;
  }
  return parse_ipv4(text);
}

// The template function cidrslaac, so an address allocated here and one a template computes
// with {{ cidrslaac .MacAddr "fd00::/64" }} are the same.
result<std::string> slaac(std::string_view mac, const std::string& prefix) {
  const auto* fn = gotemplate::provider_functions().find("cidrslaac");
  std::array<gotemplate::value, 2> args{gotemplate::value(std::string(mac)),
                                        gotemplate::value(prefix)};
  auto out = fn->impl(args, std::numeric_limits<std::size_t>::max());  // an address: short
  if (!out) return make_error("invalid_mac", "ip6 " + prefix + ": " + out.error().message);
  return out->as_string();
}

}  // namespace

bool simple_ipam::wants_ipv4_allocation(const ipconfig& config) {
  if (!config.ip || *config.ip == "dhcp") return false;
  auto cidr = parse_ipv4_cidr(*config.ip);
  return cidr && cidr->is_network() && cidr->subnet.prefix <= 30;
}

bool simple_ipam::wants_slaac(const ipconfig& config) {
  if (!config.ip6 || *config.ip6 == "dhcp" || *config.ip6 == "auto") return false;
  auto p = gotemplate::parse_cidr(*config.ip6);
  return p && !p->ip.v4 && p->ip.bytes == p->network.bytes;
}

status simple_ipam::define_pool(std::string_view cidr, std::string_view gateway,
                                const std::vector<std::string>& excluded) {
  auto subnet = parse_ipv4_cidr(cidr);
  if (!subnet) return subnet.error();
  pool_options options{subnet->subnet, std::nullopt, {}};
  if (!gateway.empty()) {
    options.gateway = parse_ipv4(gateway);
    if (!options.gateway) {
      return make_error("invalid_address",
                        "gateway \"" + std::string(gateway) + "\" is not an IPv4 address");
    }
  }
  for (const auto& r : excluded) {
    auto range = parse_address_range(r);
    if (!range) return range.error();
    options.excluded.push_back(*range);
  }
  auto pool = address_pool::create(std::move(options));
  if (!pool) return pool.error();
  auto key = std::make_pair(subnet->subnet.network.value, subnet->subnet.prefix);
  if (auto old = pools_.find(key); old != pools_.end()) {
    for (std::uint64_t i = 0; i < subnet->subnet.size(); ++i) {
      ipv4_address a{subnet->subnet.network.value + static_cast<std::uint32_t>(i)};
      if (old->second.in_use(a)) pool->reserve(a);
    }
    old->second = std::move(*pool);
  } else {
    auto it = pools_.emplace(key, std::move(*pool)).first;
    for (auto a : observed_) it->second.reserve(ipv4_address{a});
  }
  return {};
}

void simple_ipam::observe_address(std::string_view address) {
  auto a = address_of(address);
  if (!a) return;
  observed_.insert(a->value);
  for (auto& [key, pool] : pools_) pool.reserve(*a);
}

status simple_ipam::observe_ipconfig(std::string_view text) {
  auto config = parse_ipconfig(text);
  if (!config) return config.error();
  if (config->ip && *config->ip != "dhcp" && !wants_ipv4_allocation(*config)) {
    observe_address(*config->ip);
  }
  return {};
}

void simple_ipam::rebuild(const std::vector<std::string>& node_addresses,
                          const std::vector<std::string>& vm_ipconfigs,
                          const std::vector<host_bridge>& bridges) {
  observed_.clear();
  for (auto& [key, pool] : pools_) {
    auto fresh = address_pool::create({pool.subnet(), pool.gateway(), pool.excluded()});
    // The definition was valid when first created, so it is valid again.
    if (fresh) pool = std::move(*fresh);
  }
  for (const auto& a : node_addresses) observe_address(a);
  for (const auto& c : vm_ipconfigs) (void)observe_ipconfig(c);
  for (const auto& b : bridges) observe_address(b.cidr);
}

result<address_pool*> simple_ipam::pool_for(const ipv4_subnet& subnet,
                                            std::optional<ipv4_address> gateway) {
  auto key = std::make_pair(subnet.network.value, subnet.prefix);
  auto it = pools_.find(key);
  if (it == pools_.end()) {
    auto created = address_pool::create({subnet, gateway, {}});
    if (!created) return created.error();
    it = pools_.emplace(key, std::move(*created)).first;
    for (auto a : observed_) it->second.reserve(ipv4_address{a});
  } else if (gateway && !it->second.in_use(*gateway)) {
    // Another template names a gateway for the same subnet: never hand it out.
    it->second.reserve(*gateway);
  }
  return &it->second;
}

result<allocation> simple_ipam::allocate(std::string_view template_ipconfig,
                                         const host_bridge& bridge, std::string_view mac) {
  auto config = parse_ipconfig(template_ipconfig);
  if (!config) return config.error();
  allocation out;
  ipconfig concrete = *config;
  if (wants_ipv4_allocation(*config)) {
    auto request = parse_ipv4_cidr(*config->ip);
    std::optional<ipv4_address> bridge_address;
    if (auto b = parse_ipv4_cidr(bridge.cidr); b && request->subnet.contains(b->address)) {
      bridge_address = b->address;
    }
    std::optional<ipv4_address> gateway;
    if (config->gw) gateway = parse_ipv4(*config->gw);
    auto pool = pool_for(request->subnet, gateway);
    if (!pool) return pool.error();
    if (bridge_address) {
      observed_.insert(bridge_address->value);
      (*pool)->reserve(*bridge_address);
    }
    auto address = (*pool)->allocate(bridge_address);
    if (!address) return address.error();
    out.address = *address;
    out.address4 = address->to_string() + "/" + std::to_string(request->subnet.prefix);
    concrete.ip = out.address4;
    if (!gateway && bridge_address) gateway = bridge_address;
    concrete.gw = gateway ? std::optional<std::string>(gateway->to_string()) : std::nullopt;
  } else if (config->ip && *config->ip != "dhcp") {
    out.address4 = *config->ip;
  }
  if (wants_slaac(*config)) {
    auto address6 = slaac(mac, *config->ip6);
    if (!address6) {
      if (out.address) (void)release(out.address->to_string());
      return address6.error();
    }
    out.address6 = *address6;
    concrete.ip6 = *address6;
  } else if (config->ip6 && *config->ip6 != "dhcp" && *config->ip6 != "auto") {
    out.address6 = *config->ip6;
  }
  out.gateway4 = concrete.gw.value_or("");
  out.gateway6 = concrete.gw6.value_or("");
  out.ipconfig = render_ipconfig(concrete);
  return out;
}

bool simple_ipam::release(std::string_view address_or_ipconfig) {
  std::optional<ipv4_address> a;
  if (address_or_ipconfig.find('=') != std::string_view::npos) {
    auto config = parse_ipconfig(address_or_ipconfig);
    if (!config || !config->ip) return false;
    a = address_of(*config->ip);
  } else {
    a = address_of(address_or_ipconfig);
  }
  if (!a) return false;
  observed_.erase(a->value);
  bool released = false;
  for (auto& [key, pool] : pools_) released = pool.release(*a) || released;
  return released;
}

const address_pool* simple_ipam::pool(const ipv4_subnet& subnet) const {
  auto it = pools_.find(std::make_pair(subnet.network.value, subnet.prefix));
  return it == pools_.end() ? nullptr : &it->second;
}

}  // namespace kp::ipam
