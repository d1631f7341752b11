// The managed templates' VM work, through the region like every other Proxmox operation: one
// observation (hosts, storages, import files, our template VMs, linked clones) and one request
// per step. Each holds a credit of the window; VMIDs come from the region's allocator; a step
// that changes or destroys a VM reads its config in the same step and goes ahead only when its
// template mark names this cluster and the request's template.
#include <algorithm>
#include <set>

#include "actors/region/region_state.hpp"
#include "core/ownership/template_mark.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

using step_promise = caf::typed_response_promise<template_step_reply>;

bool lists_content(std::string_view list, std::string_view content) {
  while (true) {
    auto comma = list.find(',');
    auto item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == content) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// Whether `description` carries a template mark of this cluster for `template_name`.
bool marked_for(const region_state& st, const std::string& description,
                const std::string& template_name) {
  auto mark = ownership::parse_template_mark(description);
  return mark && mark->cluster == st.cfg.cluster_name && mark->template_name == template_name;
}

void reply_step(self_ptr self, step_promise rp, template_step_reply r, bool changed) {
  rp.deliver(r);
  self->state.window->complete();
  if (changed) refresh(self);
}

template_step_reply step_error(region_error e, std::uint32_t vmid = 0) {
  template_step_reply r;
  r.error = std::move(e);
  r.vmid = vmid;
  return r;
}

template_step_reply step_ok(std::uint32_t vmid) {
  template_step_reply r;
  r.ok = true;
  r.vmid = vmid;
  return r;
}

// Holds a credit, checks the template VM, runs `act` when it is ours; a refusal otherwise.
void checked_step(self_ptr self, const char* operation, std::uint32_t vmid,
                  std::string template_name, step_promise rp,
                  std::function<void(vm_check, step_promise)> act) {
  self->state.window->submit([self, operation, vmid, template_name, rp, act] {
    note_in_flight(self->state);
    check_template_vm(
        self, vmid, template_name, [self, operation, template_name, rp, act](vm_check c) {
          switch (c.what) {
            case verdict::ours:
              return act(std::move(c), rp);
            case verdict::gone:
              return reply_step(self, rp, step_error({"not_found", c.why}, c.vmid), false);
            case verdict::unknown:
              return reply_step(self, rp, step_error(unknown_error(c), c.vmid), false);
            default:
              return reply_step(self, rp,
                                step_error(refuse_foreign(self, operation, c,
                                                          "template " + template_name + "'s VM"),
                                           c.vmid),
                                false);
          }
        });
  });
}

// The reply once the step's task ended.
std::function<void(status)> step_done(self_ptr self, step_promise rp, std::uint32_t vmid) {
  return [self, rp, vmid](status s) {
    // The step wrote to the VM: the next observation reads its config again.
    if (auto it = self->state.vms.find(vmid); it != self->state.vms.end()) {
      it->second.config_read_at = {};
    }
    if (!s) return reply_step(self, rp, step_error(proxmox_error(s.error()), vmid), true);
    reply_step(self, rp, step_ok(vmid), true);
  };
}

// A template VM a step of ours created or converted, recorded as the task succeeds: the next
// step and the next observation see it even when the listing under way predates it (and the
// allocator never hands its VMID out again).
void record_template_vm(region_state& st, std::uint32_t vmid, const std::string& node,
                        const std::string& name, const std::string& description, bool is_template) {
  auto& vm = st.vms[vmid];
  vm.vmid = vmid;
  vm.node = node;
  if (!name.empty()) vm.name = name;
  vm.status = "stopped";
  vm.is_template = is_template || vm.is_template;
  proxmox::vm_config c = vm.config.value_or(proxmox::vm_config{});
  if (!name.empty()) c.name = name;
  if (!description.empty()) c.description = description;
  c.is_template = vm.is_template;
  vm.config = std::move(c);
  vm.config_error.clear();
  vm.synthetic = true;  // the next refresh reads the real config
  vm.epoch = ++st.epoch;
  st.ids.mark_taken(vmid);
}

std::string config_value(const std::vector<std::pair<std::string, std::string>>& config,
                         std::string_view key) {
  for (const auto& [k, v] : config) {
    if (k == key) return v;
  }
  return {};
}

// --- observation -----------------------------------------------------------------------------

struct observation_pass {
  template_observe_request req;
  template_observation out;
  std::map<std::string, std::size_t> host_index;
  int pending = 1;
  std::function<void()> then;
  void done() {
    if (--pending == 0) then();
  }
};

// Linked clones of each retired template of ours, from the VM configs the inventory holds.
void count_linked_clones(const region_state& st, template_observation& out) {
  for (auto& t : out.vms) {
    auto mark = ownership::parse_template_mark(t.description);
    if (!mark || !mark->retired) continue;
    t.linked_clones_known = true;
    t.linked_clones = 0;
    auto base = "base-" + std::to_string(t.vmid) + "-disk-";
    for (const auto& [id, vm] : st.vms) {
      if (vm.node != t.host || vm.is_template || vm.is_container) continue;
      if (vm.config && vm.config_error.empty() && vm.synthetic && vm.cloned_from) {
        // One we launched, known by what we cloned it from until its config is read.
        if (vm.cloned_from->linked && vm.cloned_from->template_vmid == t.vmid) ++t.linked_clones;
        continue;
      }
      if (!vm.config || !vm.config_error.empty() || vm.synthetic) {
        // A VM we cannot read may use it; one we made otherwise (a resumed launch, a template
        // step) is known only by what we wrote (no disks) until its config is read.
        t.linked_clones_known = false;
        continue;
      }
      for (const auto& [key, value] : vm.config->raw) {
        if (key.rfind("unused", 0) != 0 && value.find(base) != std::string::npos) {
          ++t.linked_clones;
          break;
        }
      }
    }
  }
}

bool recently_read_template(const region_state& st, const vm_record& vm) {
  return vm.is_template && vm.config && vm.config->is_template && !vm.synthetic &&
         vm.config_error.empty() && st.clock != nullptr &&
         st.clock->now() - vm.config_read_at < st.cfg.template_config_max_age;
}

// A template VM (or one named like a wanted template) whose template mark names this cluster.
void add_if_ours(const region_state& st, observation_pass& pass, std::uint32_t vmid,
                 const std::string& host, const std::string& name, const proxmox::vm_config& c) {
  auto mark = ownership::parse_template_mark(c.description.value_or(""));
  if (!mark || mark->cluster != st.cfg.cluster_name) return;
  template_vm t;
  t.vmid = vmid;
  t.host = host;
  t.name = name;
  t.is_template = c.is_template;
  t.tags = proxmox::format_tags(c.tags);
  t.description = c.description.value_or("");
  pass.out.vms.push_back(std::move(t));
}

void observe(self_ptr self, template_observe_request req,
             caf::typed_response_promise<template_observation> rp) {
  auto& st = self->state;
  auto pass = std::make_shared<observation_pass>();
  pass->req = std::move(req);
  pass->out.region = st.cfg.region;
  pass->then = [self, pass, rp]() mutable {
    count_linked_clones(self->state, pass->out);
    rp.deliver(pass->out);
    self->state.window->complete();
  };
  if (!st.detail.empty()) {
    pass->out.error = st.detail;
    return pass->done();
  }
  pass->out.ok = true;
  for (const auto& [name, h] : st.hosts) {
    if (!h.online()) continue;
    pass->host_index[name] = pass->out.hosts.size();
    template_host th;
    th.host = name;
    // The storages as the inventory's /cluster/resources listed them: no read per host.
    th.storages = h.storages;
    pass->out.hosts.push_back(std::move(th));
    const auto& wanted = pass->req.import_storages;
    for (const auto& info : h.storages) {
      if (std::find(wanted.begin(), wanted.end(), info.storage) == wanted.end() || !info.active ||
          !lists_content(info.content, "import")) {
        continue;
      }
      ++pass->pending;
      std::string host = name;
      st.api->storage_content(
          host, info.storage, "import",
          bounce<std::vector<proxmox::storage_content>>(
              self, [pass, host,
                     storage = info.storage](result<std::vector<proxmox::storage_content>> c) {
                auto& h = pass->out.hosts[pass->host_index[host]];
                if (!c) {
                  h.error = "listing " + storage + " on " + host + " failed: " + c.error().message;
                } else {
                  for (const auto& item : *c) h.import_volids.push_back(item.volid);
                }
                pass->done();
              }));
    }
  }
  // Templates, and VMs named like a wanted template (created, not converted yet): read again.
  const auto& names = pass->req.template_names;
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_container || pass->host_index.count(vm.node) == 0) continue;
    if (!vm.is_template && std::find(names.begin(), names.end(), vm.name) == names.end()) continue;
    std::uint32_t vmid = id;
    std::string host = vm.node, name = vm.name;
    if (recently_read_template(st, vm)) {
      // A template changes only by our steps (which record what they wrote) or by hand: its
      // mark as read within template_config_max_age serves.
      add_if_ours(st, *pass, vmid, host, name, *vm.config);
      continue;
    }
    ++pass->pending;
    st.api->vm_config(host, vmid,
                      bounce<proxmox::vm_config>(
                          self, [self, pass, vmid, host, name](result<proxmox::vm_config> c) {
                            auto& st = self->state;
                            if (c) {
                              remember_config(st, vmid, *c);
                              add_if_ours(st, *pass, vmid, host, name, *c);
                            } else if (!is_gone(c.error())) {
                              // Without the config we cannot tell whether it is ours: plan nothing
                              // there.
                              pass->out.hosts[pass->host_index[host]].error =
                                  "reading the config of VM " + std::to_string(vmid) +
                                  " failed: " + c.error().message;
                            }
                            pass->done();
                          }));
  }
  pass->done();
}

