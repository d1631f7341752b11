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
#include "actors/region/vmid_allocator.hpp"
#include "core/placement/place_vm.hpp"
#include "protocol/proxmox/property_string.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("regiontick")>;
using impl_actor = region_actor::extend<
    caf::reacts_to<resume_atom, continuation>, caf::reacts_to<tick_atom, std::uint64_t>,
    caf::replies_to<release_iso_atom, release_iso_request>::with<release_iso_reply>>;

constexpr const char* capacity_vm_name = "node-capacity";

struct vm_record {
  std::uint32_t vmid = 0;
  std::string node;
  std::string name;
  std::string status;
  bool is_template = false;
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
  return "proxmox://" + st.cfg.region + "/" + std::to_string(vmid);
}

std::optional<ownership_mark> mark_of(const vm_record& vm) {
  if (!vm.config || !vm.config->description) return std::nullopt;
  return parse_ownership_mark(*vm.config->description);
}

bool counts_for_placement(const vm_record& vm) {
  return !vm.is_template && vm.name != capacity_vm_name && vm.config.has_value();
}

// --- placement view -------------------------------------------------------------------------

std::optional<placement::host_topology> topology_of(const region_state& st, const host_record& h) {
  if (!h.status) return std::nullopt;
  const auto& ci = h.status->cpuinfo;
  int sockets = std::max(1, static_cast<int>(ci.sockets));
  int cores_per_socket = std::max(1, static_cast<int>(ci.cores) / sockets);
  for (const auto& [id, vm] : st.vms) {
    (void)id;
    if (vm.node == h.name && vm.name == capacity_vm_name && vm.config) {
      if (auto t = topology_from_capacity_vm(*vm.config, sockets, cores_per_socket)) return t;
    }
  }
  return placement::predict_topology(sockets, static_cast<int>(ci.cpus), cores_per_socket,
                                     static_cast<std::int64_t>(h.status->memory_total));
}

void rebuild_placement(region_state& st) {
  st.placement_hosts.clear();
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
                                      if (old != st.hosts.end()) h.status = old->second.status;
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
          auto& st = self->state;
          // The VM as we made it, so placement and adoption see it before the next refresh.
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
          if (op->pinning && !st.cfg.can_set_affinity)
            mark.affinity = op->pinning->cpus.to_string();
          c.description = format_ownership_mark(mark);
          c.cores = static_cast<unsigned>(op->req.vcpus);
          c.sockets = 1;
          c.memory_mib = op->req.memory_mib;
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
          finish_launch(self, op, std::move(reply));
          refresh(self);
        });
      }));
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
      net.mac.clear();  // the clone has its own MAC; keep it by not sending one?
      u.nets[index] = net;
    }
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
                                           [self, op] { resize_then_start(self, op); });
                               }));
}

void upload_iso(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  if (op->req.render_iso) {
    auto rendered = op->req.render_iso(st.cfg.region, op->host, op->vmid);
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
  auto policy =
      req.static_cpu_policy ? placement::cpu_policy::static_pinning : placement::cpu_policy::simple;
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
  if (vm->config) {
    auto d = vm->config->drives.find("ide2");
    if (d != vm->config->drives.end() &&
        d->second.volume.find(":iso/user-data-") != std::string::npos) {
      iso = d->second.volume;
    }
  }
  st.window->submit([self, node, vmid, iso, rp]() mutable {
    self->state.peak_in_flight =
        std::max(self->state.peak_in_flight, self->state.window->in_flight());
    destroy_vm(self, node, vmid, iso, [self, node, vmid, rp](status s, bool already_gone) mutable {
      delete_reply reply;
      if (s) {
        reply.ok = true;
        reply.already_gone = already_gone;
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
