// The region's inventory: one /cluster/resources per refresh, then the details read once per
// host (status; bridges once a launch needed them) and once per VM (its config, again while the
// read fails). From it come the placement view, the simple IPAM, the listing of what this
// cluster owns (positive knowledge only: a VM whose config could not be read, or on a host that
// is not online, is "unknown") and the inventory report.
#include <algorithm>
#include <set>

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "actors/region/inventory.hpp"
#include "actors/region/pci_passthrough.hpp"
#include "actors/region/region_state.hpp"
#include "core/topology/resolve_topology.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

// The host's topology (inventory.hpp); a host whose file entry does not fit it is not used:
// the reason is kept for the inventory and logged when it changes.
std::optional<placement::host_topology> topology_of(region_state& st, const host_record& h) {
  if (!h.node_status) return std::nullopt;
  const auto* file = st.cfg.node_settings ? &*st.cfg.node_settings : nullptr;
  auto resolved = host_topology_of(st.cfg.region, h, st.vms, file);
  if (!resolved) {
    auto& known = st.unusable_hosts[h.name];
    if (known != resolved.error().message) {
      known = resolved.error().message;
      st.log.warn("host left out of placement: its topology cannot be resolved",
                  {{"region", st.cfg.region}, {"host", h.name}, {"reason", known}});
    }
    return std::nullopt;
  }
  if (st.unusable_hosts.erase(h.name) != 0) {
    st.log.info("host topology resolved again", {{"region", st.cfg.region}, {"host", h.name}});
  }
  auto warning = resolved->warning.value_or("");
  auto& known_warning = st.topology_warnings[h.name];
  if (warning != known_warning) {
    known_warning = warning;
    if (!warning.empty()) {
      st.log.warn("topology VM unreadable, using the predicted topology",
                  {{"region", st.cfg.region}, {"host", h.name}, {"reason", warning}});
    }
  }
  return std::move(resolved->topology);
}

std::vector<ipam::host_bridge> bridges_of(const host_record& h) {
  std::vector<ipam::host_bridge> out;
  if (!h.network) return out;
  for (const auto& n : *h.network) {
    if (n.type.find("bridge") == std::string::npos || n.cidr.empty()) continue;
    out.push_back({n.cidr, n.gateway});
  }
  return out;
}

// Keeps a host's bridges as read; a failed read keeps what was known (without bridges the IPAM
// still works: no gateway default, no seeds).
void keep_bridges(region_state& st, const std::string& host,
                  result<std::vector<proxmox::network_interface>> r) {
  auto it = st.hosts.find(host);
  if (r && it != st.hosts.end()) it->second.network = std::move(*r);
}

// Reads each host's bridges and keeps them, then `one_done` after each answer. For a refresh,
// the answers are that refresh's (dropped once it ended).
void read_bridges(self_ptr self, const std::vector<std::string>& hosts, bool for_refresh,
                  const std::function<void()>& one_done) {
  using interfaces = std::vector<proxmox::network_interface>;
  for (const auto& host : hosts) {
    std::function<void(result<interfaces>)> keep = [self, host, one_done](result<interfaces> r) {
      keep_bridges(self->state, host, std::move(r));
      one_done();
    };
    self->state.api->node_network(host, for_refresh ? bounce_refresh<interfaces>(self, keep)
                                                    : bounce<interfaces>(self, keep));
  }
}

void count_unknown(region_state& st, const std::string& why) {
  if (st.metrics.unknown == nullptr) return;
  st.metrics.unknown->Add({{"region", st.cfg.region}, {"reason", why}}).Increment();
}

