#include "core/cloudinit/vm_render.hpp"

#include <string_view>

#include "core/model/labels.hpp"

namespace kp::cloudinit {
namespace {

// "ip=10.0.0.7/24,gw=10.0.0.1" -> {ip, gw}. The region wrote it after parsing it, so a plain
// split is enough here.
std::map<std::string, std::string> ipconfig_keys(std::string_view text) {
  std::map<std::string, std::string> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto eq = item.find('=');
    if (eq != std::string_view::npos) out[std::string(item.substr(0, eq))] = item.substr(eq + 1);
  }
  return out;
}

}  // namespace

std::vector<network_interface_data> network_of(const std::vector<vm_nic>& nics) {
  std::vector<network_interface_data> out;
  for (const auto& nic : nics) {
    network_interface_data d;
    d.name = "eth" + std::to_string(nic.index);
    d.mac = nic.mac;
    d.node_address4 = nic.bridge_cidr;
    d.node_gateway4 = nic.bridge_gateway;
    auto config = ipconfig_keys(nic.ipconfig);
    if (auto ip = config.find("ip"); ip != config.end() && ip->second != "dhcp") {
      d.dhcp4 = false;
      d.address4.push_back(ip->second);
    }
    d.gateway4 = config["gw"];
    if (auto ip6 = config.find("ip6"); ip6 != config.end()) {
      if (ip6->second == "dhcp") {
        d.dhcp6 = true;
      } else if (ip6->second == "auto") {
        d.slaac = true;
      } else {
        d.address6.push_back(ip6->second);
      }
    }
    d.gateway6 = config["gw6"];
    out.push_back(std::move(d));
  }
  return out;
}

result<std::string> render_nocloud_iso(const nocloud_plan& plan, const vm_placement& where) {
  auto in = plan.inputs;
  if (!where.nics.empty()) in.interfaces = network_of(where.nics);
  in.instance_id = std::to_string(where.vmid);
  in.provider_id = where.provider_id;
  in.region = where.region;
  in.zone = where.zone;
  in.kubelet.provider_id = where.provider_id;
  in.node_labels[std::string(model::labels::zone)] = where.zone;
  in.node_labels[std::string(model::labels::region)] = where.region;
  auto files = render_cloud_init(plan.sources, in);
  if (!files) return files.error();
  return write_nocloud_iso(*files);
}

}  // namespace kp::cloudinit
