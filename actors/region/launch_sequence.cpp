// A launch is a resumable sequence: clone -> ISO upload -> one config write -> disk resize ->
// firewall -> start. A new VM runs it from the top; within that uninterrupted run the replies
// of our own calls are the ownership proof. A VM of this cluster already marked for the
// NodeClaim (a crash, a leader change, a lost reply) is read again (the door) and each step is
// judged from Proxmox alone: the config call done (smbios serial names the NodeClaim and VMID),
// disk size, firewall rules, status. The sequence then goes on from the first missing step, with
// no write beyond what that step needs, and the reply is ok only once the VM runs.
#include <cstdio>

#include "actors/region/clone_kind.hpp"
#include "actors/region/data_disks.hpp"
#include "actors/region/inventory.hpp"
#include "actors/region/pci_passthrough.hpp"
#include "actors/region/region_state.hpp"
#include "core/cloudinit/vm_render.hpp"
#include "core/ownership/vm_mark.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

void step_upload(self_ptr self, std::shared_ptr<launch_op> op);
void step_config(self_ptr self, std::shared_ptr<launch_op> op);
void step_resize(self_ptr self, std::shared_ptr<launch_op> op);
void step_firewall(self_ptr self, std::shared_ptr<launch_op> op);
void step_start(self_ptr self, std::shared_ptr<launch_op> op);
void begin_launch(self_ptr self, std::shared_ptr<launch_op> op);

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

// The smbios serial the config call writes: it names the NodeClaim and the VMID, so a config
// that carries it was written by the launch of this NodeClaim.
std::string smbios_serial(const launch_op& op) {
  return "h=" + op.req.nodeclaim + ";i=" + std::to_string(op.vmid);
}

bool configured(const launch_op& op) {
  return op.current && op.current->smbios && op.current->smbios->serial == smbios_serial(op);
}

void mark_resumed_at(launch_op& op, launch_step step) {
  if (op.resumed && op.resumed_at.empty()) op.resumed_at = step_name(step);
}

ownership::ownership_mark mark_for(const region_state& st, const launch_op& op) {
  ownership::ownership_mark mark{st.cfg.cluster_name, op.req.nodeclaim, op.req.nodepool, ""};
  if (op.pinning && !st.cfg.can_set_affinity) mark.affinity = op.pinning->cpus.to_string();
  return mark;
}

void return_credit(region_state& st, launch_op& op) {
  if (!op.holds_credit) return;
  op.holds_credit = false;
  // The credit may start another operation at once: that one is not part of this launch.
  launch_scope unbound(st, {});
  st.window->complete();
}

// Runs `next` when the step's call succeeded, else fails the launch.
std::function<void(status)> then(self_ptr self, std::shared_ptr<launch_op> op,
                                 std::function<void()> next) {
  return [self, op, next](status s) {
    if (!s) return fail_launch(self, op, proxmox_error(s.error()));
    next();
  };
}

// --- steps -------------------------------------------------------------------------------------

// Full or linked (clone_kind.hpp), from the template as the inventory knows it: a source that
// is not a template is always copied in full.
result<bool> clone_kind_for(const region_state& st, const launch_op& op) {
  auto tmpl = st.vms.find(op.template_vmid);
  if (tmpl == st.vms.end() || !tmpl->second.is_template) {
    return full_clone(op.req.clone_mode == "linked" ? "" : op.req.clone_mode, false, "", "");
  }
  std::string volume, type;
  if (tmpl->second.config) {
    if (auto boot = boot_disk(*tmpl->second.config)) {
      volume = tmpl->second.config->drives.at(*boot).volume;
      if (auto t = st.storage_types.find(volume.substr(0, volume.find(':')));
          t != st.storage_types.end()) {
        type = t->second;
      }
    }
  }
  return full_clone(op.req.clone_mode, true, type, volume);
}

