// The region actor. Every Proxmox call completes on an io thread; its callback is bounced back
// into the actor as a `resume` message (anon_send, cpp-stack.md §3) and only then touches state,
// so the state stays single-threaded. Launches and deletes each hold one credit of the window
// for their whole Proxmox sequence.
#include "actors/region/region_actor.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/credit_window.hpp"
#include "actors/region/inventory.hpp"
#include "actors/region/ownership_mark.hpp"
#include "actors/region/redact.hpp"
#include "actors/region/vmid_allocator.hpp"
#include "core/ipam/simple_ipam.hpp"
#include "core/placement/place_vm.hpp"
#include "core/topology/resolve_topology.hpp"
#include "observability/logging.hpp"
#include "protocol/provider_id.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("regiontick")>;
using impl_actor = region_actor::extend<
    caf::reacts_to<resume_atom, continuation>, caf::reacts_to<tick_atom, std::uint64_t>,
    caf::replies_to<release_iso_atom, release_iso_request>::with<release_iso_reply>,
    caf::replies_to<sync_vm_atom, sync_vm_request>::with<sync_vm_reply>>;

constexpr const char* capacity_vm_name = "node-capacity";

struct vm_record {
  std::uint32_t vmid = 0;
  std::string node;
  std::string name;
  std::string status;
  bool is_template = false;
  std::string pool;                          // from /cluster/resources
  std::optional<proxmox::vm_config> config;  // fetched once per VM
  bool synthetic = false;   // config made by us after a launch: the next refresh reads the real one
  std::uint64_t epoch = 0;  // bumped when we write `config`, so older fetches do not overwrite it
};

struct host_record {
  std::string name;
  bool online = false;
  double cpu = 0;
  std::optional<proxmox::node_status> status;  // fetched once
  std::vector<std::string> iso_storages;
  // Bridges (GET /nodes/{node}/network), fetched once: the simple IPAM's seeds and gateways.
  std::optional<std::vector<proxmox::network_interface>> network;
};

struct launch_op {
  launch_request req;
  std::vector<caf::typed_response_promise<launch_reply>> waiters;
  std::string host;
  std::uint32_t template_vmid = 0;
  std::uint32_t vmid = 0;
  placement::vm_allocation allocation;
  std::optional<placement::pinning> pinning;
  std::string iso_volid;
  bool cloned = false;
  int clone_attempts = 0;
  std::string ipconfig0;     // from the simple IPAM, written in the config call
  std::string ip_address;    // the IPv4 address held in the IPAM ("" when none)
  std::vector<vm_nic> nics;  // the template's NICs with our MACs and addresses
  // Join through the guest agent (req.render_join): the rendered command (holds the bootstrap
  // token: never logged), the deadline and next poll interval, the exec's pid, the last agent
  // error and how many agent requests were made.
  std::string join_command;
  caf::actor_clock::time_point agent_deadline;
  std::chrono::milliseconds agent_interval{0};
  int agent_pid = 0;
  std::string agent_error;
  std::uint32_t agent_requests = 0;
  bool joined_by_agent = false;
};

struct region_state {
  std::shared_ptr<proxmox::client> api;
  region_settings cfg;
  std::map<std::string, host_record> hosts;
  std::map<std::uint32_t, vm_record> vms;
  std::vector<placement::host_state> placement_hosts;
  std::map<std::uint32_t, std::pair<std::string, placement::vm_allocation>> reserved;
  vmid_allocator ids;
  std::unique_ptr<credit_windows> windows;
  credit_window* window = nullptr;
  placement::placement_cursor cursor;
  std::map<std::string, std::shared_ptr<launch_op>> launching;  // by NodeClaim name
  bool refreshed = false;
  bool refreshing = false;
  bool refresh_again = false;
  std::string detail;
  std::vector<std::function<void()>> after_refresh;
  std::uint64_t timer_generation = 0;
  std::uint64_t refreshes = 0;  // successful ones, for the leftover ISO sweep
  std::uint64_t epoch = 0;
  std::size_t peak_in_flight = 0;
  std::mt19937_64 random{std::random_device{}()};
  ipam::simple_ipam ipam;  // rebuilt at every refresh from VM configs and bridges
  std::map<std::string, std::string> unusable_hosts;  // host -> why its topology is unknown
  std::map<std::string, std::string> topology_warnings;
  obs::logger log{"region"};

  static inline const char* name = "region";
};

using self_ptr = impl_actor::stateful_pointer<region_state>;

// A client callback that resumes `f` inside the actor.
template <class T>
proxmox::callback<T> bounce(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(caf::actor_cast<impl_actor>(self), std::move(f));
}

region_error proxmox_error(const kp::error& e) {
  return {"proxmox", e.code + ": " + e.message};
}

std::string provider_id(const region_state& st, std::uint32_t vmid) {
  return protocol::format_provider_id(st.cfg.region, vmid);
}

std::optional<ownership_mark> mark_of(const vm_record& vm) {
  if (!vm.config || !vm.config->description) return std::nullopt;
  return parse_ownership_mark(*vm.config->description);
}

bool counts_for_placement(const vm_record& vm) {
  return !vm.is_template && vm.name != capacity_vm_name && vm.config.has_value();
}

// --- placement view -------------------------------------------------------------------------

// The host's topology from its status, its topology VM and NODE_SETTING_FILE (in that order
// of priority, core/topology). A host whose file entry does not fit it is not used: the reason
// is kept for the inventory and logged when it changes.
std::optional<placement::host_topology> topology_of(region_state& st, const host_record& h) {
  if (!h.status) return std::nullopt;
  const auto& ci = h.status->cpuinfo;
  topology::host_observation seen;
  seen.region = st.cfg.region;
  seen.host = h.name;
  seen.cpu.sockets = std::max(1, static_cast<int>(ci.sockets));
  // Proxmox reports physical cores summed over the sockets.
  seen.cpu.cores_per_socket = std::max(1, static_cast<int>(ci.cores) / seen.cpu.sockets);
  seen.cpu.cpus = static_cast<int>(ci.cpus);
  seen.memory_bytes = static_cast<std::int64_t>(h.status->memory_total);
  for (const auto& [id, vm] : st.vms) {
    if (vm.node != h.name || !vm.config) continue;
    auto tags = vm.config->raw.find("tags");
    if (!topology::is_topology_vm(vm.name, tags == vm.config->raw.end() ? "" : tags->second)) {
      continue;
    }
    seen.topology_vm = topology::host_observation::vm{static_cast<int>(id), vm.config->raw};
    break;
  }
  const auto* file = st.cfg.node_settings ? &*st.cfg.node_settings : nullptr;
  auto resolved = topology::resolve_host_topology(seen, file);
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

// --- simple IPAM ---------------------------------------------------------------------------------

std::vector<ipam::host_bridge> bridges_of(const host_record& h) {
  std::vector<ipam::host_bridge> out;
  if (!h.network) return out;
  for (const auto& n : *h.network) {
    if (n.type.find("bridge") == std::string::npos || n.cidr.empty()) continue;
    out.push_back({n.cidr, n.gateway});
  }
  return out;
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
  for (const auto& [name, h] : st.hosts) {
    auto topology = topology_of(st, h);
    if (!topology) continue;
    placement::host_state hs(name, *topology);
    hs.online = h.online;
    hs.reported_cpu_load = h.cpu;
    for (const auto& [id, vm] : st.vms) {
      if (vm.node != name || !counts_for_placement(vm)) continue;
      // A VM still being launched holds what its reservation says (its config is not final).
      if (st.reserved.count(id) != 0) continue;
      auto mark = mark_of(vm);
      bool ours = mark && mark->cluster == st.cfg.cluster_name;
      // Stopped VMs of others hold nothing (the Go provider counts running VMs only); ours
      // will run again.
      if (!ours && vm.status != "running") continue;
      hs.add(allocation_from_config(static_cast<int>(id), *vm.config, ours));
    }
    for (const auto& [id, r] : st.reserved) {
      if (r.first == name) hs.add(r.second);
    }
    st.placement_hosts.push_back(std::move(hs));
  }
}

placement::host_state* placement_host(region_state& st, const std::string& name) {
  for (auto& h : st.placement_hosts) {
    if (h.name() == name) return &h;
  }
  return nullptr;
}

// --- inventory refresh ------------------------------------------------------------------------

void schedule_tick(self_ptr self) {
  auto& st = self->state;
  ++st.timer_generation;
  self->delayed_send(self, st.cfg.refresh_interval, tick_atom::value, st.timer_generation);
}

void delete_iso(self_ptr self, const std::string& node, const std::string& volid,
                std::function<void()> done);

// user-data-<vmid>.iso -> vmid; 0 for any other name.
std::uint32_t leftover_iso_vmid(const std::string& volid) {
  constexpr std::string_view prefix = ":iso/user-data-";
  auto at = volid.find(prefix);
  if (at == std::string::npos) return 0;
  auto digits = volid.substr(at + prefix.size());
  if (digits.size() < 5 || digits.compare(digits.size() - 4, 4, ".iso") != 0) return 0;
  digits.resize(digits.size() - 4);
  std::uint32_t vmid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || vmid > 99'999'999) return 0;
    vmid = vmid * 10 + static_cast<std::uint32_t>(c - '0');
  }
  return vmid;
}

