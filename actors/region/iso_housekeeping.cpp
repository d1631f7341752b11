// Cloud-init ISOs: their names carry this cluster's tag (core/ownership/iso_name.hpp), because
// Proxmox cannot show what is inside an ISO. After a node initialised, its VM's CD-ROM is
// detached and the ISO deleted (after the VM's mark is checked in the same step); every few
// refreshes, ISOs of this cluster whose VM is gone are swept.
#include <set>

#include "actors/region/region_state.hpp"
#include "core/ownership/iso_name.hpp"

namespace kp::actors::region {

using namespace kp::protocol;

std::string iso_name_for(const region_state& st, std::uint32_t vmid, const std::string& nodeclaim) {
  return ownership::iso_file_name(st.cfg.cluster_name, vmid, nodeclaim);
}

std::string our_iso(const region_state& st, const proxmox::vm_config& config, std::uint32_t vmid,
                    const std::string& nodeclaim) {
  auto d = config.drives.find("ide2");
  if (d == config.drives.end()) return "";
  const auto& volume = d->second.volume;
  return ownership::is_our_iso(volume, st.cfg.cluster_name, vmid, nodeclaim) ? volume : "";
}

void delete_iso(self_ptr self, const std::string& node, const std::string& volid,
                std::function<void()> done) {
  auto colon = volid.find(':');
  if (volid.empty() || colon == std::string::npos) return done();
  self->state.api->delete_volume(node, volid.substr(0, colon), volid,
                                 bounce<std::optional<proxmox::upid>>(
                                     self, [self, done](result<std::optional<proxmox::upid>> r) {
                                       // A failure leaves a leftover the sweep collects later.
                                       wait_optional_task(self, std::move(r),
                                                          self->state.cfg.clone_wait,
                                                          [done](status) { done(); });
                                     }));
}

namespace {

// Whether any VM, reservation or launch still needs an ISO of that VMID and volume.
bool still_needed(const region_state& st, const std::string& volid, std::uint32_t vmid) {
  if (st.vms.count(vmid) != 0 || st.reserved.count(vmid) != 0) return true;
  for (const auto& [claim, op] : st.launching) {
    (void)claim;
    if (op->vmid == vmid) return true;
  }
  for (const auto& [id, vm] : st.vms) {
    (void)id;
    if (!vm.config) continue;
    for (const auto& [key, drive] : vm.config->drives) {
      (void)key;
      if (drive.volume == volid) return true;
    }
  }
  return false;
}

}  // namespace

void sweep_leftover_isos(self_ptr self) {
  auto& st = self->state;
  std::set<std::pair<std::string, std::string>> seen;
  auto tag = ownership::cluster_tag(st.cfg.cluster_name);
  for (const auto& [name, h] : st.hosts) {
    if (!h.online()) continue;
    for (const auto& storage : h.iso_storages) {
      if (!seen.insert({name, storage}).second) continue;
      std::string node = name;
      st.api->storage_content(
          node, storage, "iso",
          bounce<std::vector<proxmox::storage_content>>(
              self, [self, node, tag](result<std::vector<proxmox::storage_content>> r) {
                if (!r) return;  // tried again at the next sweep
                auto& st = self->state;
                auto now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
                for (const auto& item : *r) {
                  auto parsed = ownership::parse_iso_name(item.volid);
                  // Only this cluster's ISOs: another cluster's, or anyone's, stay.
                  if (!parsed || parsed->cluster_tag != tag) continue;
                  if (still_needed(st, item.volid, parsed->vmid)) continue;
                  auto age = now - static_cast<std::int64_t>(item.ctime);
                  if (item.ctime == 0 || age < st.cfg.leftover_iso_grace.count()) continue;
                  st.log.info("deleting a leftover cloud-init ISO",
                              {{"region", st.cfg.region}, {"host", node}, {"volume", item.volid}});
                  delete_iso(self, node, item.volid, [] {});
                }
              }));
    }
  }
}

void handle_release_iso(self_ptr self, release_iso_request req,
                        caf::typed_response_promise<release_iso_reply> rp) {
  auto& st = self->state;
  auto reply_with = [rp](release_iso_reply r) mutable { rp.deliver(r); };
  if (req.nodeclaim.empty()) {
    release_iso_reply r;
    r.error = {"invalid_request", "an ISO release names the NodeClaim whose VM it is"};
    return reply_with(r);
  }
  if (req.vmid == 0) {
    for (const auto& [id, vm] : st.vms) {
      auto mark = mark_of(vm);
      if (!vm.is_template && mark && mark->cluster == st.cfg.cluster_name &&
          mark->nodeclaim == req.nodeclaim) {
        req.vmid = id;
      }
    }
  }
  auto known = st.vms.find(req.vmid);
  // Nothing to detach when the VM is gone or (as last read) has no ISO of ours: doing nothing
  // needs no check. Otherwise the config is read again before the write.
  if (req.vmid == 0 || known == st.vms.end() ||
      (known->second.config && known->second.config_error.empty() &&
       our_iso(st, *known->second.config, req.vmid, req.nodeclaim).empty())) {
    release_iso_reply r;
    r.ok = true;
    r.nothing_to_do = true;
    return reply_with(r);
  }
  st.window->submit([self, req, rp] {
    note_in_flight(self->state);
    auto finish = [self, rp](release_iso_reply r) mutable {
      rp.deliver(r);
      self->state.window->complete();
    };
    check_vm(self, req.vmid, {req.nodeclaim, true}, [self, req, finish](vm_check c) mutable {
      release_iso_reply r;
      switch (c.what) {
        case verdict::gone:
          r.ok = true;
          r.nothing_to_do = true;
          return finish(r);
        case verdict::unknown:
          r.error = unknown_error(c);
          return finish(r);
        case verdict::foreign:
          r.error = refuse_foreign(self, "release_iso", c, "NodeClaim " + req.nodeclaim + "'s VM");
          return finish(r);
        case verdict::ours:
        case verdict::adopted:
          break;
      }
      auto iso = our_iso(self->state, c.config, c.vmid, req.nodeclaim);
      if (iso.empty()) {
        r.ok = true;
        r.nothing_to_do = true;
        return finish(r);
      }
      proxmox::vm_config_update u;
      u.remove = {"ide2"};
      u.digest = c.config.digest;  // refused if the config changed since it was checked
      self->state.api->update_vm_config(
          c.node, c.vmid, u,
          bounce<std::optional<proxmox::upid>>(
              self, [self, c, iso, finish](result<std::optional<proxmox::upid>> w) mutable {
                wait_optional_task(self, std::move(w), self->state.cfg.clone_wait,
                                   [self, c, iso, finish](status s) mutable {
                                     release_iso_reply r;
                                     if (!s) {
                                       r.error = proxmox_error(s.error());
                                       return finish(r);
                                     }
                                     auto it = self->state.vms.find(c.vmid);
                                     if (it != self->state.vms.end() && it->second.config) {
                                       it->second.config->drives.erase("ide2");
                                     }
                                     delete_iso(self, c.node, iso, [finish]() mutable {
                                       release_iso_reply done;
                                       done.ok = true;
                                       finish(done);
                                     });
                                   });
              }));
    });
  });
}

}  // namespace kp::actors::region