void fetch_details(self_ptr self) {
  auto& st = self->state;
  auto pending = std::make_shared<int>(1);
  auto one_done = [self, pending] {
    if (--*pending == 0) finish_refresh(self, "");
  };
  // The PCI resource mappings, once per refresh: devices come and go with hardware and with
  // the mappings people edit. A failed read keeps the last answer.
  ++*pending;
  st.api->pci_mappings(bounce_refresh<std::vector<proxmox::pci_resource_mapping>>(
      self, [self, one_done](result<std::vector<proxmox::pci_resource_mapping>> r) {
        auto& st = self->state;
        if (r) {
          st.pci_mappings = pci_mappings_of(*r);
        } else {
          st.log.debug("reading the PCI resource mappings failed; keeping the last ones",
                       {{"region", st.cfg.region}, {"error", r.error().message}});
        }
        one_done();
      }));
  // Host facts rarely change: read once, again past their age, and while a read fails.
  const auto now = self->clock().now();
  std::set<std::string> stale;
  for (const auto& [name, h] : st.hosts) {
    if (h.node_status && now - h.facts_read_at >= st.cfg.host_facts_max_age) stale.insert(name);
  }
  for (auto& [name, h] : st.hosts) {
    if (!h.online() || (h.node_status && stale.count(name) == 0)) continue;
    ++*pending;
    std::string host = name;
    st.api->node_status(host, bounce_refresh<proxmox::node_status>(
                                  self, [self, host, one_done](result<proxmox::node_status> r) {
                                    auto it = self->state.hosts.find(host);
                                    if (r && it != self->state.hosts.end()) {
                                      it->second.node_status = *r;
                                      it->second.facts_read_at = self->clock().now();
                                    }
                                    one_done();
                                  }));
  }
  // Bridges only once a launch needed them (with_host_bridges): then for every host.
  std::vector<std::string> bridges_due;
  for (auto& [name, h] : st.hosts) {
    if (!h.online() || (h.network ? stale.count(name) == 0 : !st.bridges_wanted)) continue;
    bridges_due.push_back(name);
  }
  *pending += static_cast<int>(bridges_due.size());
  read_bridges(self, bridges_due, true, one_done);
  // A VM one of our launches is making is not read: the launch writes its config and records
  // it when it ends (record_started), and until then a read could only show the clone's lock.
  std::set<std::uint32_t> in_flight(st.cloning.begin(), st.cloning.end());
  for (const auto& [name, op] : st.launching) {
    if (op->vmid != 0) in_flight.insert(op->vmid);
  }
  for (auto& [id, vm] : st.vms) {
    if (in_flight.count(id) != 0) continue;
    // A config read while Proxmox still clones or creates the VM is read again until the task
    // wrote the real one (name and mark).
    bool in_creation = vm.config && vm.config->lock &&
                       (*vm.config->lock == "clone" || *vm.config->lock == "create");
    if (vm.is_container ||
        (vm.config && !vm.synthetic && vm.config_error.empty() && !in_creation)) {
      continue;
    }
    // A launch's own record is what its calls wrote; the door's read before the ISO detach
    // replaces it, so a refresh reads it only once it is older than that usually takes.
    if (vm.synthetic && vm.launch_recorded_at &&
        now - *vm.launch_recorded_at < st.cfg.launched_config_max_age) {
      continue;
    }
    auto host = st.hosts.find(vm.node);
    // `unknown` on an online host is a new VM Proxmox has no status data for yet: readable.
    if (host == st.hosts.end() || !host->second.online()) {
      // Its host does not answer: what is on it is unknown until it does.
      vm.config_error = "host " + vm.node + " is " +
                        (host == st.hosts.end() ? std::string("unknown") : host->second.status);
      continue;
    }
    ++*pending;
    std::uint32_t vmid = id;
    std::string name = vm.name;
    std::uint64_t epoch = vm.epoch;
    st.api->vm_config(
        vm.node, vmid,
        bounce_refresh<proxmox::vm_config>(
            self, [self, vmid, name, epoch, one_done](result<proxmox::vm_config> r) {
              auto& st = self->state;
              auto it = st.vms.find(vmid);
              // A launch that finished meanwhile wrote a newer config: keep it.
              if (it != st.vms.end() && it->second.name == name && it->second.epoch == epoch) {
                if (r) {
                  keep_read_keys(*r, name);
                  it->second.config = std::move(*r);
                  it->second.config_read_at = self->clock().now();
                  it->second.synthetic = false;
                  it->second.launch_recorded_at.reset();
                  it->second.cloned_from.reset();
                  it->second.config_error.clear();
                } else {
                  it->second.config_error = r.error().code + ": " + r.error().message;
                  count_unknown(st, "config_read");
                  st.log.debug("reading a VM's config failed: its owner is unknown for now",
                               {{"region", st.cfg.region},
                                {"vmid", std::to_string(vmid)},
                                {"error", it->second.config_error}});
                }
              }
              one_done();
            }));
  }
  one_done();
}