// Deletes our ISOs whose VM no longer exists (a crash between upload and cleanup, a VM removed
// by hand). Never one of a VM in the inventory or being launched, never a young one.
void sweep_leftover_isos(self_ptr self) {
  auto& st = self->state;
  std::set<std::pair<std::string, std::string>> seen;  // shared storages list once
  for (const auto& [name, h] : st.hosts) {
    if (!h.online) continue;
    for (const auto& storage : h.iso_storages) {
      if (!seen.insert({name, storage}).second) continue;
      std::string node = name;
      st.api->storage_content(
          node, storage, "iso",
          bounce<std::vector<proxmox::storage_content>>(
              self, [self, node](result<std::vector<proxmox::storage_content>> r) {
                if (!r) return;  // tried again at the next sweep
                auto& st = self->state;
                auto now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
                for (const auto& item : *r) {
                  auto vmid = leftover_iso_vmid(item.volid);
                  if (vmid == 0 || st.vms.count(vmid) != 0 || st.reserved.count(vmid) != 0) {
                    continue;
                  }
                  bool launching = false;
                  for (const auto& [claim, op] : st.launching) {
                    (void)claim;
                    launching = launching || op->vmid == vmid;
                  }
                  if (launching) continue;
                  auto age = now - static_cast<std::int64_t>(item.ctime);
                  if (item.ctime == 0 || age < st.cfg.leftover_iso_grace.count()) continue;
                  delete_iso(self, node, item.volid, [] {});
                }
              }));
    }
  }
}

void finish_refresh(self_ptr self, std::string detail) {
  auto& st = self->state;
  st.refreshing = false;
  st.detail = std::move(detail);
  if (st.detail.empty()) {
    st.refreshed = true;
    std::set<std::uint32_t> ids;
    for (const auto& [id, vm] : st.vms) ids.insert(id);
    st.ids.set_existing(std::move(ids));
    rebuild_placement(st);
    rebuild_ipam(st);
    if (st.cfg.leftover_iso_every > 0 && st.refreshes++ % st.cfg.leftover_iso_every == 0) {
      sweep_leftover_isos(self);
    }
  }
  schedule_tick(self);
  if (st.refresh_again) {
    st.refresh_again = false;
    // Defer through the mailbox so a refresh never recurses.
    self->send(self, refresh_atom::value);
  }
  // Waiters run even after a failed refresh: with a stale (or no) inventory they answer errors.
  auto waiters = std::move(st.after_refresh);
  st.after_refresh.clear();
  for (auto& w : waiters) w();
}

void refresh(self_ptr self);

void fetch_details(self_ptr self) {
  auto& st = self->state;
  auto pending = std::make_shared<int>(1);
  auto one_done = [self, pending] {
    if (--*pending == 0) finish_refresh(self, "");
  };
  for (auto& [name, h] : st.hosts) {
    if (!h.online || h.status) continue;
    ++*pending;
    std::string host = name;
    st.api->node_status(host, bounce<proxmox::node_status>(
                                  self, [self, host, one_done](result<proxmox::node_status> r) {
                                    auto it = self->state.hosts.find(host);
                                    if (r && it != self->state.hosts.end()) it->second.status = *r;
                                    one_done();
                                  }));
  }
  for (auto& [name, h] : st.hosts) {
    if (!h.online || h.network) continue;
    ++*pending;
    std::string host = name;
    st.api->node_network(
        host, bounce<std::vector<proxmox::network_interface>>(
                  self, [self, host, one_done](result<std::vector<proxmox::network_interface>> r) {
                    auto it = self->state.hosts.find(host);
                    // Without bridges the IPAM still works (no gateway default, no seeds).
                    if (r && it != self->state.hosts.end()) it->second.network = std::move(*r);
                    one_done();
                  }));
  }
  for (auto& [id, vm] : st.vms) {
    if (vm.config && !vm.synthetic) continue;
    ++*pending;
    std::uint32_t vmid = id;
    std::string name = vm.name;
    std::uint64_t epoch = vm.epoch;
    st.api->vm_config(vm.node, vmid,
                      bounce<proxmox::vm_config>(
                          self, [self, vmid, name, epoch, one_done](result<proxmox::vm_config> r) {
                            auto it = self->state.vms.find(vmid);
                            // A launch that finished meanwhile wrote a newer config: keep it.
                            if (r && it != self->state.vms.end() && it->second.name == name &&
                                it->second.epoch == epoch) {
                              it->second.config = std::move(*r);
                              it->second.synthetic = false;
                            }
                            one_done();
                          }));
  }
  one_done();
}

void refresh(self_ptr self) {
  auto& st = self->state;
  if (st.refreshing) {
    st.refresh_again = true;
    return;
  }
  st.refreshing = true;
  st.api->cluster_resources(std::nullopt,
                            bounce<std::vector<proxmox::cluster_resource>>(
                                self, [self](result<std::vector<proxmox::cluster_resource>> r) {
                                  auto& st = self->state;
                                  if (!r) {
                                    finish_refresh(self, "cluster resources: " + r.error().code +
                                                             ": " + r.error().message);
                                    return;
                                  }
                                  std::map<std::string, host_record> hosts;
                                  std::map<std::uint32_t, vm_record> vms;
                                  for (const auto& res : *r) {
                                    if (res.type == "node") {
                                      auto& h = hosts[res.node];
                                      h.name = res.node;
                                      h.online = res.status == "online";
                                      h.cpu = res.cpu;
                                      auto old = st.hosts.find(res.node);
                                      if (old != st.hosts.end()) {
                                        h.status = old->second.status;
                                        h.network = old->second.network;
                                      }
                                    }
                                  }
                                  for (const auto& res : *r) {
                                    if (res.type == "storage") {
                                      bool iso = res.content.find("iso") != std::string::npos;
                                      auto h = hosts.find(res.node);
                                      if (iso && h != hosts.end() && res.status == "available") {
                                        h->second.iso_storages.push_back(res.storage);
                                      }
                                    } else if (res.type == "qemu") {
                                      vm_record vm;
                                      vm.vmid = res.vmid;
                                      vm.node = res.node;
                                      vm.name = res.name;
                                      vm.status = res.status;
                                      vm.is_template = res.template_;
                                      vm.pool = res.pool;
                                      auto old = st.vms.find(res.vmid);
                                      if (old != st.vms.end() && old->second.name == res.name &&
                                          old->second.node == res.node) {
                                        // A synthetic config stays until the real one arrives
                                        // (adoption and deletes need the mark and the CD-ROM in
                                        // between).
                                        vm.config = std::move(old->second.config);
                                        vm.synthetic = old->second.synthetic;
                                        vm.epoch = old->second.epoch;
                                      }
                                      vms[res.vmid] = std::move(vm);
                                    } else if (res.type == "lxc") {
                                      // Containers hold VMIDs too: never hand theirs out.
                                      vm_record ct;
                                      ct.vmid = res.vmid;
                                      ct.node = res.node;
                                      ct.name = res.name;
                                      ct.is_template = true;  // never placed against, never ours
                                      ct.config = proxmox::vm_config{};
                                      vms[res.vmid] = std::move(ct);
                                    }
                                  }
                                  st.hosts = std::move(hosts);
                                  st.vms = std::move(vms);
                                  fetch_details(self);
                                }));
}

// Runs `f` once an inventory exists (at once when it does; after the next refresh otherwise).
// `fresh`: also wait for a refresh under way (queries that should see the latest listing).
void with_inventory(self_ptr self, std::function<void()> f, bool fresh = false) {
  if (self->state.refreshed && !(fresh && self->state.refreshing)) {
    f();
    return;
  }
  self->state.after_refresh.push_back(std::move(f));
  refresh(self);
}

// --- VM removal (delete and cleanup after a failed launch) -------------------------------------

bool gone(const kp::error& e) {
  return e.code == "not_found";
}