// A VMID from the allocator for a new template VM; "conflict" from Proxmox tries the next one.
void create_with_vmid(self_ptr self, template_create_request req, step_promise rp, int attempt) {
  auto& st = self->state;
  auto vmid = st.ids.reserve(vmid_allocator::clock::now());
  if (!vmid) return reply_step(self, rp, step_error({"proxmox", "no free VMID"}), false);
  proxmox::create_vm_request c;
  c.node = req.host;
  c.vmid = *vmid;
  c.config = req.config;
  st.api->create_vm(
      c, bounce<proxmox::upid>(self, [self, req, rp, attempt, id = *vmid](result<proxmox::upid> r) {
        auto& st = self->state;
        if (!r && r.error().code == "conflict" && attempt < 5) {
          st.ids.mark_taken(id);
          st.ids.release(id, true);
          return create_with_vmid(self, req, rp, attempt + 1);
        }
        if (!r) {
          st.ids.release(id, false);
          return reply_step(self, rp, step_error(proxmox_error(r.error())), false);
        }
        // Started: the id is taken from now on, whatever the task's outcome.
        st.ids.release(id, true);
        wait_task(self, *r, st.cfg.clone_wait, [self, req, rp, id](status s) {
          if (s) {
            record_template_vm(self->state, id, req.host, config_value(req.config, "name"),
                               config_value(req.config, "description"), false);
          }
          step_done(self, rp, id)(s);
        });
      }));
}