void clone_vm(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  proxmox::clone_request c;
  c.node = op->host;
  c.source_vmid = op->template_vmid;
  c.new_vmid = op->vmid;
  c.name = op->req.nodeclaim;
  // The mark is written by the clone itself: a crash right after it leaves a VM we recognise.
  c.description = ownership::format_ownership_mark(mark_for(st, *op));
  auto full = clone_kind_for(st, *op);
  if (!full) return fail_launch(self, op, {full.error().code, full.error().message});
  c.full = *full;
  c.pool = op->req.resource_pool;  // pool membership in the clone call: no extra request
  if (op->clone_attempts == 0) op->timeline = {self->clock().now(), {}, {}, {}, c.full};
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
                           return fail_launch(self, op, {"proxmox", "no free VMID"});
                         }
                         op->vmid = *next;
                         alloc.second.vmid = static_cast<int>(*next);
                         st.reserved[*next] = alloc;
                         if (h != nullptr) h->add(alloc.second);
                         return clone_vm(self, op);
                       }
                       return fail_launch(self, op, proxmox_error(r.error()));
                     }
                     op->cloned = true;
                     st.cloning.insert(op->vmid);
                     wait_task(self, *r, st.cfg.clone_wait, [self, op](status s) {
                       self->state.cloning.erase(op->vmid);
                       op->timeline.cloned = self->clock().now();
                       then(self, op, [self, op] { step_upload(self, op); })(s);
                     });
                   }));
}

cloudinit::vm_placement placement_of(const region_state& st, const launch_op& op) {
  return {st.cfg.region, op.host, op.vmid, provider_id(st, op.vmid), op.nics};
}

// Renders the ISO for this host, VMID and NICs and uploads it (again, when a launch resumes
// before its config call: the NICs are chosen anew then).
void step_upload(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  if (!op->req.cloud_init || configured(*op)) return step_config(self, op);
  auto rendered = cloudinit::render_nocloud_iso(*op->req.cloud_init, placement_of(st, *op));
  if (!rendered) return fail_launch(self, op, {"template_error", rendered.error().message});
  auto h = st.hosts.find(op->host);
  if (h == st.hosts.end() || h->second.iso_storages.empty()) {
    return fail_launch(self, op, {"proxmox", "no ISO-capable storage on host " + op->host});
  }
  mark_resumed_at(*op, launch_step::upload);
  proxmox::iso_upload up;
  up.node = op->host;
  up.storage = h->second.iso_storages.front();
  up.filename = iso_name_for(st, op->vmid, op->req.nodeclaim);
  up.data = std::move(*rendered);
  op->iso_volid = up.storage + ":iso/" + up.filename;
  st.api->upload(up, bounce<proxmox::upid>(self, [self, op](result<proxmox::upid> r) {
                   if (!r) op->iso_volid.clear();  // nothing was stored
                   wait_started_task(self, std::move(r), self->state.cfg.clone_wait,
                                     then(self, op, [self, op] { step_config(self, op); }));
                 }));
}

proxmox::vm_config_update config_update(region_state& st, const launch_op& op) {
  const auto& req = op.req;
  proxmox::vm_config_update u;
  u.cores = static_cast<unsigned>(req.vcpus);
  u.sockets = 1;
  u.memory_mib = req.memory_mib;
  u.tags = normalised_tags(req.tags);
  proxmox::smbios1 smbios;
  smbios.uuid = random_uuid(st.random);
  smbios.sku = req.instance_type;
  smbios.serial = smbios_serial(op);
  u.smbios = smbios;
  u.onboot = true;
  if (op.base_config) {
    for (auto [index, net] : op.base_config->nets) {
      net.queues = static_cast<unsigned>(req.vcpus);
      net.mac.clear();  // a fresh one (the template's would be shared): ours, else Proxmox's
      for (const auto& n : op.nics) {
        if (n.index == index) net.mac = n.mac;
      }
      // Security groups filter on the NIC only when its firewall flag is on.
      for (const auto& g : req.security_groups) {
        if (g.iface == "net" + std::to_string(index)) net.firewall = true;
      }
      u.nets[index] = net;
    }
  }
  if (!op.ipconfig0.empty()) u.ipconfigs[0] = op.ipconfig0;
  if (!req.ssh_keys.empty()) {
    // Proxmox's cloud-init drive takes one key per line (the client URL-encodes them).
    std::string keys;
    for (const auto& k : req.ssh_keys) keys += (keys.empty() ? "" : "\n") + k;
    u.sshkeys = keys;
  }
  if (!op.iso_volid.empty()) u.drives["ide2"] = proxmox::cdrom_drive(op.iso_volid);
  for (const auto& [key, drive] : op.data_drives) u.drives[key] = drive;
  for (const auto& [key, value] : op.hostpci) u.raw.emplace_back(key, value);
  if (op.pinning) {
    u.numa = true;
    std::uint64_t total_mib = req.memory_mib, given = 0;
    for (std::size_t i = 0; i < op.pinning->numa.size(); ++i) {
      const auto& b = op.pinning->numa[i];
      proxmox::numa_node n;
      for (int g = b.first_guest_cpu; g <= b.last_guest_cpu; ++g)
        n.cpus.push_back(static_cast<unsigned>(g));
      n.hostnodes = {static_cast<unsigned>(b.host_node)};
      // Proxmox wants the entries to sum to the VM's memory exactly: the last takes the rest.
      std::uint64_t mib = i + 1 == op.pinning->numa.size()
                              ? total_mib - given
                              : static_cast<std::uint64_t>(b.memory_bytes >> 20);
      given += mib;
      n.memory_mib = mib;
      n.policy = "bind";
      u.numa_nodes[static_cast<unsigned>(i)] = n;
    }
    if (st.cfg.can_set_affinity) {
      std::vector<unsigned> cpus;
      for (int cpu : op.pinning->cpus.members()) cpus.push_back(static_cast<unsigned>(cpu));
      u.affinity = cpus;
    }
  }
  // A resumed launch writes over the config it read (the door), and only over that one.
  if (op.current) u.digest = op.current->digest;
  return u;
}