void delete_iso(self_ptr self, const std::string& node, const std::string& volid,
                std::function<void()> done) {
  auto colon = volid.find(':');
  if (volid.empty() || colon == std::string::npos) {
    done();
    return;
  }
  self->state.api->delete_volume(
      node, volid.substr(0, colon), volid,
      bounce<std::optional<proxmox::upid>>(
          self, [self, done](result<std::optional<proxmox::upid>> r) {
            if (!r || !*r) {
              done();  // a leftover ISO is collected later
              return;
            }
            self->state.api->wait_task(**r, self->state.cfg.clone_wait,
                                       bounce<proxmox::task_status>(
                                           self, [done](result<proxmox::task_status>) { done(); }));
          }));
}

// Stops (if running), waits, deletes with purge, waits, deletes the ISO. `done(status,
// already_gone)`.
void destroy_vm(self_ptr self, std::string node, std::uint32_t vmid, std::string iso_volid,
                std::function<void(status, bool)> done) {
  auto& api = *self->state.api;
  auto cfg = self->state.cfg;
  auto finish = [self, node, iso_volid, done](status s, bool already_gone) {
    if (!s) {
      done(s, false);
      return;
    }
    delete_iso(self, node, iso_volid, [done, already_gone] { done({}, already_gone); });
  };
  auto remove = [self, node, vmid, cfg, finish] {
    self->state.api->delete_vm(
        node, vmid, true, bounce<proxmox::upid>(self, [self, cfg, finish](result<proxmox::upid> r) {
          if (!r) {
            finish(gone(r.error()) ? status{} : status{r.error()}, gone(r.error()));
            return;
          }
          self->state.api->wait_task(
              *r, cfg.clone_wait,
              bounce<proxmox::task_status>(self, [finish](result<proxmox::task_status> t) {
                if (!t && !gone(t.error())) {
                  finish(t.error(), false);
                  return;
                }
                finish({}, false);
              }));
        }));
  };
  api.vm_status(
      node, vmid,
      bounce<proxmox::vm_status>(
          self, [self, node, vmid, cfg, finish, remove](result<proxmox::vm_status> s) {
            if (!s) {
              if (gone(s.error())) {
                finish({}, true);
              } else {
                finish(s.error(), false);
              }
              return;
            }
            if (s->status != "running") {
              remove();
              return;
            }
            self->state.api->stop_vm(
                node, vmid,
                bounce<proxmox::upid>(self, [self, cfg, finish, remove](result<proxmox::upid> r) {
                  if (!r) {
                    finish(r.error(), false);
                    return;
                  }
                  self->state.api->wait_task(
                      *r, cfg.start_wait,
                      bounce<proxmox::task_status>(
                          self, [finish, remove](result<proxmox::task_status> t) {
                            if (!t) {
                              finish(t.error(), false);
                              return;
                            }
                            remove();
                          }));
                }));
          }));
}

void forget_vm(self_ptr self, std::uint32_t vmid, const std::string& node) {
  auto& st = self->state;
  st.vms.erase(vmid);
  st.reserved.erase(vmid);
  st.ids.deleted(vmid, vmid_allocator::clock::now());
  if (auto* h = placement_host(st, node)) h->remove(static_cast<int>(vmid));
}

// --- launch -----------------------------------------------------------------------------------

void finish_launch(self_ptr self, const std::shared_ptr<launch_op>& op, launch_reply reply) {
  auto& st = self->state;
  st.launching.erase(op->req.nodeclaim);
  for (auto& w : op->waiters) w.deliver(reply);
  op->waiters.clear();
  st.window->complete();
}

void fail_launch(self_ptr self, const std::shared_ptr<launch_op>& op, region_error error) {
  auto& st = self->state;
  launch_reply reply;
  reply.error = std::move(error);
  reply.region = st.cfg.region;
  if (!op->ip_address.empty()) {
    st.ipam.release(op->ip_address);
    op->ip_address.clear();
  }
  if (!op->cloned) {
    if (op->vmid != 0) {
      st.ids.release(op->vmid, false);
      st.reserved.erase(op->vmid);
      if (auto* h = placement_host(st, op->host)) h->remove(static_cast<int>(op->vmid));
    }
    finish_launch(self, op, std::move(reply));
    return;
  }
  // No half-made VM is left behind.
  destroy_vm(self, op->host, op->vmid, op->iso_volid, [self, op, reply](status s, bool) mutable {
    if (!s) reply.error.message += " (and removing the VM failed: " + s.error().message + ")";
    self->state.ids.release(op->vmid, false);
    forget_vm(self, op->vmid, op->host);
    finish_launch(self, op, std::move(reply));
    refresh(self);
  });
}

std::optional<launch_reply> adoptable(region_state& st, const launch_request& req) {
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_template || vm.name != req.nodeclaim) continue;
    auto mark = mark_of(vm);
    if (!mark || mark->cluster != st.cfg.cluster_name || mark->nodeclaim != req.nodeclaim) {
      continue;
    }
    launch_reply reply;
    reply.ok = true;
    reply.adopted = true;
    reply.region = st.cfg.region;
    reply.zone = vm.node;
    reply.vmid = id;
    reply.provider_id = provider_id(st, id);
    if (vm.config) {
      auto ip = vm.config->ipconfigs.find(0);
      if (ip != vm.config->ipconfigs.end()) reply.ipconfig0 = ip->second;
    }
    if (vm.config && vm.config->affinity) {
      std::vector<unsigned> cpus = *vm.config->affinity;
      reply.affinity = proxmox::format_cpu_list(cpus);
    } else {
      reply.affinity = mark->affinity;
    }
    return reply;
  }
  return std::nullopt;
}