void request_listing(self_ptr self);

}  // namespace

void schedule_tick(self_ptr self) {
  auto& st = self->state;
  ++st.timer_generation;
  self->delayed_send(self, st.cfg.refresh_interval, tick_atom::value, st.timer_generation);
}

void refresh(self_ptr self) {
  auto& st = self->state;
  // A listing serves every waiter: it belongs to no launch, even one that asked for it.
  launch_scope unbound(st, {});
  if (st.refreshing) {
    st.refresh_again = true;
    return;
  }
  st.refreshing = true;
  // Whoever asked for a listing made after their request gets this one.
  for (auto& f : st.after_next_refresh) st.after_refresh.push_back(std::move(f));
  st.after_next_refresh.clear();
  run_for_refresh(self, ++st.refresh_generation, [&] { request_listing(self); });
}

namespace {

void request_listing(self_ptr self) {
  auto& st = self->state;
  // What our own steps record after this point (a created, converted or deleted VM) is newer
  // than the listing, which may have been taken before the step ended.
  const std::uint64_t listed_at = st.epoch;
  st.api->cluster_resources(
      std::nullopt, bounce_refresh<std::vector<proxmox::cluster_resource>>(
                        self, [self, listed_at](result<std::vector<proxmox::cluster_resource>> r) {
                          auto& st = self->state;
                          if (!r) {
                            finish_refresh(self, "cluster resources: " + r.error().code + ": " +
                                                     r.error().message);
                            return;
                          }
                          auto listing = listing_from_resources(*r);
                          for (auto& [storage, type] : listing.storage_types) {
                            st.storage_types[storage] = type;
                          }
                          auto& hosts = listing.hosts;
                          auto& vms = listing.vms;
                          for (auto& [name, h] : hosts) {
                            auto old = st.hosts.find(name);
                            if (old != st.hosts.end()) {
                              h.node_status = old->second.node_status;
                              h.network = old->second.network;
                              h.facts_read_at = old->second.facts_read_at;
                            }
                          }
                          for (auto it = vms.begin(); it != vms.end();) {
                            auto& vm = it->second;
                            if (auto f = st.forgotten.find(vm.vmid);
                                f != st.forgotten.end() && f->second > listed_at) {
                              it = vms.erase(it);  // deleted by us after this listing was asked for
                              continue;
                            }
                            auto old = st.vms.find(vm.vmid);
                            if (!vm.is_container && old != st.vms.end() &&
                                old->second.name == vm.name && old->second.node == vm.node) {
                              // A synthetic config stays until the real one arrives (adoption and
                              // deletes need the mark and the CD-ROM in between).
                              vm.config = std::move(old->second.config);
                              vm.config_error = old->second.config_error;
                              vm.config_read_at = old->second.config_read_at;
                              vm.synthetic = old->second.synthetic;
                              vm.launch_recorded_at = old->second.launch_recorded_at;
                              vm.cloned_from = old->second.cloned_from;
                              vm.epoch = old->second.epoch;
                              // A conversion of ours the listing predates (it is one-way).
                              if (old->second.epoch > listed_at && old->second.is_template) {
                                vm.is_template = true;
                              }
                            }
                            ++it;
                          }
                          // VMs our steps created after this listing was asked for.
                          for (auto& [id, old] : st.vms) {
                            if (old.epoch > listed_at && vms.count(id) == 0) {
                              vms[id] = std::move(old);
                            }
                          }
                          for (auto f = st.forgotten.begin(); f != st.forgotten.end();) {
                            f = f->second <= listed_at ? st.forgotten.erase(f) : std::next(f);
                          }
                          st.hosts = std::move(hosts);
                          st.vms = std::move(vms);
                          fetch_details(self);
                        }));
}

}  // namespace