// The additionalDisks as drives after the disks of the config the clone started from (the
// template's, or a resumed clone's own before its config call), and the pciDevices as the
// hostpciN entries it leaves free.
region_error plan_data_disks(launch_op& op) {
  const auto base = op.base_config.value_or(proxmox::vm_config{});
  auto drives = data_disk_drives(base, op.req.data_disks);
  if (!drives) return {drives.error().code, drives.error().message};
  op.data_drives = std::move(*drives);
  // The pciDevices as the next free hostpciN entries of the same write.
  auto hostpci = hostpci_entries(base, op.req.pci_devices);
  if (!hostpci) return {hostpci.error().code, hostpci.error().message};
  op.hostpci = std::move(*hostpci);
  return {};
}

void step_config(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  if (configured(*op)) return step_resize(self, op);
  if (auto e = plan_data_disks(*op); !e.code.empty()) return fail_launch(self, op, e);
  mark_resumed_at(*op, launch_step::config);
  st.api->update_vm_config(op->host, op->vmid, config_update(st, *op),
                           bounce<std::optional<proxmox::upid>>(
                               self, [self, op](result<std::optional<proxmox::upid>> r) {
                                 wait_optional_task(
                                     self, std::move(r), self->state.cfg.clone_wait,
                                     then(self, op, [self, op] { step_resize(self, op); }));
                               }));
}

void step_resize(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  // The disk as it is: the VM's own when read, else the template's (a fresh clone has its disk).
  const proxmox::vm_config* disks = op->current ? &*op->current : nullptr;
  auto tmpl = st.vms.find(op->template_vmid);
  if (disks == nullptr && tmpl != st.vms.end() && tmpl->second.config) {
    disks = &*tmpl->second.config;
  }
  if (op->req.disk_gib == 0 || disks == nullptr) return step_firewall(self, op);
  auto disk = boot_disk(*disks);
  if (!disk || drive_size_gib(disks->drives.at(*disk)) >= op->req.disk_gib) {
    return step_firewall(self, op);
  }
  mark_resumed_at(*op, launch_step::resize);
  st.api->resize_disk(op->host, op->vmid, *disk, std::to_string(op->req.disk_gib) + "G",
                      bounce<std::optional<proxmox::upid>>(
                          self, [self, op](result<std::optional<proxmox::upid>> r) {
                            wait_optional_task(
                                self, std::move(r), self->state.cfg.clone_wait,
                                then(self, op, [self, op] { step_firewall(self, op); }));
                          }));
}