void clone_with_vmid(self_ptr self, template_clone_request req, step_promise rp, int attempt) {
  auto& st = self->state;
  auto vmid = st.ids.reserve(vmid_allocator::clock::now());
  if (!vmid) return reply_step(self, rp, step_error({"proxmox", "no free VMID"}), false);
  proxmox::clone_request c;
  c.node = req.host;
  c.source_vmid = req.source_vmid;
  c.new_vmid = *vmid;
  c.name = req.name;
  c.description = req.description;
  c.full = req.full;
  c.target = req.target;
  c.storage = req.storage;
  c.pool = req.pool;
  st.api->clone_vm(
      c, bounce<proxmox::upid>(self, [self, req, rp, attempt, id = *vmid](result<proxmox::upid> r) {
        auto& st = self->state;
        if (!r && r.error().code == "conflict" && attempt < 5) {
          st.ids.mark_taken(id);
          st.ids.release(id, true);
          return clone_with_vmid(self, req, rp, attempt + 1);
        }
        if (!r) {
          st.ids.release(id, false);
          return reply_step(self, rp, step_error(proxmox_error(r.error())), false);
        }
        st.ids.release(id, true);
        st.cloning.insert(id);
        wait_task(self, *r, st.cfg.clone_wait, [self, req, rp, id](status s) {
          self->state.cloning.erase(id);
          if (s) {
            record_template_vm(self->state, id, req.target.empty() ? req.host : req.target,
                               req.name, req.description, false);
          }
          step_done(self, rp, id)(s);
        });
      }));
}

}  // namespace

