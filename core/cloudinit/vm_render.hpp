#pragma once
// What a new VM's cloud-init is rendered from, as plain values: the NodeClaim side fills a
// nocloud_plan (CD-ROM join) or a join_plan (guest-agent join) from its objects, and the region
// renders it once it knows where the VM landed (vm_placement: host, VMID, NICs). Rendering again
// for the same placement gives the same text, so a resumed launch re-renders instead of keeping
// anything. Pure.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/cloudinit/render_cloud_init.hpp"
#include "core/cloudinit/template_data.hpp"
#include "core/result.hpp"

namespace kp::cloudinit {

// One NIC of a new VM as the region configures it: netN, the MAC it chose, the ipconfigN written
// (the simple IPAM's, else the template's, "" when none) and the host bridge's own address and
// gateway ("" when unknown).
struct vm_nic {
  std::uint32_t index = 0;
  std::string mac;
  std::string bridge;
  std::string ipconfig;
  std::string bridge_cidr;
  std::string bridge_gateway;
  friend bool operator==(const vm_nic&, const vm_nic&) = default;
};

// Where the VM landed: what only the region knows.
struct vm_placement {
  std::string region;
  std::string zone;  // the Proxmox host
  std::uint32_t vmid = 0;
  std::string provider_id;  // proxmox://<region>/<vmid>
  std::vector<vm_nic> nics;
};

// The NoCloud ISO of a VM (metadataOptions type cdrom). `inputs` holds everything but what the
// placement gives: .Metadata's instance id, providerID, region and zone, .Network's interfaces,
// the kubelet's providerID and the zone and region node labels.
struct nocloud_plan {
  template_sources sources;  // empty documents: the built-in defaults
  cloud_init_inputs inputs;
};

// The cloud-init network data of the VM's NICs: eth<N> per netN with its MAC, static addresses
// and gateways from its ipconfig (ip=, gw=, ip6=, gw6=), DHCP otherwise, and the host bridge's
// address.
std::vector<network_interface_data> network_of(const std::vector<vm_nic>& nics);

// The ISO bytes for the VM at `where`. Errors: "template_error" naming the template source.
result<std::string> render_nocloud_iso(const nocloud_plan& plan, const vm_placement& where);

}  // namespace kp::cloudinit