// Security groups (kpp.md 8, without the Go provider's useless GET of the options): one PUT of
// the options, then one POST per group missing, in order, each at its position. A resumed
// launch reads the rules first and adds only the missing ones.
void add_rules(self_ptr self, std::shared_ptr<launch_op> op, std::vector<std::size_t> missing,
               std::size_t next, bool options) {
  auto& st = self->state;
  const auto& groups = op->req.security_groups;
  auto step = bounce_status(self, [self, op, missing, next, options](status s) {
    if (!s) return fail_launch(self, op, proxmox_error(s.error()));
    add_rules(self, op, missing, options ? next : next + 1, false);
  });
  if (options) {
    proxmox::firewall_options o;
    o.enable = true;
    o.dhcp = true;
    o.ipfilter = false;
    o.policy_in = "DROP";
    o.policy_out = "ACCEPT";
    st.api->set_firewall_options(op->host, op->vmid, o, std::move(step));
    return;
  }
  if (next >= missing.size()) return step_start(self, op);
  const auto& g = groups[missing[next]];
  proxmox::firewall_rule rule;
  rule.pos = static_cast<unsigned>(missing[next]);
  rule.type = "group";
  rule.action = g.group;
  rule.iface = g.iface.empty() ? "net0" : g.iface;
  rule.enable = true;
  st.api->add_firewall_rule(op->host, op->vmid, rule, std::move(step));
}

void step_firewall(self_ptr self, std::shared_ptr<launch_op> op) {
  const auto& groups = op->req.security_groups;
  if (groups.empty()) return step_start(self, op);
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < groups.size(); ++i) all.push_back(i);
  if (!op->resumed) return add_rules(self, op, all, 0, true);
  self->state.api->firewall_rules(
      op->host, op->vmid,
      bounce<std::vector<proxmox::firewall_rule>>(
          self, [self, op, all](result<std::vector<proxmox::firewall_rule>> r) {
            if (!r) return fail_launch(self, op, proxmox_error(r.error()));
            std::vector<std::size_t> missing;
            const auto& groups = op->req.security_groups;
            for (std::size_t i = 0; i < groups.size(); ++i) {
              auto iface = groups[i].iface.empty() ? "net0" : groups[i].iface;
              bool present = false;
              for (const auto& rule : *r) {
                present = present || (rule.type == "group" && rule.action == groups[i].group &&
                                      (rule.iface.empty() ? "net0" : rule.iface) == iface);
              }
              if (!present) missing.push_back(i);
            }
            if (missing.empty()) return step_start(self, op);
            mark_resumed_at(*op, launch_step::firewall);
            // The options went first: with rules missing, write them again (one PUT).
            add_rules(self, op, missing, 0, true);
          }));
}

void start_now(self_ptr self, std::shared_ptr<launch_op> op) {
  mark_resumed_at(*op, launch_step::start);
  op->timeline.configured = self->clock().now();
  self->state.api->start_vm(op->host, op->vmid,
                            bounce<proxmox::upid>(self, [self, op](result<proxmox::upid> r) {
                              wait_started_task(self, std::move(r), self->state.cfg.start_wait,
                                                then(self, op, [self, op] {
                                                  op->started_now = true;
                                                  op->timeline.started = self->clock().now();
                                                  if (op->req.agent_join)
                                                    return join_by_agent(self, op);
                                                  record_started(self, op);
                                                }));
                            }));
}

void step_start(self_ptr self, std::shared_ptr<launch_op> op) {
  if (!op->resumed) return start_now(self, op);
  self->state.api->vm_status(
      op->host, op->vmid,
      bounce<proxmox::vm_status>(self, [self, op](result<proxmox::vm_status> s) {
        if (!s) return fail_launch(self, op, proxmox_error(s.error()));
        // Already running: started before the interruption (a join command ran then, if any).
        if (s->status == "running") return record_started(self, op);
        start_now(self, op);
      }));
}

// --- resuming ------------------------------------------------------------------------------------

launch_reply adopted_reply(const region_state& st, const launch_op& op,
                           const proxmox::vm_config& config) {
  launch_reply reply;
  reply.ok = true;
  reply.adopted = true;
  reply.region = st.cfg.region;
  reply.zone = op.host;
  reply.vmid = op.vmid;
  reply.provider_id = provider_id(st, op.vmid);
  if (auto ip = config.ipconfigs.find(0); ip != config.ipconfigs.end()) {
    reply.ipconfig0 = ip->second;
  }
  if (config.affinity) {
    std::vector<unsigned> cpus = *config.affinity;
    reply.affinity = proxmox::format_cpu_list(cpus);
  } else {
    reply.affinity = ownership::description_affinity(config.description.value_or(""));
  }
  return reply;
}