void handle_template_observe(self_ptr self, template_observe_request req,
                             caf::typed_response_promise<template_observation> rp) {
  // A listing made for this observation, then one credit for the reads it takes.
  with_fresh_inventory(self, [self, req, rp] {
    self->state.window->submit([self, req, rp] {
      note_in_flight(self->state);
      observe(self, req, rp);
    });
  });
}

void handle_template_download(self_ptr self, template_download_request req, step_promise rp) {
  self->state.window->submit([self, req, rp] {
    note_in_flight(self->state);
    self->state.api->download_url(
        req.download, bounce<proxmox::upid>(self, [self, rp](result<proxmox::upid> r) {
          wait_started_task(self, std::move(r), self->state.cfg.download_wait,
                            step_done(self, rp, 0));
        }));
  });
}

void handle_template_create(self_ptr self, template_create_request req, step_promise rp) {
  std::string description;
  for (const auto& [key, value] : req.config) {
    if (key == "description") description = value;
    if (key == "vmid") description.clear();  // the region chooses it
  }
  if (req.host.empty() || !marked_for(self->state, description, req.template_name)) {
    rp.deliver(step_error({"invalid_request",
                           "a template VM is created on a host with a description carrying this "
                           "cluster's template mark for " +
                               req.template_name + " (and no vmid)"}));
    return;
  }
  when_claims_known(
      self,
      [self, req, rp] {
        self->state.window->submit([self, req, rp] {
          note_in_flight(self->state);
          create_with_vmid(self, req, rp, 0);
        });
      },
      [rp]() mutable {
        rp.deliver(step_error({"not_ready", "the VMIDs NodeClaims name are not known yet"}));
      });
}

void handle_template_clone(self_ptr self, template_clone_request req, step_promise rp) {
  if (!marked_for(self->state, req.description, req.template_name)) {
    rp.deliver(step_error(
        {"invalid_request",
         "a clone's description carries this cluster's template mark for " + req.template_name}));
    return;
  }
  when_claims_known(
      self,
      [self, req, rp] {
        checked_step(self, "template_clone", req.source_vmid, req.template_name, rp,
                     [self, req](vm_check, step_promise rp) { clone_with_vmid(self, req, rp, 0); });
      },
      [rp]() mutable {
        rp.deliver(step_error({"not_ready", "the VMIDs NodeClaims name are not known yet"}));
      });
}

void handle_template_convert(self_ptr self, template_convert_request req, step_promise rp) {
  checked_step(
      self, "template_convert", req.vmid, req.template_name, rp,
      [self](vm_check c, step_promise rp) {
        self->state.api->convert_to_template(
            c.node, c.vmid, bounce<proxmox::upid>(self, [self, rp, c](result<proxmox::upid> r) {
              wait_started_task(
                  self, std::move(r), self->state.cfg.template_wait, [self, rp, c](status s) {
                    if (s) {
                      record_template_vm(self->state, c.vmid, c.node, c.config.name.value_or(""),
                                         c.config.description.value_or(""), true);
                    }
                    step_done(self, rp, c.vmid)(s);
                  });
            }));
      });
}

void handle_template_retire(self_ptr self, template_retire_request req, step_promise rp) {
  checked_step(self, "template_retire", req.vmid, req.template_name, rp,
               [self, req](vm_check c, step_promise rp) {
                 proxmox::vm_config_update u;
                 u.raw = req.config;
                 u.digest = c.config.digest;  // over the config that was checked, only
                 self->state.api->update_vm_config(
                     c.node, c.vmid, u,
                     bounce<std::optional<proxmox::upid>>(
                         self, [self, rp, vmid = c.vmid](result<std::optional<proxmox::upid>> r) {
                           wait_optional_task(self, std::move(r), self->state.cfg.clone_wait,
                                              step_done(self, rp, vmid));
                         }));
               });
}

void handle_template_delete(self_ptr self, template_delete_request req, step_promise rp) {
  checked_step(self, "template_delete", req.vmid, req.template_name, rp,
               [self](vm_check c, step_promise rp) {
                 self->state.api->delete_vm(
                     c.node, c.vmid, true,
                     bounce<proxmox::upid>(self, [self, rp, c](result<proxmox::upid> r) {
                       wait_started_task(self, std::move(r), self->state.cfg.clone_wait,
                                         [self, rp, c](status s) {
                                           if (s) forget_vm(self, c.vmid, c.node);
                                           step_done(self, rp, c.vmid)(s);
                                         });
                     }));
               });
}

}  // namespace kp::actors::region