std::string random_uuid(std::mt19937_64& rng) {
  std::uint64_t a = rng(), b = rng();
  a = (a & ~0xf000ull) | 0x4000ull;                         // version 4
  b = (b & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // variant 1
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buf;
}

std::vector<std::string> normalised_tags(const std::vector<std::string>& wanted) {
  std::vector<std::string> out{"karpenter"};
  for (const auto& t : wanted) {
    if (proxmox::parse_tags(t)) out.push_back(t);  // invalid tags are dropped, not fatal
  }
  auto parsed = proxmox::parse_tags(proxmox::format_tags(out));
  return parsed ? *parsed : std::vector<std::string>{"karpenter"};
}

void start_vm(self_ptr self, std::shared_ptr<launch_op> op);
void record_started(self_ptr self, std::shared_ptr<launch_op> op);
void join_by_agent(self_ptr self, std::shared_ptr<launch_op> op);
void configure(self_ptr self, std::shared_ptr<launch_op> op);
void clone(self_ptr self, std::shared_ptr<launch_op> op);

// Waits for an optional task, then runs `next` or fails the launch.
void then_wait(self_ptr self, std::shared_ptr<launch_op> op, const char* what,
               result<std::optional<proxmox::upid>> r, proxmox::task_wait_options wait,
               std::function<void()> next) {
  if (!r) {
    fail_launch(self, op, proxmox_error(r.error()));
    (void)what;
    return;
  }
  if (!*r) {
    next();
    return;
  }
  self->state.api->wait_task(
      **r, wait,
      bounce<proxmox::task_status>(self, [self, op, next](result<proxmox::task_status> t) {
        if (!t) {
          fail_launch(self, op, proxmox_error(t.error()));
          return;
        }
        next();
      }));
}

void start_vm(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  st.api->start_vm(
      op->host, op->vmid, bounce<proxmox::upid>(self, [self, op](result<proxmox::upid> r) {
        result<std::optional<proxmox::upid>> task =
            r ? result<std::optional<proxmox::upid>>(std::optional<proxmox::upid>(*r))
              : result<std::optional<proxmox::upid>>(r.error());
        then_wait(self, op, "start", std::move(task), self->state.cfg.start_wait, [self, op] {
          if (op->req.render_join) {
            join_by_agent(self, op);
            return;
          }
          record_started(self, op);
        });
      }));
}

// The VM as we made it, so placement and adoption see it before the next refresh; then the
// launch's reply.
void record_started(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  vm_record vm;
  vm.vmid = op->vmid;
  vm.node = op->host;
  vm.name = op->req.nodeclaim;
  vm.status = "running";
  vm.synthetic = true;
  vm.epoch = ++st.epoch;
  proxmox::vm_config c;
  if (!op->iso_volid.empty()) c.drives["ide2"] = proxmox::cdrom_drive(op->iso_volid);
  c.name = op->req.nodeclaim;
  ownership_mark mark{st.cfg.cluster_name, op->req.nodeclaim, op->req.nodepool, ""};
  if (op->pinning && !st.cfg.can_set_affinity) mark.affinity = op->pinning->cpus.to_string();
  c.description = format_ownership_mark(mark);
  c.cores = static_cast<unsigned>(op->req.vcpus);
  c.sockets = 1;
  c.memory_mib = op->req.memory_mib;
  c.tags = normalised_tags(op->req.tags);
  if (!op->ipconfig0.empty()) c.ipconfigs[0] = op->ipconfig0;
  vm.pool = op->req.resource_pool;
  if (op->pinning) {
    std::vector<unsigned> cpus;
    for (int cpu : op->pinning->cpus.members()) cpus.push_back(static_cast<unsigned>(cpu));
    if (st.cfg.can_set_affinity) c.affinity = cpus;
  }
  vm.config = std::move(c);
  st.vms[op->vmid] = std::move(vm);
  st.ids.release(op->vmid, true);
  st.reserved.erase(op->vmid);
  launch_reply reply;
  reply.ok = true;
  reply.region = st.cfg.region;
  reply.zone = op->host;
  reply.vmid = op->vmid;
  reply.provider_id = provider_id(st, op->vmid);
  if (op->pinning) reply.affinity = op->pinning->cpus.to_string();
  reply.ipconfig0 = op->ipconfig0;
  reply.agent_requests = op->agent_requests;
  reply.joined_by_agent = op->joined_by_agent;
  finish_launch(self, op, std::move(reply));
  refresh(self);
}

// --- joining through the QEMU guest agent (kproximate's kpQemuExecJoin) ------------------------

proxmox::task_wait_options agent_wait_of(const region_state& st) {
  return st.cfg.agent_wait.value_or(st.cfg.start_wait);
}

// The command and its output may hold the bootstrap token (redact.hpp).
std::string scrubbed(const launch_op& op, std::string text) {
  return redact_join_text(std::move(text), op.join_command);
}

void fail_join(self_ptr self, const std::shared_ptr<launch_op>& op, std::string message) {
  op->join_command.clear();
  fail_launch(self, op, {"join_failed", std::move(message)});
}

// Runs `next` after the current poll interval, then grows the interval as the task waits do.
void after_agent_interval(self_ptr self, const std::shared_ptr<launch_op>& op,
                          std::function<void()> next) {
  auto wait = agent_wait_of(self->state);
  auto delay = op->agent_interval;
  auto grown = std::chrono::milliseconds(
      static_cast<std::int64_t>(static_cast<double>(delay.count()) * wait.multiplier));
  op->agent_interval = std::min(std::max(grown, delay), wait.max_interval);
  auto left = op->agent_deadline - self->clock().now();
  if (left < delay) delay = std::chrono::duration_cast<std::chrono::milliseconds>(left);
  if (delay.count() < 0) delay = std::chrono::milliseconds(0);
  self->delayed_send(self, delay, resume_atom::value, continuation{std::move(next)});
}

bool agent_time_left(self_ptr self, const launch_op& op) {
  return self->clock().now() < op.agent_deadline;
}

std::string vm_words(const launch_op& op) {
  return "VM " + std::to_string(op.vmid) + " on " + op.host;
}

void agent_exec_status(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  st.api->agent_exec_status(
      op->host, op->vmid, op->agent_pid,
      bounce<proxmox::agent_exec_status>(self, [self, op](result<proxmox::agent_exec_status> r) {
        auto timeout_s =
            std::chrono::duration_cast<std::chrono::seconds>(agent_wait_of(self->state).timeout)
                .count();
        if (r && r->exited) {
          int code = r->exitcode.value_or(r->signal ? 128 + *r->signal : -1);
          if (code == 0) {
            op->joined_by_agent = true;
            op->join_command.clear();
            self->state.log.info(
                "joined through the guest agent",
                {{"nodeclaim", op->req.nodeclaim}, {"vmid", std::to_string(op->vmid)}});
            record_started(self, op);
            return;
          }
          auto output = r->err_data.empty() ? r->out_data : r->err_data;
          while (!output.empty() && (output.back() == '\n' || output.back() == '\r'))
            output.pop_back();
          fail_join(self, op,
                    scrubbed(*op, "the join command on " + vm_words(*op) + " exited with code " +
                                      std::to_string(code) +
                                      (output.empty() ? std::string() : ": " + output)));
          return;
        }
        if (!r) op->agent_error = r.error().message;
        if (!agent_time_left(self, *op)) {
          fail_join(
              self, op,
              scrubbed(*op, "the join command on " + vm_words(*op) + " did not finish within " +
                                std::to_string(timeout_s) + "s" +
                                (r ? std::string() : " (last error: " + op->agent_error + ")")));
          return;
        }
        after_agent_interval(self, op, [self, op] { agent_exec_status(self, op); });
      }));
}

void agent_exec(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  // kproximate's form: the command is one argument of bash -c, so it may be a whole script.
  st.api->agent_exec(op->host, op->vmid, {"bash", "-c", op->join_command}, "",
                     bounce<int>(self, [self, op](result<int> pid) {
                       if (!pid) {
                         fail_join(
                             self, op,
                             scrubbed(*op, "agent/exec of the join command on " + vm_words(*op) +
                                               " failed: " + pid.error().message));
                         return;
                       }
                       op->agent_pid = *pid;
                       op->agent_interval = agent_wait_of(self->state).initial_interval;
                       agent_exec_status(self, op);
                     }));
}

void agent_ping(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  ++op->agent_requests;
  st.api->agent_ping(
      op->host, op->vmid,
      resume_in<status>(caf::actor_cast<impl_actor>(self), [self, op](status s) {
        if (s) {
          agent_exec(self, op);
          return;
        }
        op->agent_error = s.error().message;
        // A template without `agent: 1` never gets an agent: no use waiting.
        if (op->agent_error.find("No QEMU guest agent configured") != std::string::npos) {
          fail_join(
              self, op,
              vm_words(*op) + " has no QEMU guest agent configured (the template needs agent: 1)");
          return;
        }
        if (!agent_time_left(self, *op)) {
          auto timeout_s =
              std::chrono::duration_cast<std::chrono::seconds>(agent_wait_of(self->state).timeout)
                  .count();
          fail_join(self, op,
                    scrubbed(*op, "the QEMU guest agent of " + vm_words(*op) +
                                      " did not answer within " + std::to_string(timeout_s) +
                                      "s (last error: " + op->agent_error + ")"));
          return;
        }
        after_agent_interval(self, op, [self, op] { agent_ping(self, op); });
      }));
}

// Renders the join command for the chosen host and VMID, then waits for the agent and runs it.
void join_by_agent(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  auto command = op->req.render_join(st.cfg.region, op->host, op->vmid);
  if (!command) {
    fail_launch(self, op, {"template_error", command.error().message});
    return;
  }
  if (command->empty()) {
    fail_launch(self, op, {"template_error", "the join command rendered empty"});
    return;
  }
  op->join_command = std::move(*command);
  auto wait = agent_wait_of(st);
  op->agent_deadline = self->clock().now() + wait.timeout;
  op->agent_interval = wait.initial_interval;
  agent_ping(self, op);
}

// Security groups at launch (kpp.md 8, without the Go provider's useless GET of the options):
// one PUT of the options, then one POST per group in order, each at its position. Then the
// resize (if any) and the start.
void resize_then_start(self_ptr self, std::shared_ptr<launch_op> op);

void apply_firewall(self_ptr self, std::shared_ptr<launch_op> op, std::size_t next_rule) {
  auto& st = self->state;
  const auto& groups = op->req.security_groups;
  if (groups.empty() || next_rule > groups.size()) {
    resize_then_start(self, op);
    return;
  }
  auto step = resume_in<status>(caf::actor_cast<impl_actor>(self), [self, op, next_rule](status s) {
    if (!s) {
      fail_launch(self, op, proxmox_error(s.error()));
      return;
    }
    apply_firewall(self, op, next_rule + 1);
  });
  if (next_rule == 0) {
    proxmox::firewall_options o;
    o.enable = true;
    o.dhcp = true;
    o.ipfilter = false;
    o.policy_in = "DROP";
    o.policy_out = "ACCEPT";
    st.api->set_firewall_options(op->host, op->vmid, o, std::move(step));
    return;
  }
  const auto& g = groups[next_rule - 1];
  proxmox::firewall_rule rule;
  rule.pos = static_cast<unsigned>(next_rule - 1);
  rule.type = "group";
  rule.action = g.group;
  rule.iface = g.iface.empty() ? "net0" : g.iface;
  rule.enable = true;
  st.api->add_firewall_rule(op->host, op->vmid, rule, std::move(step));
}

void resize_then_start(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  auto tmpl = st.vms.find(op->template_vmid);
  if (op->req.disk_gib == 0 || tmpl == st.vms.end() || !tmpl->second.config) {
    start_vm(self, op);
    return;
  }
  auto disk = boot_disk(*tmpl->second.config);
  if (!disk || drive_size_gib(tmpl->second.config->drives.at(*disk)) >= op->req.disk_gib) {
    start_vm(self, op);
    return;
  }
  st.api->resize_disk(op->host, op->vmid, *disk, std::to_string(op->req.disk_gib) + "G",
                      bounce<std::optional<proxmox::upid>>(
                          self, [self, op](result<std::optional<proxmox::upid>> r) {
                            then_wait(self, op, "resize", std::move(r), self->state.cfg.clone_wait,
                                      [self, op] { start_vm(self, op); });
                          }));
}

void configure(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  const auto& req = op->req;
  proxmox::vm_config_update u;
  u.cores = static_cast<unsigned>(req.vcpus);
  u.sockets = 1;
  u.memory_mib = req.memory_mib;
  u.tags = normalised_tags(req.tags);
  proxmox::smbios1 smbios;
  smbios.uuid = random_uuid(st.random);
  smbios.sku = req.instance_type;
  smbios.serial = "h=" + req.nodeclaim + ";i=" + std::to_string(op->vmid);
  u.smbios = smbios;
  u.onboot = true;
  auto tmpl = st.vms.find(op->template_vmid);
  if (tmpl != st.vms.end() && tmpl->second.config) {
    for (auto [index, net] : tmpl->second.config->nets) {
      net.queues = static_cast<unsigned>(req.vcpus);
      net.mac.clear();  // a fresh one (the template's would be shared): ours, else Proxmox's
      for (const auto& n : op->nics) {
        if (n.index == index) net.mac = n.mac;
      }
      // Security groups filter on the NIC only when its firewall flag is on.
      for (const auto& g : req.security_groups) {
        if (g.iface == "net" + std::to_string(index)) net.firewall = true;
      }
      u.nets[index] = net;
    }
  }
  if (!op->ipconfig0.empty()) u.ipconfigs[0] = op->ipconfig0;
  if (!req.ssh_keys.empty()) {
    // Proxmox's cloud-init drive takes one key per line (the client URL-encodes them).
    std::string keys;
    for (const auto& k : req.ssh_keys) keys += (keys.empty() ? "" : "\n") + k;
    u.sshkeys = keys;
  }
  if (!op->iso_volid.empty()) u.drives["ide2"] = proxmox::cdrom_drive(op->iso_volid);
  if (op->pinning) {
    u.numa = true;
    std::uint64_t total_mib = req.memory_mib, given = 0;
    for (std::size_t i = 0; i < op->pinning->numa.size(); ++i) {
      const auto& b = op->pinning->numa[i];
      proxmox::numa_node n;
      for (int g = b.first_guest_cpu; g <= b.last_guest_cpu; ++g)
        n.cpus.push_back(static_cast<unsigned>(g));
      n.hostnodes = {static_cast<unsigned>(b.host_node)};
      // Proxmox wants the entries to sum to the VM's memory exactly: the last takes the rest.
      std::uint64_t mib = i + 1 == op->pinning->numa.size()
                              ? total_mib - given
                              : static_cast<std::uint64_t>(b.memory_bytes >> 20);
      given += mib;
      n.memory_mib = mib;
      n.policy = "bind";
      u.numa_nodes[static_cast<unsigned>(i)] = n;
    }
    if (st.cfg.can_set_affinity) {
      std::vector<unsigned> cpus;
      for (int cpu : op->pinning->cpus.members()) cpus.push_back(static_cast<unsigned>(cpu));
      u.affinity = cpus;
    }
  }
  st.api->update_vm_config(op->host, op->vmid, u,
                           bounce<std::optional<proxmox::upid>>(
                               self, [self, op](result<std::optional<proxmox::upid>> r) {
                                 then_wait(self, op, "config", std::move(r),
                                           self->state.cfg.clone_wait,
                                           [self, op] { apply_firewall(self, op, 0); });
                               }));
}

void upload_iso(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  if (op->req.render_iso_network || op->req.render_iso) {
    auto rendered = op->req.render_iso_network
                        ? op->req.render_iso_network(st.cfg.region, op->host, op->vmid, op->nics)
                        : op->req.render_iso(st.cfg.region, op->host, op->vmid);
    if (!rendered) {
      fail_launch(self, op, {"template_error", rendered.error().message});
      return;
    }
    op->req.iso = std::move(*rendered);
  }
  if (op->req.iso.empty()) {
    configure(self, op);
    return;
  }
  auto h = st.hosts.find(op->host);
  if (h == st.hosts.end() || h->second.iso_storages.empty()) {
    fail_launch(self, op, {"proxmox", "no ISO-capable storage on host " + op->host});
    return;
  }
  proxmox::iso_upload up;
  up.node = op->host;
  up.storage = h->second.iso_storages.front();
  up.filename = "user-data-" + std::to_string(op->vmid) + ".iso";
  up.data = op->req.iso;
  op->iso_volid = up.storage + ":iso/" + up.filename;
  st.api->upload(up, bounce<proxmox::upid>(self, [self, op](result<proxmox::upid> r) {
                   if (!r) op->iso_volid.clear();  // nothing was stored
                   result<std::optional<proxmox::upid>> task =
                       r ? result<std::optional<proxmox::upid>>(std::optional<proxmox::upid>(*r))
                         : result<std::optional<proxmox::upid>>(r.error());
                   then_wait(self, op, "upload", std::move(task), self->state.cfg.clone_wait,
                             [self, op] { configure(self, op); });
                 }));
}

void clone(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  proxmox::clone_request c;
  c.node = op->host;
  c.source_vmid = op->template_vmid;
  c.new_vmid = op->vmid;
  c.name = op->req.nodeclaim;
  ownership_mark mark{st.cfg.cluster_name, op->req.nodeclaim, op->req.nodepool, ""};
  if (op->pinning && !st.cfg.can_set_affinity) mark.affinity = op->pinning->cpus.to_string();
  c.description = format_ownership_mark(mark);
  auto tmpl = st.vms.find(op->template_vmid);
  c.full = tmpl == st.vms.end() || !tmpl->second.is_template;  // linked from a template
  c.pool = op->req.resource_pool;  // pool membership in the clone call: no extra request
  ++op->clone_attempts;
  st.api->clone_vm(c, bounce<proxmox::upid>(self, [self, op](result<proxmox::upid> r) {
                     auto& st = self->state;
                     if (!r) {
                       if (r.error().code == "conflict" && op->clone_attempts < 5) {
                         // Someone else took the id since our inventory: pick another.
                         st.ids.mark_taken(op->vmid);
                         st.ids.release(op->vmid, true);
                         auto alloc = st.reserved[op->vmid];
                         st.reserved.erase(op->vmid);
                         auto* h = placement_host(st, op->host);
                         if (h != nullptr) h->remove(static_cast<int>(op->vmid));
                         auto next = st.ids.reserve(vmid_allocator::clock::now());
                         if (!next) {
                           op->vmid = 0;
                           fail_launch(self, op, {"proxmox", "no free VMID"});
                           return;
                         }
                         op->vmid = *next;
                         alloc.second.vmid = static_cast<int>(*next);
                         st.reserved[*next] = alloc;
                         if (h != nullptr) h->add(alloc.second);
                         clone(self, op);
                         return;
                       }
                       fail_launch(self, op, proxmox_error(r.error()));
                       return;
                     }
                     op->cloned = true;
                     st.api->wait_task(*r, st.cfg.clone_wait,
                                       bounce<proxmox::task_status>(
                                           self, [self, op](result<proxmox::task_status> t) {
                                             if (!t) {
                                               fail_launch(self, op, proxmox_error(t.error()));
                                               return;
                                             }
                                             upload_iso(self, op);
                                           }));
                   }));
}

// "BC:24:11" (Proxmox's prefix) and three random bytes, locally chosen like Proxmox does.
std::string random_mac(std::mt19937_64& rng) {
  auto v = rng();
  char buf[18];
  std::snprintf(buf, sizeof buf, "BC:24:11:%02X:%02X:%02X", static_cast<unsigned>(v & 0xff),
                static_cast<unsigned>((v >> 8) & 0xff), static_cast<unsigned>((v >> 16) & 0xff));
  return buf;
}

// The simple IPAM (kpp.md 4.6): when the template's ipconfig0 asks for an address (ip= a
// network address, or ip6= a prefix), the VM's ipconfig0 is chosen here, before the clone, and
// written in the config call. The search starts at the host bridge's address. An empty code:
// nothing to do or done.
region_error assign_address(region_state& st, launch_op& op) {
  auto tmpl = st.vms.find(op.template_vmid);
  if (tmpl == st.vms.end() || !tmpl->second.config) return {};
  const auto& tc = *tmpl->second.config;
  auto text = tc.ipconfigs.find(0);
  if (text == tc.ipconfigs.end()) return {};
  auto parsed = ipam::parse_ipconfig(text->second);
  if (!parsed) return {};  // not ours to judge: Proxmox keeps the template's value
  bool v4 = ipam::simple_ipam::wants_ipv4_allocation(*parsed);
  bool v6 = ipam::simple_ipam::wants_slaac(*parsed);
  if (!v4 && !v6) return {};
  ipam::host_bridge bridge;
  auto net = tc.nets.find(0);
  auto h = st.hosts.find(op.host);
  if (net != tc.nets.end() && h != st.hosts.end() && h->second.network) {
    for (const auto& n : *h->second.network) {
      if (n.iface == net->second.bridge) bridge = {n.cidr, n.gateway};
    }
  }
  // SLAAC derives the address from net0's MAC, chosen by us before the clone.
  std::string mac;
  for (const auto& n : op.nics) {
    if (n.index == 0) mac = n.mac;
  }
  auto a = st.ipam.allocate(text->second, bridge, mac);
  if (!a) {
    return {a.error().code == "ipam_exhausted" ? "no_capacity" : "invalid_request",
            "template '" + op.req.template_name + "' ipconfig0 " + text->second + ": " +
                a.error().message};
  }
  op.ipconfig0 = a->ipconfig;
  if (a->address) op.ip_address = a->address->to_string();
  for (auto& n : op.nics) {
    if (n.index == 0) n.ipconfig = op.ipconfig0;
  }
  return {};
}

// The template's NICs with a MAC of ours each (so cloud-init can name them before the VM
// exists), their ipconfigN and the host bridge they sit on.
std::vector<vm_nic> plan_nics(region_state& st, const launch_op& op) {
  std::vector<vm_nic> out;
  auto tmpl = st.vms.find(op.template_vmid);
  if (tmpl == st.vms.end() || !tmpl->second.config) return out;
  const auto& tc = *tmpl->second.config;
  auto h = st.hosts.find(op.host);
  for (const auto& [index, net] : tc.nets) {
    vm_nic n;
    n.index = index;
    n.mac = random_mac(st.random);
    n.bridge = net.bridge;
    if (auto ip = tc.ipconfigs.find(index); ip != tc.ipconfigs.end()) n.ipconfig = ip->second;
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

// Holds one credit from here to finish_launch.
void begin_launch(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  st.peak_in_flight = std::max(st.peak_in_flight, st.window->in_flight());
  const auto& req = op->req;
  if (auto adopted = adoptable(st, req)) {
    finish_launch(self, op, *adopted);
    return;
  }
  auto strategy = placement::parse_strategy(req.strategy.empty() ? "Balanced" : req.strategy);
  if (!strategy) {
    fail_launch(self, op, {"invalid_request", strategy.error().message});
    return;
  }
  // Hosts that have the template; within the allowed zones.
  std::map<std::string, std::uint32_t> templates;
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_template && vm.name == req.template_name && vm.config) templates[vm.node] = id;
  }
  if (templates.empty()) {
    fail_launch(self, op,
                {"template_missing",
                 "template '" + req.template_name + "' is on no host of region " + st.cfg.region});
    return;
  }
  placement::host_filter filter;
  filter.excluded_hosts = req.excluded_zones;
  for (const auto& [host, id] : templates) {
    (void)id;
    if (req.zones.empty() ||
        std::find(req.zones.begin(), req.zones.end(), host) != req.zones.end()) {
      filter.allowed_hosts.push_back(host);
    }
  }
  if (filter.allowed_hosts.empty()) {
    fail_launch(self, op,
                {"template_missing",
                 "template '" + req.template_name + "' is on none of the allowed zones"});
    return;
  }
  filter.min_free_cpu = req.min_free_cpu;
  filter.min_free_memory = static_cast<std::int64_t>(req.min_free_memory_mib) << 20;
  auto vmid = st.ids.reserve(vmid_allocator::clock::now());
  if (!vmid) {
    fail_launch(self, op, {"proxmox", "no free VMID"});
    return;
  }
  op->vmid = *vmid;
  placement::vm_request want{req.vcpus, static_cast<std::int64_t>(req.memory_mib) << 20};
  auto policy = req.static_cpu_policy || st.cfg.static_cpu_policy
                    ? placement::cpu_policy::static_pinning
                    : placement::cpu_policy::simple;
  auto decision = placement::place_vm(st.placement_hosts, static_cast<int>(*vmid), want, filter,
                                      *strategy, policy, st.cursor);
  if (!decision) {
    st.ids.release(*vmid, false);
    op->vmid = 0;
    fail_launch(self, op, {"no_capacity", decision.error().message});
    return;
  }
  auto& host = st.placement_hosts[decision->host];
  op->host = host.name();
  op->template_vmid = templates[op->host];
  op->pinning = decision->pinned;
  for (const auto& a : host.vms()) {
    if (a.vmid == static_cast<int>(*vmid)) st.reserved[*vmid] = {op->host, a};
  }
  op->nics = plan_nics(st, *op);
  if (auto e = assign_address(st, *op); !e.code.empty()) {
    fail_launch(self, op, std::move(e));
    return;
  }
  clone(self, op);
}

void handle_launch(self_ptr self, launch_request req,
                   caf::typed_response_promise<launch_reply> rp) {
  auto& st = self->state;
  if (req.nodeclaim.empty() || req.vcpus <= 0 || req.memory_mib == 0) {
    launch_reply reply;
    reply.error = {"invalid_request", "a launch needs a NodeClaim name, vCPUs and memory"};
    rp.deliver(reply);
    return;
  }
  if (auto running = st.launching.find(req.nodeclaim); running != st.launching.end()) {
    running->second->waiters.push_back(rp);  // the same NodeClaim again: one VM, two answers
    return;
  }
  if (auto adopted = adoptable(st, req)) {
    rp.deliver(*adopted);
    return;
  }
  auto op = std::make_shared<launch_op>();
  op->req = std::move(req);
  op->waiters.push_back(rp);
  st.launching[op->req.nodeclaim] = op;
  st.window->submit([self, op] { begin_launch(self, op); });
  st.peak_in_flight = std::max(st.peak_in_flight, st.window->in_flight());
}

// --- delete -----------------------------------------------------------------------------------

const vm_record* find_vm(const region_state& st, const delete_request& req) {
  if (req.vmid != 0) {
    auto it = st.vms.find(req.vmid);
    return it == st.vms.end() || it->second.is_template ? nullptr : &it->second;
  }
  for (const auto& [id, vm] : st.vms) {
    (void)id;
    if (vm.is_template || vm.name != req.nodeclaim) continue;
    auto mark = mark_of(vm);
    if (mark && mark->cluster == st.cfg.cluster_name) return &vm;
  }
  return nullptr;
}

void handle_delete(self_ptr self, delete_request req,
                   caf::typed_response_promise<delete_reply> rp) {
  auto& st = self->state;
  const vm_record* vm = find_vm(st, req);
  if (vm == nullptr) {
    delete_reply reply;
    reply.ok = true;
    reply.already_gone = true;
    rp.deliver(reply);
    return;
  }
  std::string node = vm->node;
  std::uint32_t vmid = vm->vmid;
  std::string iso;
  std::vector<std::string> ipconfigs;  // addresses to give back to the IPAM once it is gone
  if (vm->config) {
    for (const auto& [index, text] : vm->config->ipconfigs) {
      (void)index;
      ipconfigs.push_back(text);
    }
    auto d = vm->config->drives.find("ide2");
    if (d != vm->config->drives.end() &&
        d->second.volume.find(":iso/user-data-") != std::string::npos) {
      iso = d->second.volume;
    }
  }
  st.window->submit([self, node, vmid, iso, ipconfigs, rp]() mutable {
    self->state.peak_in_flight =
        std::max(self->state.peak_in_flight, self->state.window->in_flight());
    destroy_vm(self, node, vmid, iso,
               [self, node, vmid, ipconfigs, rp](status s, bool already_gone) mutable {
                 delete_reply reply;
                 if (s) {
                   reply.ok = true;
                   reply.already_gone = already_gone;
                   for (const auto& text : ipconfigs) self->state.ipam.release(text);
                   forget_vm(self, vmid, node);
                 } else {
                   reply.error = proxmox_error(s.error());
                 }
                 rp.deliver(reply);
                 self->state.window->complete();
                 refresh(self);
               });
  });
}

// --- releasing the cloud-init ISO after initialization -----------------------------------------

// Our NoCloud ISO on the VM's ide2, "" when it has none (or another CD-ROM).
std::string user_data_iso(const vm_record& vm) {
  if (!vm.config) return "";
  auto d = vm.config->drives.find("ide2");
  if (d == vm.config->drives.end()) return "";
  if (d->second.volume.find(":iso/user-data-") == std::string::npos) return "";
  return d->second.volume;
}

const vm_record* find_vm_for_iso(const region_state& st, const release_iso_request& req) {
  if (req.vmid != 0) {
    auto it = st.vms.find(req.vmid);
    return it == st.vms.end() || it->second.is_template ? nullptr : &it->second;
  }
  delete_request d;
  d.nodeclaim = req.nodeclaim;
  return find_vm(st, d);
}

void handle_release_iso(self_ptr self, release_iso_request req,
                        caf::typed_response_promise<release_iso_reply> rp) {
  auto& st = self->state;
  const vm_record* vm = find_vm_for_iso(st, req);
  std::string iso = vm == nullptr ? "" : user_data_iso(*vm);
  if (iso.empty()) {
    release_iso_reply reply;
    reply.ok = true;
    reply.nothing_to_do = true;
    rp.deliver(reply);
    return;
  }
  std::string node = vm->node;
  std::uint32_t vmid = vm->vmid;
  st.window->submit([self, node, vmid, iso, rp]() mutable {
    auto finish = [self, vmid, rp](status s) mutable {
      release_iso_reply reply;
      if (s) {
        reply.ok = true;
        auto it = self->state.vms.find(vmid);
        if (it != self->state.vms.end() && it->second.config) {
          it->second.config->drives.erase("ide2");
        }
      } else {
        reply.error = proxmox_error(s.error());
      }
      rp.deliver(reply);
      self->state.window->complete();
    };
    proxmox::vm_config_update u;
    u.remove = {"ide2"};
    self->state.api->update_vm_config(
        node, vmid, u,
        bounce<std::optional<proxmox::upid>>(
            self, [self, node, iso, finish](result<std::optional<proxmox::upid>> r) mutable {
              if (!r) {
                finish(gone(r.error()) ? status{} : status{r.error()});
                return;
              }
              auto then_delete = [self, node, iso, finish]() mutable {
                delete_iso(self, node, iso, [finish]() mutable { finish({}); });
              };
              if (!*r) {
                then_delete();
                return;
              }
              self->state.api->wait_task(
                  **r, self->state.cfg.clone_wait,
                  bounce<proxmox::task_status>(
                      self, [then_delete, finish](result<proxmox::task_status> t) mutable {
                        if (!t) {
                          finish(t.error());
                          return;
                        }
                        then_delete();
                      }));
            }));
  });
}

// --- in-place updates (tags, firewall groups, pool) ----------------------------------------------

struct sync_op {
  sync_vm_request req;
  std::string node;
  std::uint32_t vmid = 0;
  sync_vm_reply reply;
  caf::typed_response_promise<sync_vm_reply> rp;
};

void finish_sync(self_ptr self, const std::shared_ptr<sync_op>& op, std::optional<kp::error> e) {
  if (e) {
    op->reply.ok = false;
    op->reply.error = proxmox_error(*e);
  } else {
    op->reply.ok = true;
  }
  op->rp.deliver(op->reply);
  self->state.window->complete();
}

// Runs `next` after a write that answered (no task), or fails the sync.
std::function<void(status)> sync_step(self_ptr self, std::shared_ptr<sync_op> op,
                                      std::function<void()> next) {
  return resume_in<status>(caf::actor_cast<impl_actor>(self), [self, op, next](status s) {
    if (!s) {
      finish_sync(self, op, s.error());
      return;
    }
    ++op->reply.writes;
    next();
  });
}

// Pool: out of the old one, into the new one (only when they differ); the current pool is read
// fresh from /cluster/resources, as the inventory may be a minute old.
void sync_pool(self_ptr self, std::shared_ptr<sync_op> op) {
  self->state.api->cluster_resources(
      proxmox::resource_type::vm,
      bounce<std::vector<proxmox::cluster_resource>>(
          self, [self, op](result<std::vector<proxmox::cluster_resource>> r) {
            if (!r) {
              finish_sync(self, op, r.error());
              return;
            }
            std::string current;
            for (const auto& res : *r) {
              if (res.vmid == op->vmid && res.type == "qemu") current = res.pool;
            }
            const auto& wanted = op->req.resource_pool;
            if (current == wanted) {
              finish_sync(self, op, std::nullopt);
              return;
            }
            op->reply.changed.push_back("pool");
            auto id = std::to_string(op->vmid);
            auto join = [self, op, id, wanted] {
              if (wanted.empty()) {
                finish_sync(self, op, std::nullopt);
                return;
              }
              auto done = sync_step(self, op, [self, op] { finish_sync(self, op, std::nullopt); });
              self->state.api->call(
                  "PUT", "/pools/" + proxmox::encode_path_segment(wanted), {{"vms", id}},
                  [done](result<std::string> x) { done(x ? status{} : status{x.error()}); });
            };
            if (current.empty()) {
              join();
              return;
            }
            auto left = sync_step(self, op, join);
            self->state.api->call("PUT", "/pools/" + proxmox::encode_path_segment(current),
                                  {{"vms", id}, {"delete", "1"}}, [left](result<std::string> x) {
                                    left(x ? status{} : status{x.error()});
                                  });
          }));
}

using write_fn = std::function<void(std::function<void()>)>;

// One write after another (the firewall's positions depend on the order), then the pool.
void run_writes(self_ptr self, std::shared_ptr<sync_op> op,
                std::shared_ptr<std::vector<write_fn>> writes, std::size_t i) {
  if (i == writes->size()) {
    sync_pool(self, op);
    return;
  }
  (*writes)[i]([self, op, writes, i] { run_writes(self, op, writes, i + 1); });
}

// Group rules are matched by (iface, group): extras are deleted from the highest position
// down (positions shift), missing ones are added on top in reverse so they end in the wanted
// order. Other rule types are the user's and stay.
void sync_rules(self_ptr self, std::shared_ptr<sync_op> op) {
  self->state.api->firewall_rules(
      op->node, op->vmid,
      bounce<std::vector<proxmox::firewall_rule>>(
          self, [self, op](result<std::vector<proxmox::firewall_rule>> r) {
            if (!r) {
              finish_sync(self, op, r.error());
              return;
            }
            std::set<std::pair<std::string, std::string>> wanted, have;
            for (const auto& g : op->req.security_groups) {
              wanted.insert({g.iface.empty() ? "net0" : g.iface, g.group});
            }
            std::vector<unsigned> extras;
            for (const auto& rule : *r) {
              if (rule.type != "group") continue;
              std::pair<std::string, std::string> key{rule.iface.empty() ? "net0" : rule.iface,
                                                      rule.action};
              if (wanted.count(key) != 0 && have.insert(key).second) continue;
              if (rule.pos) extras.push_back(*rule.pos);
            }
            std::sort(extras.rbegin(), extras.rend());
            std::vector<proxmox::firewall_rule> missing;
            for (auto it = op->req.security_groups.rbegin(); it != op->req.security_groups.rend();
                 ++it) {
              std::string iface = it->iface.empty() ? "net0" : it->iface;
              if (have.count({iface, it->group}) != 0) continue;
              have.insert({iface, it->group});  // a group listed twice is added once
              proxmox::firewall_rule rule;
              rule.type = "group";
              rule.action = it->group;
              rule.iface = iface;
              rule.enable = true;
              missing.push_back(rule);
            }
            if (!extras.empty() || !missing.empty()) op->reply.changed.push_back("firewall_rules");
            auto writes = std::make_shared<std::vector<write_fn>>();
            for (unsigned pos : extras) {
              writes->push_back([self, op, pos](std::function<void()> next) {
                auto done = sync_step(self, op, std::move(next));
                self->state.api->call(
                    "DELETE",
                    "/nodes/" + proxmox::encode_path_segment(op->node) + "/qemu/" +
                        std::to_string(op->vmid) + "/firewall/rules/" + std::to_string(pos),
                    {}, [done](result<std::string> x) { done(x ? status{} : status{x.error()}); });
              });
            }
            for (const auto& rule : missing) {
              writes->push_back([self, op, rule](std::function<void()> next) {
                self->state.api->add_firewall_rule(op->node, op->vmid, rule,
                                                   sync_step(self, op, std::move(next)));
              });
            }
            run_writes(self, op, writes, 0);
          }));
}

// Options: enabled when groups are wanted (never turned off: other rules may rely on it).
void sync_firewall(self_ptr self, std::shared_ptr<sync_op> op) {
  if (op->req.security_groups.empty()) {
    sync_rules(self, op);
    return;
  }
  self->state.api->firewall_options(
      op->node, op->vmid,
      bounce<proxmox::firewall_options>(self, [self, op](result<proxmox::firewall_options> r) {
        if (!r) {
          finish_sync(self, op, r.error());
          return;
        }
        if (r->enable.value_or(false)) {
          sync_rules(self, op);
          return;
        }
        op->reply.changed.push_back("firewall_options");
        proxmox::firewall_options o;
        o.enable = true;
        self->state.api->set_firewall_options(
            op->node, op->vmid, o, sync_step(self, op, [self, op] { sync_rules(self, op); }));
      }));
}

// Tags as a set; "karpenter" always, the Go provider's "go-proxmox+cloud-init" kept if present.
void sync_tags(self_ptr self, std::shared_ptr<sync_op> op) {
  self->state.api->vm_config(
      op->node, op->vmid,
      bounce<proxmox::vm_config>(self, [self, op](result<proxmox::vm_config> r) {
        if (!r) {
          finish_sync(self, op, r.error());
          return;
        }
        auto wanted = normalised_tags(op->req.tags);
        for (const auto& t : r->tags) {
          if (t == "go-proxmox+cloud-init") wanted.push_back(t);
        }
        std::set<std::string> want_set(wanted.begin(), wanted.end());
        std::set<std::string> have_set(r->tags.begin(), r->tags.end());
        if (want_set == have_set) {
          sync_firewall(self, op);
          return;
        }
        op->reply.changed.push_back("tags");
        proxmox::vm_config_update u;
        u.tags = std::vector<std::string>(want_set.begin(), want_set.end());
        self->state.api->update_vm_config(
            op->node, op->vmid, u,
            bounce<std::optional<proxmox::upid>>(
                self, [self, op](result<std::optional<proxmox::upid>> w) {
                  if (!w) {
                    finish_sync(self, op, w.error());
                    return;
                  }
                  ++op->reply.writes;
                  auto it = self->state.vms.find(op->vmid);
                  if (it != self->state.vms.end() && it->second.config) {
                    it->second.config->tags = normalised_tags(op->req.tags);
                  }
                  if (!*w) {
                    sync_firewall(self, op);
                    return;
                  }
                  self->state.api->wait_task(**w, self->state.cfg.clone_wait,
                                             bounce<proxmox::task_status>(
                                                 self, [self, op](result<proxmox::task_status> t) {
                                                   if (!t) {
                                                     finish_sync(self, op, t.error());
                                                     return;
                                                   }
                                                   sync_firewall(self, op);
                                                 }));
                }));
      }));
}

void handle_sync(self_ptr self, sync_vm_request req,
                 caf::typed_response_promise<sync_vm_reply> rp) {
  auto& st = self->state;
  delete_request d{req.vmid, req.nodeclaim};
  const vm_record* vm = find_vm(st, d);
  if (vm == nullptr) {
    sync_vm_reply reply;
    reply.error = {"not_found", "no VM " +
                                    (req.vmid != 0 ? std::to_string(req.vmid) : req.nodeclaim) +
                                    " in region " + st.cfg.region};
    rp.deliver(reply);
    return;
  }
  auto op = std::make_shared<sync_op>();
  op->req = std::move(req);
  op->node = vm->node;
  op->vmid = vm->vmid;
  op->rp = rp;
  st.window->submit([self, op] {
    self->state.peak_in_flight =
        std::max(self->state.peak_in_flight, self->state.window->in_flight());
    sync_tags(self, op);
  });
}

// --- queries ------------------------------------------------------------------------------------

std::vector<owned_vm> list_owned(const region_state& st) {
  std::vector<owned_vm> out;
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_template || !vm.config) continue;
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
    } else if (vm.config->description && is_go_provider_description(*vm.config->description)) {
      o.nodeclaim = vm.name;
      o.collectable = false;  // made by the Go provider: adopt, never collect
    } else {
      continue;
    }
    out.push_back(std::move(o));
  }
  return out;
}