// The VM marked for this NodeClaim: read it again and go on from its first missing step.
void resume(self_ptr self, std::shared_ptr<launch_op> op, std::uint32_t vmid, int lock_waits) {
  check_vm(self, vmid, {op->req.nodeclaim, false}, [self, op, vmid, lock_waits](vm_check c) {
    auto& st = self->state;
    switch (c.what) {
      case verdict::unknown:
        return fail_launch(self, op, unknown_error(c));
      case verdict::gone:
      case verdict::foreign:
      case verdict::adopted:
        // Not ours any more (gone, or its VMID holds another VM now): a new VM.
        st.log.info(
            "the VM marked for the NodeClaim is gone; launching a new one",
            {{"nodeclaim", op->req.nodeclaim}, {"vmid", std::to_string(vmid)}, {"reason", c.why}});
        op->resumed = false;
        return begin_launch(self, op);
      case verdict::ours:
        break;
    }
    if (c.config.lock && !c.config.lock->empty()) {
      // A clone (or another task) still runs on it, maybe by another replica: wait for it.
      auto interval = st.cfg.clone_wait.max_interval;
      auto limit = std::max<std::int64_t>(
          1, st.cfg.clone_wait.timeout.count() / std::max<std::int64_t>(1, interval.count()));
      if (lock_waits >= limit) {
        return fail_launch(
            self, op,
            {"proxmox", "VM " + std::to_string(vmid) + " stays locked (" + *c.config.lock + ")"});
      }
      return after(self, interval,
                   [self, op, vmid, lock_waits] { resume(self, op, vmid, lock_waits + 1); });
    }
    op->vmid = vmid;
    op->host = c.node;
    op->cloned = true;
    op->resumed = true;
    op->current = c.config;
    st.log.info("resuming the launch of an existing VM",
                {{"nodeclaim", op->req.nodeclaim},
                 {"vmid", std::to_string(vmid)},
                 {"host", op->host},
                 {"configured", configured(*op) ? "true" : "false"}});
    if (!configured(*op)) {
      // Before its config call the clone still has the template's NICs and ipconfig.
      op->base_config = c.config;
      return plan_network(self, op, [self, op] { step_upload(self, op); });
    }
    for (const auto& [index, text] : c.config.ipconfigs) {
      if (index == 0) op->ipconfig0 = text;
    }
    step_upload(self, op);
  });
}

// A VM Proxmox is cloning with no name or mark yet that this actor did not start: an earlier
// incarnation's clone for this NodeClaim, maybe. Only a NodeClaim created before this actor
// started can have one (0: its creation time is unknown, so it may).
std::optional<std::uint32_t> unknown_clone(const region_state& st, const launch_op& op) {
  if (op.req.created_unix_ms != 0 && op.req.created_unix_ms >= st.started_unix_ms) return {};
  for (const auto& [id, vm] : st.vms) {
    if (is_unmarked_clone(vm) && !st.cloning.count(id) && !st.reserved.count(id)) return id;
  }
  return {};
}

// Polls at the clone wait's interval, on a fresh listing each time, until the clone finished
// (then its mark shows whose it is and begin_launch adopts or places) or the clone wait's
// timeout passed: then the launch fails and places nothing (the caller tries again).
void wait_for_unknown_clone(self_ptr self, std::shared_ptr<launch_op> op, std::uint32_t vmid) {
  auto& st = self->state;
  auto interval = std::max(st.cfg.clone_wait.max_interval, std::chrono::milliseconds(1));
  auto limit = std::max<std::int64_t>(1, st.cfg.clone_wait.timeout.count() / interval.count());
  if (op->unknown_clone_waits >= limit) {
    return fail_launch(self, op,
                       {"proxmox", "VM " + std::to_string(vmid) +
                                       " is still being cloned with no name or mark: it may be "
                                       "this NodeClaim's from before a restart; not placing "
                                       "another VM until its clone finishes"});
  }
  if (op->unknown_clone_waits == 0) {
    st.log.info("waiting for a clone that may be this NodeClaim's from before a restart",
                {{"nodeclaim", op->req.nodeclaim}, {"vmid", std::to_string(vmid)}});
  }
  ++op->unknown_clone_waits;
  after(self, interval,
        [self, op] { with_fresh_inventory(self, [self, op] { begin_launch(self, op); }); });
}