void with_inventory(self_ptr self, std::function<void()> f) {
  if (self->state.refreshed) {
    f();
    return;
  }
  self->state.after_refresh.push_back(within_launch(self, std::move(f)));
  refresh(self);
}

void with_fresh_inventory(self_ptr self, std::function<void()> f) {
  auto& st = self->state;
  st.after_next_refresh.push_back(within_launch(self, std::move(f)));
  refresh(self);  // starts one now, or right after the one under way
}

void with_host_bridges(self_ptr self, std::function<void()> f) {
  auto& st = self->state;
  st.bridges_wanted = true;
  std::vector<std::string> missing;
  for (const auto& [name, h] : st.hosts) {
    if (h.online() && !h.network) missing.push_back(name);
  }
  const bool reading = !st.bridge_waiters.empty();
  if (missing.empty() && !reading) return f();
  st.bridge_waiters.push_back(within_launch(self, std::move(f)));
  if (reading) return;
  // The reads serve every launch waiting: no single launch's fault may drop their answers.
  launch_scope region_wide(st, {});
  auto pending = std::make_shared<std::size_t>(missing.size());
  read_bridges(self, missing, false, [self, pending] {
    if (--*pending != 0) return;
    auto& st = self->state;
    rebuild_ipam(st);
    auto waiters = std::move(st.bridge_waiters);
    st.bridge_waiters.clear();
    for (auto& w : waiters) w();
  });
}

void remember_config(region_state& st, std::uint32_t vmid, const proxmox::vm_config& config) {
  auto it = st.vms.find(vmid);
  if (it == st.vms.end()) return;
  it->second.config = config;
  it->second.config_error.clear();
  it->second.synthetic = false;
  it->second.launch_recorded_at.reset();
  it->second.cloned_from.reset();
  if (st.clock != nullptr) it->second.config_read_at = st.clock->now();
  it->second.epoch = ++st.epoch;
}

// Addresses in use: every VM's static ipconfigN, every host bridge, and the launches in flight
// (their config may not be written yet). The Go provider also seeds Node addresses; ours are
// all in VM configs, which survive a controller restart.
void rebuild_ipam(region_state& st) {
  std::vector<std::string> ipconfigs;
  for (const auto& [id, vm] : st.vms) {
    (void)id;
    // A template's ipconfig is the request ("ip=10.0.0.0/24"), not an address in use.
    if (vm.is_template || !vm.config) continue;
    for (const auto& [index, text] : vm.config->ipconfigs) {
      (void)index;
      ipconfigs.push_back(text);
    }
  }
  std::vector<ipam::host_bridge> bridges;
  for (const auto& [name, h] : st.hosts) {
    (void)name;
    auto b = bridges_of(h);
    bridges.insert(bridges.end(), b.begin(), b.end());
  }
  st.ipam.rebuild({}, ipconfigs, bridges);
  for (const auto& [claim, op] : st.launching) {
    (void)claim;
    if (!op->ip_address.empty()) st.ipam.observe_address(op->ip_address);
  }
}

void rebuild_placement(region_state& st) {
  st.placement_hosts.clear();
  for (auto it = st.unusable_hosts.begin(); it != st.unusable_hosts.end();) {
    it = st.hosts.count(it->first) == 0 ? st.unusable_hosts.erase(it) : std::next(it);
  }
  auto devices = placement::pci_devices_by_host(st.pci_mappings);
  for (const auto& [name, h] : st.hosts) {
    auto topology = topology_of(st, h);
    if (!topology) continue;
    auto hs = placement_host_of(h, *topology, st.vms, st.reserved, st.cfg.cluster_name);
    if (auto d = devices.find(name); d != devices.end()) hs.pci_devices = d->second;
    st.placement_hosts.push_back(std::move(hs));
  }
}

