// Deleting a NodeClaim's VM: its config is read again in the same step and the VM destroyed only
// when its mark names this cluster and the NodeClaim (or it is the Go provider's VM of that
// name, for termination); then stop, destroy with its disks, and delete its ISO.
#include "actors/region/region_state.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

namespace {

void release_addresses(region_state& st, const proxmox::vm_config& config) {
  for (const auto& [index, text] : config.ipconfigs) {
    (void)index;
    st.ipam.release(text);
  }
}

// Checks the one VM, destroys it when it is the owner's; `done(reply)`.
void delete_checked(self_ptr self, std::uint32_t vmid, delete_request req,
                    std::function<void(delete_reply)> done) {
  expected_owner owner{req.nodeclaim, !req.collect};
  check_vm(self, vmid, owner, [self, req, done](vm_check c) {
    delete_reply reply;
    switch (c.what) {
      case verdict::gone:
        reply.ok = true;
        reply.already_gone = true;
        return done(reply);
      case verdict::unknown:
        reply.error = unknown_error(c);
        return done(reply);
      case verdict::foreign:
        reply.error = refuse_foreign(self, "delete", c, "NodeClaim " + req.nodeclaim + "'s VM");
        return done(reply);
      case verdict::ours:
      case verdict::adopted:
        break;
    }
    auto iso = our_iso(self->state, c.config, c.vmid, req.nodeclaim);
    destroy_vm(self, c.node, c.vmid, iso, [self, c, done](status s, bool already_gone) {
      delete_reply reply;
      if (s) {
        reply.ok = true;
        reply.already_gone = already_gone;
        release_addresses(self->state, c.config);
        forget_vm(self, c.vmid, c.node);
      } else {
        reply.error = proxmox_error(s.error());
      }
      done(reply);
    });
  });
}

// Deletes each VM in turn; the first failure is the reply.
void delete_each(self_ptr self, std::shared_ptr<std::vector<std::uint32_t>> vmids, std::size_t next,
                 delete_request req, delete_reply so_far, std::function<void(delete_reply)> done) {
  if (next == vmids->size()) return done(so_far);
  delete_checked(self, (*vmids)[next], req,
                 [self, vmids, next, req, so_far, done](delete_reply r) mutable {
                   if (!r.ok) return done(r);
                   so_far.already_gone = so_far.already_gone && r.already_gone;
                   delete_each(self, vmids, next + 1, req, so_far, done);
                 });
}

void deliver(self_ptr self, caf::typed_response_promise<delete_reply> rp, delete_reply reply) {
  rp.deliver(reply);
  self->state.window->complete();
  refresh(self);
}

void delete_by_name(self_ptr self, delete_request req,
                    caf::typed_response_promise<delete_reply> rp) {
  auto& st = self->state;
  auto vmids = std::make_shared<std::vector<std::uint32_t>>();
  std::string unknown;
  for (const auto& [id, vm] : st.vms) {
    if (vm.is_template || vm.is_container) continue;
    auto mark = mark_of(vm);
    if (mark && mark->cluster == st.cfg.cluster_name && mark->nodeclaim == req.nodeclaim) {
      vmids->push_back(id);
    } else if (!mark && vm.name == req.nodeclaim && (!vm.config || !vm.config_error.empty())) {
      unknown = "VM " + std::to_string(id) + " named " + vm.name +
                " cannot be read: " + (vm.config_error.empty() ? "not read yet" : vm.config_error);
    }
  }
  if (!unknown.empty()) {
    delete_reply reply;
    reply.error = {"unknown", unknown};
    rp.deliver(reply);
    return;
  }
  delete_reply none;
  none.ok = true;
  none.already_gone = true;
  if (vmids->empty()) {
    rp.deliver(none);
    return;
  }
  st.window->submit([self, vmids, req, rp, none] {
    note_in_flight(self->state);
    delete_each(self, vmids, 0, req, none,
                [self, rp](delete_reply r) { deliver(self, rp, std::move(r)); });
  });
}

}  // namespace

void handle_delete(self_ptr self, delete_request req,
                   caf::typed_response_promise<delete_reply> rp) {
  if (req.nodeclaim.empty()) {
    delete_reply reply;
    reply.error = {"invalid_request", "a delete names the NodeClaim whose VM it is"};
    rp.deliver(reply);
    return;
  }
  if (req.vmid == 0) {
    // A launch whose reply was lost: look at a listing made now.
    with_fresh_inventory(self, [self, req, rp] { delete_by_name(self, req, rp); });
    return;
  }
  auto run = [self, req, rp] {
    self->state.window->submit([self, req, rp] {
      note_in_flight(self->state);
      delete_checked(self, req.vmid, req,
                     [self, rp](delete_reply r) { deliver(self, rp, std::move(r)); });
    });
  };
  if (self->state.vms.count(req.vmid) != 0) {
    run();
    return;
  }
  // Unknown here: look again (it may be newer than the inventory) before calling it gone.
  with_fresh_inventory(self, run);
}

void destroy_vm(self_ptr self, std::string node, std::uint32_t vmid, std::string iso_volid,
                std::function<void(status, bool)> done) {
  auto& st = self->state;
  auto finish = [self, node, iso_volid, done](status s, bool already_gone) {
    if (!s) return done(s, false);
    delete_iso(self, node, iso_volid, [done, already_gone] { done({}, already_gone); });
  };
  auto remove = [self, node, vmid, finish] {
    self->state.api->delete_vm(
        node, vmid, true, bounce<proxmox::upid>(self, [self, finish](result<proxmox::upid> r) {
          if (!r)
            return finish(is_gone(r.error()) ? status{} : status{r.error()}, is_gone(r.error()));
          wait_task(self, *r, self->state.cfg.clone_wait, [finish](status t) {
            if (!t && !is_gone(t.error())) return finish(t.error(), false);
            finish({}, false);
          });
        }));
  };
  st.api->vm_status(
      node, vmid,
      bounce<proxmox::vm_status>(
          self, [self, node, vmid, finish, remove](result<proxmox::vm_status> s) {
            if (!s)
              return finish(is_gone(s.error()) ? status{} : status{s.error()}, is_gone(s.error()));
            if (s->status != "running") return remove();
            self->state.api->stop_vm(
                node, vmid,
                bounce<proxmox::upid>(self, [self, finish, remove](result<proxmox::upid> r) {
                  wait_started_task(self, std::move(r), self->state.cfg.start_wait,
                                    [finish, remove](status t) {
                                      if (!t) return finish(t.error(), false);
                                      remove();
                                    });
                }));
          }));
}

void forget_vm(self_ptr self, std::uint32_t vmid, const std::string& node) {
  auto& st = self->state;
  st.vms.erase(vmid);
  st.forgotten[vmid] = ++st.epoch;
  st.reserved.erase(vmid);
  st.ids.deleted(vmid, vmid_allocator::clock::now());
  if (auto* h = placement_host(st, node)) h->remove(static_cast<int>(vmid));
}

}  // namespace kp::actors::region
