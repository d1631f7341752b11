// Where a new VM goes and what it gets before it exists: host (placement over the hosts that
// hold the template), VMID (the region's one allocator, never one a NodeClaim names), CPU
// pinning, NICs with MACs of ours and the simple IPAM's address, so cloud-init can name them.
// The host bridges are read for that only when a launch needs them (needs_host_bridges).
#include <algorithm>
#include <cstdio>
#include <optional>

#include "actors/region/pci_passthrough.hpp"
#include "actors/region/region_state.hpp"
#include "core/ipam/ipconfig.hpp"
#include "core/placement/place_vm.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

// "BC:24:11" (Proxmox's prefix) and three random bytes, locally chosen like Proxmox does.
std::string random_mac(std::mt19937_64& rng) {
  auto v = rng();
  char buf[18];
  std::snprintf(buf, sizeof buf, "BC:24:11:%02X:%02X:%02X", static_cast<unsigned>(v & 0xff),
                static_cast<unsigned>((v >> 8) & 0xff), static_cast<unsigned>((v >> 16) & 0xff));
  return buf;
}

// The NICs of `base` (the template, or the clone before its config call) with a MAC of ours
// each, their ipconfigN and the host bridge they sit on.
std::vector<cloudinit::vm_nic> plan_nics(region_state& st, const launch_op& op,
                                         const proxmox::vm_config& base) {
  std::vector<cloudinit::vm_nic> out;
  auto h = st.hosts.find(op.host);
  for (const auto& [index, net] : base.nets) {
    cloudinit::vm_nic n;
    n.index = index;
    n.mac = random_mac(st.random);
    n.bridge = net.bridge;
    if (auto ip = base.ipconfigs.find(index); ip != base.ipconfigs.end()) n.ipconfig = ip->second;
    if (h != st.hosts.end() && h->second.network) {
      for (const auto& b : *h->second.network) {
        if (b.iface != net.bridge) continue;
        n.bridge_cidr = b.cidr;
        n.bridge_gateway = b.gateway;
      }
    }
    out.push_back(std::move(n));
  }
  return out;
}

// The base's ipconfig0 when it asks the simple IPAM for an address (ip= a network address, or
// ip6= a prefix); nothing otherwise, or when it does not parse (not ours to judge: Proxmox keeps
// the template's value).
std::optional<std::string> address_request(const proxmox::vm_config& base) {
  auto text = base.ipconfigs.find(0);
  if (text == base.ipconfigs.end()) return std::nullopt;
  auto parsed = ipam::parse_ipconfig(text->second);
  if (!parsed || (!ipam::simple_ipam::wants_ipv4_allocation(*parsed) &&
                  !ipam::simple_ipam::wants_slaac(*parsed))) {
    return std::nullopt;
  }
  return text->second;
}

// Whether planning the launch's NICs needs the host bridges: the simple IPAM takes its subnet
// from them and counts every host's bridge address as taken, and cloud-init's NodeAddress4 and
// NodeGateway4 carry the bridge's address, which only the node class's own templates can show
// (the built-in ones do not).
bool needs_host_bridges(const launch_op& op) {
  if (op.req.cloud_init && !op.req.cloud_init->sources.documents.empty()) return true;
  return op.base_config && address_request(*op.base_config);
}

// The simple IPAM (kpp.md 4.6): when the base's ipconfig0 asks for an address, the VM's
// ipconfig0 is chosen here and written in the config call. The search starts at the host
// bridge's address. An empty code: nothing to do or done.
region_error assign_address(region_state& st, launch_op& op, const proxmox::vm_config& base) {
  auto text = address_request(base);
  if (!text) return {};
  ipam::host_bridge bridge;
  auto net = base.nets.find(0);
  auto h = st.hosts.find(op.host);
  if (net != base.nets.end() && h != st.hosts.end() && h->second.network) {
    for (const auto& n : *h->second.network) {
      if (n.iface == net->second.bridge) bridge = {n.cidr, n.gateway};
    }
  }
  // SLAAC derives the address from net0's MAC, chosen by us before the clone.
  std::string mac;
  for (const auto& n : op.nics) {
    if (n.index == 0) mac = n.mac;
  }
  auto a = st.ipam.allocate(*text, bridge, mac);
  if (!a) {
    return {
        a.error().code == "ipam_exhausted" ? "no_capacity" : "invalid_request",
        "template '" + op.req.template_name + "' ipconfig0 " + *text + ": " + a.error().message};
  }
  op.ipconfig0 = a->ipconfig;
  if (a->address) op.ip_address = a->address->to_string();
  for (auto& n : op.nics) {
    if (n.index == 0) n.ipconfig = op.ipconfig0;
  }
  return {};
}

