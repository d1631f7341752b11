// The door: before a VM is stopped, destroyed or changed, its config is read again in the same
// step and its mark judged against the owner the request names. A VMID alone never identifies
// our VM (DESIGN.md section 5): Proxmox hands a freed VMID to the next VM anyone creates.
#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "actors/region/region_state.hpp"
#include "core/ownership/template_mark.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

// Whose the VM is shows once Proxmox has finished cloning into it.
bool still_cloning(vm_check& c) {
  if (!clone_unfinished(c.config.lock.value_or(""), c.config.name)) return false;
  c.what = verdict::unknown;
  c.why = "Proxmox is still cloning VM " + std::to_string(c.vmid) + " (lock: clone): no mark yet";
  return true;
}

vm_check judge_vm(const region_state& st, vm_check c, const expected_owner& owner) {
  const auto& description = c.config.description.value_or("");
  if (auto mark = ownership::parse_ownership_mark(description)) {
    if (mark->cluster == st.cfg.cluster_name && mark->nodeclaim == owner.nodeclaim) {
      c.what = verdict::ours;
      return c;
    }
    c.what = verdict::foreign;
    c.why = "its mark names cluster " + mark->cluster + ", NodeClaim " + mark->nodeclaim;
    return c;
  }
  if (owner.allow_adopted && ownership::is_go_provider_description(description) &&
      c.config.name.value_or("") == owner.nodeclaim) {
    c.what = verdict::adopted;
    return c;
  }
  if (still_cloning(c)) return c;
  c.what = verdict::foreign;
  c.why = "it carries no mark of this cluster (name " + c.config.name.value_or("<none>") + ")";
  return c;
}

vm_check judge_template(const region_state& st, vm_check c, const std::string& template_name) {
  auto mark = ownership::parse_template_mark(c.config.description.value_or(""));
  if (mark && mark->cluster == st.cfg.cluster_name && mark->template_name == template_name) {
    c.what = verdict::ours;
    return c;
  }
  if (!mark && still_cloning(c)) return c;
  c.what = verdict::foreign;
  c.why = mark ? "its template mark names cluster " + mark->cluster + ", template " +
                     mark->template_name
               : "it carries no template mark of this cluster (name " +
                     c.config.name.value_or("<none>") + ")";
  return c;
}

using judge_fn = std::function<vm_check(const region_state&, vm_check)>;

void read_and_judge(self_ptr self, std::uint32_t vmid, judge_fn judge, bool may_relocate,
                    std::function<void(vm_check)> done) {
  auto& st = self->state;
  auto it = st.vms.find(vmid);
  vm_check c;
  c.vmid = vmid;
  if (it == st.vms.end()) {
    c.what = verdict::gone;
    c.why = "no VM " + std::to_string(vmid) + " in region " + st.cfg.region;
    return done(std::move(c));
  }
  c.node = it->second.node;
  auto host = st.hosts.find(c.node);
  if (host == st.hosts.end() || !host->second.online()) {
    c.what = verdict::unknown;
    c.why = "host " + c.node + " of VM " + std::to_string(vmid) + " is not online";
    return done(std::move(c));
  }
  st.api->vm_config(c.node, vmid,
                    bounce<proxmox::vm_config>(self, [self, c, judge, may_relocate,
                                                      done](result<proxmox::vm_config> r) mutable {
                      auto& st = self->state;
                      if (r) {
                        c.config = std::move(*r);
                        remember_config(st, c.vmid, c.config);
                        return done(judge(st, std::move(c)));
                      }
                      if (is_gone(r.error()) && may_relocate) {
                        // Not on that host: gone, or moved since the inventory. A fresh listing
                        // tells.
                        auto node = c.node;
                        with_fresh_inventory(self, [self, c, judge, done, node]() mutable {
                          auto& st = self->state;
                          auto it = st.vms.find(c.vmid);
                          if (st.detail.empty() && it == st.vms.end()) {
                            c.what = verdict::gone;
                            c.why = "VM " + std::to_string(c.vmid) + " no longer exists";
                            return done(std::move(c));
                          }
                          if (!st.detail.empty() || it->second.node == node) {
                            c.what = verdict::unknown;
                            c.why = "VM " + std::to_string(c.vmid) +
                                    " is listed but its config cannot be read";
                            return done(std::move(c));
                          }
                          read_and_judge(self, c.vmid, judge, false, done);
                        });
                        return;
                      }
                      c.what = verdict::unknown;
                      c.why = "reading the config of VM " + std::to_string(c.vmid) + " on " +
                              c.node + " failed: " + r.error().code + ": " + r.error().message;
                      done(std::move(c));
                    }));
}

}  // namespace

void check_vm(self_ptr self, std::uint32_t vmid, expected_owner owner,
              std::function<void(vm_check)> done) {
  read_and_judge(
      self, vmid,
      [owner](const region_state& st, vm_check c) { return judge_vm(st, std::move(c), owner); },
      true, std::move(done));
}

void check_template_vm(self_ptr self, std::uint32_t vmid, std::string template_name,
                       std::function<void(vm_check)> done) {
  read_and_judge(
      self, vmid,
      [template_name](const region_state& st, vm_check c) {
        return judge_template(st, std::move(c), template_name);
      },
      true, std::move(done));
}

region_error refuse_foreign(self_ptr self, const char* operation, const vm_check& c,
                            const std::string& expected) {
  auto& st = self->state;
  st.log.warn("refused to touch a VM that is not ours", {{"region", st.cfg.region},
                                                         {"operation", operation},
                                                         {"vmid", std::to_string(c.vmid)},
                                                         {"host", c.node},
                                                         {"expected", expected},
                                                         {"reason", c.why}});
  if (st.metrics.refusals != nullptr) {
    st.metrics.refusals->Add({{"region", st.cfg.region}, {"operation", operation}}).Increment();
  }
  return {"foreign_vm", "VM " + std::to_string(c.vmid) + " on " + c.node + " is not " + expected +
                            ": " + c.why + "; it was left untouched"};
}

region_error unknown_error(const vm_check& c) {
  return {"unknown", c.why};
}

}  // namespace kp::actors::region