// Holds one credit from here to finish_launch.
void begin_launch(self_ptr self, std::shared_ptr<launch_op> op) {
  auto& st = self->state;
  note_in_flight(st);
  const auto& req = op->req;
  if (!op->resumed && op->vmid == 0) {
    // A VM of ours for this NodeClaim (the expected VMID first), or the Go provider's there.
    std::optional<std::uint32_t> found;
    std::string unknown;
    for (const auto& [id, vm] : st.vms) {
      if (vm.is_template || vm.is_container) continue;
      auto mark = mark_of(vm);
      if (mark && mark->cluster == st.cfg.cluster_name && mark->nodeclaim == req.nodeclaim) {
        if (!found || id == req.expected_vmid) found = id;
      } else if (!mark && vm.name == req.nodeclaim && (!vm.config || !vm.config_error.empty())) {
        unknown = "VM " + std::to_string(id) + " named " + vm.name +
                  " may be this NodeClaim's but cannot be read: " +
                  (vm.config_error.empty() ? "not read yet" : vm.config_error);
      }
    }
    if (found) return resume(self, op, *found, 0);
    if (!unknown.empty()) return fail_launch(self, op, {"unknown", unknown});
    if (auto it = st.vms.find(req.expected_vmid); req.expected_vmid != 0 && it != st.vms.end()) {
      const auto& vm = it->second;
      if (vm.config && !mark_of(vm) && vm.name == req.nodeclaim && vm.config->description &&
          ownership::is_go_provider_description(*vm.config->description)) {
        op->vmid = vm.vmid;
        op->host = vm.node;
        return finish_launch(self, op, adopted_reply(st, *op, *vm.config));
      }
    }
    if (auto cloning = unknown_clone(st, *op)) return wait_for_unknown_clone(self, op, *cloning);
  }
  op->resumed = false;
  op->vmid = 0;
  if (auto e = place_new_vm(self, *op); !e.code.empty()) return fail_launch(self, op, e);
  // Disks that cannot be written fail here, before a clone is made for nothing.
  if (auto e = plan_data_disks(*op); !e.code.empty()) return fail_launch(self, op, e);
  plan_network(self, op, [self, op] { clone_vm(self, op); });
}

}  // namespace

void finish_launch(self_ptr self, const std::shared_ptr<launch_op>& op, launch_reply reply) {
  auto& st = self->state;
  // By identity: a launch that ended early may have a successor for the same NodeClaim.
  if (auto it = st.launching.find(op->req.nodeclaim);
      it != st.launching.end() && it->second == op) {
    st.launching.erase(it);
  }
  for (auto& w : op->waiters) w.deliver(reply);
  op->waiters.clear();
  return_credit(st, *op);
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
    return finish_launch(self, op, std::move(reply));
  }
  // No half-made VM is left behind (it is ours: we made it, or its mark was just read).
  auto iso = op->iso_volid;
  destroy_vm(self, op->host, op->vmid, iso, [self, op, reply](status s, bool) mutable {
    if (!s) reply.error.message += " (and removing the VM failed: " + s.error().message + ")";
    self->state.ids.release(op->vmid, false);
    forget_vm(self, op->vmid, op->host);
    finish_launch(self, op, std::move(reply));
    refresh(self);
  });
}