region_inventory snapshot(const region_state& st) {
  region_inventory inv;
  inv.region = st.cfg.region;
  inv.refreshed = st.refreshed;
  inv.detail = st.detail;
  for (const auto& [name, h] : st.hosts) {
    (h.online ? inv.hosts_online : inv.hosts_offline).push_back(name);
  }
  for (const auto& [id, vm] : st.vms) {
    (void)id;
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
    inv.capacity.push_back({h.name(), h.online, h.free_cpus(), h.free_memory()});
  }
  inv.unusable_hosts = st.unusable_hosts;
  return inv;
}

impl_actor::behavior_type region_behavior(self_ptr self, std::shared_ptr<proxmox::client> api,
                                          region_settings cfg) {
  auto& st = self->state;
  st.api = std::move(api);
  st.ids = vmid_allocator(cfg.first_vmid, cfg.vmid_quarantine);
  st.windows =
      std::make_unique<credit_windows>(cfg.max_in_flight, "region/" + cfg.region, cfg.metrics);
  st.window = &st.windows->to("proxmox");
  st.cfg = std::move(cfg);
  refresh(self);
  return {
      [self](launch_atom, launch_request req) -> caf::typed_response_promise<launch_reply> {
        auto rp = self->make_response_promise<launch_reply>();
        with_inventory(self, [self, req = std::move(req), rp]() mutable {
          if (!self->state.refreshed) {
            launch_reply reply;
            reply.region = self->state.cfg.region;
            reply.error = {"proxmox", "no inventory of the region yet: " + self->state.detail};
            rp.deliver(reply);
            return;
          }
          handle_launch(self, std::move(req), rp);
        });
        return rp;
      },
      [self](vm_delete_atom, delete_request req) -> caf::typed_response_promise<delete_reply> {
        auto rp = self->make_response_promise<delete_reply>();
        with_inventory(self, [self, req, rp]() mutable {
          if (!self->state.refreshed) {
            delete_reply reply;
            reply.error = {"proxmox", "no inventory of the region yet: " + self->state.detail};
            rp.deliver(reply);
            return;
          }
          if (find_vm(self->state, req) != nullptr) {
            handle_delete(self, req, rp);
            return;
          }
          // Unknown here: look again (it may be newer than the inventory) before calling it gone.
          self->state.after_refresh.push_back(
              [self, req, rp]() mutable { handle_delete(self, req, rp); });
          refresh(self);
        });
        return rp;
      },
      [self](list_owned_atom) -> caf::typed_response_promise<std::vector<owned_vm>> {
        auto rp = self->make_response_promise<std::vector<owned_vm>>();
        with_inventory(
            self, [self, rp]() mutable { rp.deliver(list_owned(self->state)); }, true);
        return rp;
      },
      [self](inventory_atom) -> caf::typed_response_promise<region_inventory> {
        auto rp = self->make_response_promise<region_inventory>();
        with_inventory(self, [self, rp]() mutable { rp.deliver(snapshot(self->state)); });
        return rp;
      },
      [self](release_iso_atom,
             release_iso_request req) -> caf::typed_response_promise<release_iso_reply> {
        auto rp = self->make_response_promise<release_iso_reply>();
        with_inventory(self, [self, req, rp]() mutable {
          if (!self->state.refreshed) {
            release_iso_reply reply;
            reply.error = {"proxmox", "no inventory of the region yet: " + self->state.detail};
            rp.deliver(reply);
            return;
          }
          handle_release_iso(self, req, rp);
        });
        return rp;
      },
      [self](sync_vm_atom, sync_vm_request req) -> caf::typed_response_promise<sync_vm_reply> {
        auto rp = self->make_response_promise<sync_vm_reply>();
        with_inventory(self, [self, req, rp]() mutable {
          if (!self->state.refreshed) {
            sync_vm_reply reply;
            reply.error = {"proxmox", "no inventory of the region yet: " + self->state.detail};
            rp.deliver(reply);
            return;
          }
          handle_sync(self, req, rp);
        });
        return rp;
      },
      [self](refresh_atom) { refresh(self); },
      [self](resume_atom, continuation& c) { c.run(); },
      [self](tick_atom, std::uint64_t generation) {
        if (generation == self->state.timer_generation) refresh(self);
      },
  };
}

}  // namespace

protocol::region_actor spawn_region_actor(caf::actor_system& system,
                                          std::shared_ptr<proxmox::client> client,
                                          region_settings settings) {
  auto impl = system.spawn(region_behavior, std::move(client), std::move(settings));
  return caf::actor_cast<protocol::region_actor>(impl);
}

}  // namespace kp::actors::region