region_error plan_network_now(region_state& st, launch_op& op) {
  op.nics.clear();
  if (!op.base_config) return {};
  op.nics = plan_nics(st, op, *op.base_config);
  return assign_address(st, op, *op.base_config);
}

}  // namespace

std::vector<std::string> normalised_tags(const std::vector<std::string>& wanted) {
  std::vector<std::string> out{"karpenter"};
  for (const auto& t : wanted) {
    if (proxmox::parse_tags(t)) out.push_back(t);  // invalid tags are dropped, not fatal
  }
  auto parsed = proxmox::parse_tags(proxmox::format_tags(out));
  return parsed ? *parsed : std::vector<std::string>{"karpenter"};
}

void plan_network(self_ptr self, const std::shared_ptr<launch_op>& op, std::function<void()> next) {
  auto plan = [self, op, next = std::move(next)] {
    if (auto e = plan_network_now(self->state, *op); !e.code.empty()) {
      return fail_launch(self, op, e);
    }
    next();
  };
  if (!needs_host_bridges(*op)) return plan();
  with_host_bridges(self, std::move(plan));
}

region_error place_new_vm(self_ptr self, launch_op& op) {
  auto& st = self->state;
  const auto& req = op.req;
  auto strategy = placement::parse_strategy(req.strategy.empty() ? "Balanced" : req.strategy);
  if (!strategy) return {"invalid_request", strategy.error().message};
  // Hosts that have the template; within the allowed zones.
  auto hosts = launch_hosts_for(req, st.vms, st.cfg.region);
  if (!hosts) return {hosts.error().code, hosts.error().message};
  auto& templates = hosts->templates;
  const auto& filter = hosts->filter;
  auto vmid = st.ids.reserve(vmid_allocator::clock::now());
  if (!vmid) return {"proxmox", "no free VMID"};
  op.vmid = *vmid;
  // Devices count like CPU and memory: the reservation below holds them until the VM's own
  // config shows them, so two launches never get one device.
  placement::vm_request want{req.vcpus, static_cast<std::int64_t>(req.memory_mib) << 20,
                             pci_needs_of(req.pci_devices)};
  auto policy = req.static_cpu_policy || st.cfg.static_cpu_policy
                    ? placement::cpu_policy::static_pinning
                    : placement::cpu_policy::simple;
  auto decision = placement::place_vm(st.placement_hosts, static_cast<int>(*vmid), want, filter,
                                      *strategy, policy, st.cursor);
  if (!decision) {
    st.ids.release(*vmid, false);
    op.vmid = 0;
    return {"no_capacity", decision.error().message};
  }
  auto& host = st.placement_hosts[decision->host];
  op.host = host.name();
  op.template_vmid = templates[op.host];
  op.pinning = decision->pinned;
  for (const auto& a : host.vms()) {
    if (a.vmid == static_cast<int>(*vmid)) st.reserved[*vmid] = {op.host, a};
  }
  auto tmpl = st.vms.find(op.template_vmid);
  if (tmpl != st.vms.end() && tmpl->second.config) op.base_config = *tmpl->second.config;
  return {};
}

void when_claims_known(self_ptr self, std::function<void()> f, std::function<void()> not_ready) {
  auto& st = self->state;
  if (st.claims_known) return f();
  // Whichever comes first: the VMIDs NodeClaims name, or the end of the wait.
  auto once = std::make_shared<bool>(false);
  st.waiting_for_claims.push_back([once, f = within_launch(self, std::move(f))] {
    if (*once) return;
    *once = true;
    f();
  });
  after(self, st.cfg.claims_wait, [once, not_ready] {
    if (*once) return;
    *once = true;
    not_ready();
  });
}

}  // namespace kp::actors::region