// The VM as we made it, so placement and adoption see it before the next refresh; then the
// launch's reply.
void record_started(self_ptr self, const std::shared_ptr<launch_op>& op) {
  auto& st = self->state;
  vm_record vm;
  vm.vmid = op->vmid;
  vm.node = op->host;
  vm.name = op->req.nodeclaim;
  vm.status = "running";
  vm.synthetic = true;
  vm.launch_recorded_at = self->clock().now();
  // Our own clone (not a resumed one): its origin is known without reading its disks.
  if (!op->resumed && op->timeline.clone_sent) {
    vm.cloned_from = vm_record::clone_origin{op->template_vmid, !op->timeline.full_clone};
  }
  vm.epoch = ++st.epoch;
  proxmox::vm_config c = op->current.value_or(proxmox::vm_config{});
  if (!op->iso_volid.empty()) c.drives["ide2"] = proxmox::cdrom_drive(op->iso_volid);
  c.name = op->req.nodeclaim;
  if (!op->resumed) c.description = ownership::format_ownership_mark(mark_for(st, *op));
  c.cores = static_cast<unsigned>(op->req.vcpus);
  c.sockets = 1;
  c.memory_mib = op->req.memory_mib;
  c.tags = normalised_tags(op->req.tags);
  if (!op->ipconfig0.empty()) c.ipconfigs[0] = op->ipconfig0;
  // The devices it holds, until the next refresh reads them from Proxmox.
  for (const auto& [key, value] : op->hostpci) c.raw[key] = value;
  vm.pool = op->req.resource_pool;
  if (op->pinning && !op->resumed && st.cfg.can_set_affinity) {
    std::vector<unsigned> cpus;
    for (int cpu : op->pinning->cpus.members()) cpus.push_back(static_cast<unsigned>(cpu));
    c.affinity = cpus;
  }
  vm.config = std::move(c);
  st.vms[op->vmid] = std::move(vm);
  st.ids.release(op->vmid, true);
  st.reserved.erase(op->vmid);
  launch_reply reply;
  reply.ok = true;
  reply.adopted = op->resumed;
  reply.resumed_at = op->resumed_at;
  reply.region = st.cfg.region;
  reply.zone = op->host;
  reply.vmid = op->vmid;
  reply.provider_id = provider_id(st, op->vmid);
  if (op->pinning) reply.affinity = op->pinning->cpus.to_string();
  if (op->resumed && op->current) {
    reply.affinity = adopted_reply(st, *op, *op->current).affinity;
  }
  reply.ipconfig0 = op->ipconfig0;
  reply.agent_requests = op->agent_requests;
  reply.joined_by_agent = op->joined_by_agent;
  reply.steps = step_times(op->timeline, self->clock().now());
  // The inventory learnt this VM from our own calls (a delta): no listing per launch. The
  // door's read before the ISO detach replaces the synthetic config, or a refresh once it is
  // older than launched_config_max_age.
  finish_launch(self, op, std::move(reply));
}

void handle_launch(self_ptr self, launch_request req,
                   caf::typed_response_promise<launch_reply> rp) {
  auto& st = self->state;
  auto invalid = [&](std::string why) {
    launch_reply reply;
    reply.region = st.cfg.region;
    reply.error = {"invalid_request", std::move(why)};
    rp.deliver(reply);
  };
  if (req.nodeclaim.empty() || req.vcpus <= 0 || req.memory_mib == 0) {
    return invalid("a launch needs a NodeClaim name, vCPUs and memory");
  }
  if (req.cloud_init && req.agent_join) {
    return invalid("a launch joins through the CD-ROM or the guest agent, not both");
  }
  if (auto running = st.launching.find(req.nodeclaim); running != st.launching.end()) {
    running->second->waiters.push_back(rp);  // the same NodeClaim again: one VM, two answers
    return;
  }
  auto op = std::make_shared<launch_op>();
  op->req = std::move(req);
  op->waiters.push_back(rp);
  st.launching[op->req.nodeclaim] = op;
  auto enter = [self, op] {
    self->state.window->submit([self, op] {
      op->holds_credit = true;
      if (op->faults > 0) return return_credit(self->state, *op);  // ended while it queued
      run_for_launch(self, op, [&] { begin_launch(self, op); });
    });
    note_in_flight(self->state);
  };
  auto not_ready = [self, op] {
    auto& st = self->state;
    st.launching.erase(op->req.nodeclaim);
    launch_reply reply;
    reply.region = st.cfg.region;
    reply.error = {"not_ready",
                   "the VMIDs NodeClaims name are not known yet; nothing is allocated before"};
    for (auto& w : op->waiters) w.deliver(reply);
  };
  // Nothing is allocated before the VMIDs NodeClaims name are known, and a new leader lists
  // Proxmox once before it allocates (a VM the old leader was making is then found and resumed).
  run_for_launch(self, op, [&] {
    when_claims_known(
        self,
        [self, op, enter] {
          if (!self->state.list_before_allocate) return enter();
          with_fresh_inventory(self, [self, op, enter] {
            auto& st = self->state;
            if (!st.detail.empty()) {
              st.launching.erase(op->req.nodeclaim);
              launch_reply reply;
              reply.region = st.cfg.region;
              reply.error = {"proxmox",
                             "listing the region before allocating failed: " + st.detail};
              for (auto& w : op->waiters) w.deliver(reply);
              return;
            }
            st.list_before_allocate = false;
            enter();
          });
        },
        not_ready);
  });
}

}  // namespace kp::actors::region