placement::host_state* placement_host(region_state& st, const std::string& name) {
  for (auto& h : st.placement_hosts) {
    if (h.name() == name) return &h;
  }
  return nullptr;
}

owned_vm_listing list_owned(const region_state& st) {
  owned_vm_listing out;
  out.region = st.cfg.region;
  out.fresh = st.refreshed && st.detail.empty();
  out.detail = st.detail;
  if (!out.fresh) return out;
  for (const auto& [name, h] : st.hosts) {
    if (!h.online()) out.unknown_hosts.push_back(name);
  }
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_template || vm.is_container) continue;
    auto host = st.hosts.find(vm.node);
    bool host_online = host != st.hosts.end() && host->second.online();
    if (!host_online || !vm.config || !vm.config_error.empty()) {
      unknown_vm u;
      u.vmid = id;
      u.zone = vm.node;
      u.provider_id = provider_id(st, id);
      u.reason = !vm.config_error.empty() ? vm.config_error
                 : !host_online           ? "host " + vm.node + " is not online"
                                          : "its config was not read yet";
      out.unknown.push_back(std::move(u));
      continue;
    }
    if (is_unmarked_clone(vm)) {
      // Another incarnation's clone, maybe ours: its name and mark come when it finishes.
      unknown_vm u;
      u.vmid = id;
      u.zone = vm.node;
      u.provider_id = provider_id(st, id);
      u.reason = "Proxmox is still cloning it (lock: clone): no name or mark yet";
      out.unknown.push_back(std::move(u));
      continue;
    }
    owned_vm o;
    o.vmid = id;
    o.zone = vm.node;
    o.status = vm.status;
    o.provider_id = provider_id(st, id);
    o.created_unix = creation_time(*vm.config);
    if (auto mark = mark_of(vm)) {
      if (mark->cluster != st.cfg.cluster_name) continue;  // another cluster's VM
      o.nodeclaim = mark->nodeclaim;
      o.nodepool = mark->nodepool;
    } else if (vm.config->description &&
               ownership::is_go_provider_description(*vm.config->description)) {
      o.nodeclaim = vm.name;
      o.collectable = false;  // made by the Go provider: adopt, never collect
    } else {
      continue;  // not ours
    }
    out.vms.push_back(std::move(o));
  }
  return out;
}

region_inventory snapshot(const region_state& st) {
  region_inventory inv;
  inv.region = st.cfg.region;
  inv.refreshed = st.refreshed;
  inv.detail = st.detail;
  for (const auto& [name, h] : st.hosts) {
    (h.online() ? inv.hosts_online : inv.hosts_offline).push_back(name);
  }
  for (const auto& [id, vm] : st.vms) {
    (void)id;
    if (vm.is_container) continue;
    if (vm.is_template && vm.config && vm.config->is_template) {
      inv.templates[vm.node].push_back(vm.name);
    } else if (!vm.is_template) {
      ++inv.vms;
    }
  }
  inv.in_flight = static_cast<std::uint32_t>(st.window->in_flight());
  inv.queued = static_cast<std::uint32_t>(st.window->queued());
  inv.peak_in_flight = static_cast<std::uint32_t>(st.peak_in_flight);
  for (const auto& h : st.placement_hosts) {
    protocol::host_capacity c{h.name(), h.online, h.free_cpus(), h.free_memory(), {}, h.free_pci()};
    const auto& nodes = h.topology().numa_nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      c.numa.push_back({nodes[i].id, h.numa_free_cpus(i), h.numa_free_memory(i)});
    inv.capacity.push_back(std::move(c));
  }
  inv.unusable_hosts = st.unusable_hosts;
  for (const auto& m : st.pci_mappings) inv.pci_mappings[m.id] = m.devices;
  return inv;
}

}  // namespace kp::actors::region
