// One pass at a time: observe every region the templates need (hosts, storages, import files,
// the VMs carrying our mark and, where retired templates exist, the linked clones using them),
// plan each (template, host), run the downloads in parallel and every other step one after the
// other (Proxmox's nextid reserves nothing, so two creates at once would pick the same VMID),
// then write the statuses that changed. A snapshot arriving meanwhile marks the state dirty and
// one more pass follows; a pass that made progress is followed by another at once, which
// confirms it and takes the next steps (retirement); failures wait for the timer.
#include "actors/template_manager/template_manager.hpp"

#include <algorithm>
#include <set>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/status_refusals.hpp"
#include "actors/template_manager/template_plan.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/proxmox/client.hpp"

namespace kp::actors::template_manager {
namespace {

using namespace std::chrono_literals;
using tick_atom = caf::atom_constant<caf::atom("tmpltick")>;
using impl_actor = protocol::snapshot_listener::extend<caf::reacts_to<resume_atom, continuation>,
                                                       caf::reacts_to<tick_atom>>;

struct manager_state {
  controller_context ctx;
  std::map<std::string, std::shared_ptr<proxmox::client>> clients;
  protocol::snapshot_ptr snapshot;
  obs::logger log{"template.manager"};
  bool busy = false;
  bool dirty = false;
  // The status last written per template and the resourceVersion it was written over: until a
  // snapshot shows a newer object, that status (not the snapshot's stale one) is the baseline,
  // so the pass right after a write neither writes it again nor announces it twice.
  struct written_status {
    std::string over_resource_version;
    kube::proxmox_template_status status;
  };
  std::map<std::string, written_status> written;
  status_refusals refusals;
  static inline const char* name = "template-manager";
};

using self_ptr = impl_actor::stateful_pointer<manager_state>;

template <class T>
std::function<void(result<T>)> in_actor(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(caf::actor_cast<impl_actor>(self), std::move(f));
}

// Counts outstanding completions; runs `then` when the last one arrives.
struct barrier {
  int pending = 1;
  std::function<void()> then;
  void add() { ++pending; }
  void done() {
    if (--pending == 0 && then) then();
  }
};
std::shared_ptr<barrier> make_barrier(std::function<void()> then) {
  auto b = std::make_shared<barrier>();
  b->then = std::move(then);
  return b;
}

// --- what one pass sees and does -----------------------------------------------------------------

struct host_obs {
  std::vector<proxmox::storage_info> storages;
  std::vector<std::string> import_volids;
  std::string error;
};

struct region_obs {
  std::string region;
  std::shared_ptr<proxmox::client> client;
  std::string error;
  std::map<std::string, host_obs> hosts;  // online hosts
  std::vector<proxmox::cluster_resource> vms;
  std::map<std::uint32_t, existing_vm> ours;  // VMs with a template mark of our cluster
  std::set<std::string> uncounted_hosts;      // linked clones could not be counted there
};

struct job {
  std::string template_name;
  std::string region;
  std::shared_ptr<proxmox::client> client;
  host_plan plan;
  std::size_t next = 0;  // next step to run
  std::optional<std::uint32_t> built_vmid;
  bool progressed = false;
  bool failed = false;
  bool image_failed = false;
  std::optional<condition_reason> failure_reason;
  std::string failure_message;
};

struct pass_state {
  protocol::snapshot_ptr snapshot;
  std::map<std::string, std::variant<desired_template, spec_problem>> templates;
  std::map<std::string, std::vector<std::string>> regions_of;  // template -> regions
  std::map<std::string, spec_problem> region_problem;          // template -> why no region
  std::map<std::string, region_obs> regions;
  std::vector<std::shared_ptr<job>> jobs;
};
using pass_ptr = std::shared_ptr<pass_state>;

proxmox::task_wait_options wait_options(const manager_state& st, config::duration timeout) {
  proxmox::task_wait_options o;
  o.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  auto poll = std::chrono::duration_cast<std::chrono::milliseconds>(
      st.ctx.settings.proxmox_task_poll_interval);
  if (poll <= 0ms) poll = 1s;
  o.initial_interval = std::min<std::chrono::milliseconds>(poll, 200ms);
  o.max_interval = poll;
  return o;
}

std::string error_text(const error& e) {
  return e.message.empty() ? e.code : e.message;
}

void run(self_ptr self);

void finish(self_ptr self, bool progressed) {
  auto& st = self->state;
  st.busy = false;
  if (st.dirty || progressed) {
    st.dirty = false;
    run(self);
  }
}

// --- status
// ----------------------------------------------------------------------------------------

void announce(const manager_state& st, const kube::proxmox_template& t, const kube::condition& c) {
  if (c.status == "True") {
    st.log.info("template condition changed", {{"template", t.metadata.name},
                                               {"condition", c.type},
                                               {"status", c.status},
                                               {"reason", c.reason}});
  } else {
    st.log.warn("template condition changed", {{"template", t.metadata.name},
                                               {"condition", c.type},
                                               {"status", c.status},
                                               {"reason", c.reason},
                                               {"message", c.message}});
  }
  protocol::event_record e;
  e.kind = "ProxmoxTemplate";
  e.api_version = "karpenter.proxmox.sinextra.dev/v1alpha1";
  e.name = t.metadata.name;
  e.uid = t.metadata.uid;
  e.type = c.status == "False" ? "Warning" : "Normal";
  e.reason = c.reason;
  e.message = c.type + "=" + c.status + ": " + c.message;
  record_event(st.ctx, std::move(e));
}

void write_statuses(self_ptr self, pass_ptr pass) {
  auto& st = self->state;
  auto now = kube::format_rfc3339(st.ctx.wall_clock_ms());
  bool progressed = false;
  for (const auto& j : pass->jobs) progressed = progressed || j->progressed;
  auto all = make_barrier([self, progressed] { finish(self, progressed); });
  for (const auto& [name, validated] : pass->templates) {
    const auto* t = protocol::cluster_snapshot::find(pass->snapshot->templates, name);
    if (t == nullptr) continue;
    template_outcome outcome;
    if (const auto* problem = std::get_if<spec_problem>(&validated)) {
      outcome.invalid = *problem;
    } else {
      const auto& d = std::get<desired_template>(validated);
      outcome.image_file = d.image.file_name;
      if (auto it = pass->region_problem.find(name); it != pass->region_problem.end()) {
        outcome.no_hosts = it->second;
      }
      for (const auto& region : pass->regions_of[name]) {
        const auto& obs = pass->regions[region];
        if (!obs.error.empty()) {
          host_outcome h;
          h.region = region;
          h.host = "*";
          h.failure_reason = condition_reason("ProxmoxUnreachable");
          h.failure_message = "reading region " + region + " failed: " + obs.error;
          outcome.hosts.push_back(std::move(h));
        }
      }
      for (const auto& j : pass->jobs) {
        if (j->template_name != name) continue;
        host_outcome h;
        h.region = j->region;
        h.host = j->plan.host;
        h.vmid = j->built_vmid ? j->built_vmid : j->plan.ready_vmid;
        if (j->failed) {
          h.image_failed = j->image_failed;
          h.failure_reason = j->failure_reason;
          h.failure_message = j->failure_message;
        } else if (j->plan.blocked) {
          h.failure_reason = j->plan.blocked->reason;
          h.failure_message = j->plan.blocked->message;
        }
        outcome.hosts.push_back(std::move(h));
      }
      if (!outcome.no_hosts && outcome.hosts.empty()) {
        std::string regions;
        for (const auto& r : pass->regions_of[name]) regions += (regions.empty() ? "" : ", ") + r;
        outcome.no_hosts =
            spec_problem{"NoHostsOnline", "no online Proxmox host in region(s) " + regions};
      }
    }
    auto baseline = *t;
    if (auto w = st.written.find(name);
        w != st.written.end() && w->second.over_resource_version == t->metadata.resource_version) {
      baseline.status = w->second.status;
    }
    auto status = desired_status(baseline, outcome, now);
    if (same_status(status, baseline.status)) continue;
    const auto generation = t->metadata.generation;
    auto body = conditions_digest(status.conditions) + status.image_id + status.zone_count;
    for (const auto& z : status.zones) body += z + ";";
    if (st.refusals.refused(name, generation, body)) continue;
    for (const auto& c : status.conditions) {
      bool changed = true;
      for (const auto& before : baseline.status.conditions) {
        if (before.type == c.type && before.status == c.status && before.reason == c.reason &&
            before.message == c.message) {
          changed = false;
        }
      }
      if (changed) announce(st, *t, c);
    }
    auto updated = *t;
    updated.status = status;
    st.written[name] = {t->metadata.resource_version, std::move(status)};
    all->add();
    st.ctx.kube->update_status<kube::proxmox_template>(
        updated, in_actor<kube::proxmox_template>(self, [self, all, name = name, generation,
                                                         body = std::move(body)](
                                                            result<kube::proxmox_template> r) {
          auto& st = self->state;
          if (r) {
            st.refusals.forget(name);
          } else if (status_refusals::is_refusal(r.error())) {
            st.written.erase(name);
            // The same write would be refused again: not before the generation changes.
            st.refusals.report(r.error(), "ProxmoxTemplate", name, generation, body,
                               st.ctx.metrics.get(), st.log);
          } else {
            st.written.erase(name);
            // A conflict means a newer object is on its way; its snapshot runs us
            // again. Other errors wait for the next snapshot or tick.
            st.log.warn("writing the template status failed",
                        {{"template", name}, {"error", r.error().code + ": " + r.error().message}});
          }
          all->done();
        }));
  }
  all->done();
}

// --- running the steps -------------------------------------------------------------------------

void fail(job& j, condition_reason reason, std::string message, bool image = false) {
  j.failed = true;
  j.image_failed = image;
  j.failure_reason = reason;
  j.failure_message = std::move(message);
}

using step_done = std::function<void()>;

// Waits for a task and runs `then` with its outcome inside the actor.
void wait_then(self_ptr self, std::shared_ptr<proxmox::client> client, const proxmox::upid& task,
               config::duration timeout, std::function<void(result<proxmox::task_status>)> then) {
  client->wait_task(task, wait_options(self->state, timeout),
                    in_actor<proxmox::task_status>(self, std::move(then)));
}

void log_step(const manager_state& st, const job& j, const step& s, const char* what) {
  st.log.info(what, {{"template", j.template_name},
                     {"region", j.region},
                     {"host", j.plan.host},
                     {"vmid", std::to_string(s.vmid)},
                     {"why", s.why}});
}

void run_download(self_ptr self, std::shared_ptr<job> j, const step& s, step_done done) {
  log_step(self->state, *j, s, "downloading template image");
  auto describe = [url = s.download.url,
                   target = j->plan.host + "/" + s.download.storage](const std::string& why) {
    return "download of " + url + " to " + target + " failed: " + why;
  };
  j->client->download_url(
      s.download, in_actor<proxmox::upid>(self, [self, j, done, describe](result<proxmox::upid> r) {
        if (!r) {
          fail(*j, "DownloadFailed", describe(error_text(r.error())), true);
          return done();
        }
        wait_then(self, j->client, *r, self->state.ctx.settings.proxmox_download_timeout,
                  [j, done, describe](result<proxmox::task_status> t) {
                    if (!t) {
                      fail(*j, "DownloadFailed", describe(error_text(t.error())), true);
                    } else {
                      j->progressed = true;
                    }
                    done();
                  });
      }));
}

void run_step(self_ptr self, std::shared_ptr<job> j, const step& s, step_done done) {
  auto& st = self->state;
  auto where = j->region + "/" + j->plan.host;
  switch (s.kind) {
    case step_kind::download:
      return run_download(self, j, s, done);
    case step_kind::create: {
      log_step(st, *j, s, "creating template VM");
      auto config = s.config;
      j->client->next_vmid(
          std::nullopt,
          in_actor<std::uint32_t>(self, [self, j, done, config, where](result<std::uint32_t> id) {
            if (!id) {
              fail(*j, "CreateFailed",
                   "choosing a VMID on " + where + " failed: " + error_text(id.error()));
              return done();
            }
            proxmox::create_vm_request req;
            req.node = j->plan.host;
            req.vmid = *id;
            req.config = config;
            auto vmid = *id;
            j->client->create_vm(
                req, in_actor<proxmox::upid>(self, [self, j, done, vmid,
                                                    where](result<proxmox::upid> r) {
                  auto failed = [j, vmid, where](const error& e) {
                    fail(*j, "CreateFailed",
                         "creating template VM " + std::to_string(vmid) + " on " + where +
                             " failed: " + error_text(e));
                  };
                  if (!r) {
                    failed(r.error());
                    return done();
                  }
                  wait_then(self, j->client, *r, self->state.ctx.settings.proxmox_clone_timeout,
                            [j, done, vmid, failed](result<proxmox::task_status> t) {
                              if (!t) {
                                failed(t.error());
                              } else {
                                j->built_vmid = vmid;
                                j->progressed = true;
                              }
                              done();
                            });
                }));
          }));
      return;
    }
    case step_kind::convert: {
      std::uint32_t vmid = s.vmid != 0 ? s.vmid : j->built_vmid.value_or(0);
      log_step(st, *j, s, "converting VM to template");
      auto failed = [j, vmid, where](const error& e) {
        fail(*j, "TemplateConversionFailed",
             "converting VM " + std::to_string(vmid) + " on " + where +
                 " to a template failed: " + error_text(e));
      };
      j->client->convert_to_template(
          j->plan.host, vmid,
          in_actor<proxmox::upid>(self, [self, j, done, vmid, failed](result<proxmox::upid> r) {
            if (!r) {
              failed(r.error());
              return done();
            }
            wait_then(self, j->client, *r, self->state.ctx.settings.proxmox_template_timeout,
                      [j, done, vmid, failed](result<proxmox::task_status> t) {
                        if (!t) {
                          failed(t.error());
                        } else {
                          j->built_vmid = vmid;
                          j->progressed = true;
                        }
                        done();
                      });
          }));
      return;
    }
    case step_kind::retire: {
      log_step(st, *j, s, "retiring template VM");
      proxmox::vm_config_update update;
      update.raw = s.config;
      auto vmid = s.vmid;
      // A failed retirement leaves a working template of the old image: logged, retried on the
      // next pass, never a condition.
      j->client->update_vm_config(
          j->plan.host, vmid, update,
          in_actor<std::optional<proxmox::upid>>(self, [self, j, done, vmid](
                                                           result<std::optional<proxmox::upid>> r) {
            auto warn = [self, j, vmid](const error& e) {
              self->state.log.warn("retiring a template VM failed", {{"template", j->template_name},
                                                                     {"host", j->plan.host},
                                                                     {"vmid", std::to_string(vmid)},
                                                                     {"error", error_text(e)}});
            };
            if (!r) {
              warn(r.error());
              return done();
            }
            if (!*r) {
              j->progressed = true;
              return done();
            }
            wait_then(self, j->client, **r, self->state.ctx.settings.proxmox_config_timeout,
                      [j, done, warn](result<proxmox::task_status> t) {
                        if (!t) {
                          warn(t.error());
                        } else {
                          j->progressed = true;
                        }
                        done();
                      });
          }));
      return;
    }
    case step_kind::destroy: {
      log_step(st, *j, s, "destroying template VM");
      auto vmid = s.vmid;
      j->client->delete_vm(
          j->plan.host, vmid, true,
          in_actor<proxmox::upid>(self, [self, j, done, vmid](result<proxmox::upid> r) {
            // Refused while linked clones use the base volume (or anything else): the VM stays
            // retired and the next pass tries again. Never a condition.
            auto kept = [self, j, vmid](const error& e) {
              self->state.log.info("template VM kept for now", {{"template", j->template_name},
                                                                {"host", j->plan.host},
                                                                {"vmid", std::to_string(vmid)},
                                                                {"reason", error_text(e)}});
            };
            if (!r) {
              kept(r.error());
              return done();
            }
            wait_then(self, j->client, *r, self->state.ctx.settings.proxmox_delete_timeout,
                      [j, done, kept](result<proxmox::task_status> t) {
                        if (!t) {
                          kept(t.error());
                        } else {
                          j->progressed = true;
                        }
                        done();
                      });
          }));
      return;
    }
  }
}

// Runs the job's remaining steps in order, stopping at the first failure.
void run_job(self_ptr self, std::shared_ptr<job> j, step_done done) {
  while (j->next < j->plan.steps.size() && j->plan.steps[j->next].kind == step_kind::download) {
    ++j->next;  // downloads ran in the first phase
  }
  if (j->failed || j->next >= j->plan.steps.size()) return done();
  const auto& s = j->plan.steps[j->next++];
  run_step(self, j, s, [self, j, done] { run_job(self, j, done); });
}

void run_jobs_in_order(self_ptr self, pass_ptr pass, std::size_t index) {
  if (index >= pass->jobs.size()) return write_statuses(self, pass);
  run_job(self, pass->jobs[index],
          [self, pass, index] { run_jobs_in_order(self, pass, index + 1); });
}

void execute(self_ptr self, pass_ptr pass) {
  // Downloads of every host at once: they are long and independent.
  auto downloads = make_barrier([self, pass] { run_jobs_in_order(self, pass, 0); });
  for (const auto& j : pass->jobs) {
    for (const auto& s : j->plan.steps) {
      if (s.kind != step_kind::download) continue;
      downloads->add();
      run_download(self, j, s, [downloads] { downloads->done(); });
    }
  }
  downloads->done();
}

// --- planning ------------------------------------------------------------------------------------

void plan_all(self_ptr self, pass_ptr pass) {
  auto& st = self->state;
  for (const auto& [name, validated] : pass->templates) {
    const auto* d = std::get_if<desired_template>(&validated);
    if (d == nullptr) continue;
    for (const auto& region : pass->regions_of[name]) {
      const auto& obs = pass->regions[region];
      if (!obs.error.empty()) continue;
      for (const auto& [host, hobs] : obs.hosts) {
        host_view view;
        view.host = host;
        view.storages = hobs.storages;
        view.import_volids = hobs.import_volids;
        for (const auto& [vmid, vm] : obs.ours) {
          for (const auto& r : obs.vms) {
            if (r.vmid == vmid && r.node == host) view.vms.push_back(vm);
          }
        }
        auto j = std::make_shared<job>();
        j->template_name = name;
        j->region = region;
        j->client = obs.client;
        j->plan = plan_host(*d, view);
        if (!hobs.error.empty()) {
          // Part of the host could not be read: acting on half a view could duplicate a
          // template or re-download a file, so this pass only reports.
          j->plan.steps.clear();
          if (!j->plan.ready_vmid) j->plan.blocked = spec_problem{"ProxmoxUnreachable", hobs.error};
        }
        if (j->plan.retired_kept > 0) {
          st.log.debug("retired templates kept: linked clones use them",
                       {{"template", name},
                        {"host", host},
                        {"count", std::to_string(j->plan.retired_kept)}});
        }
        pass->jobs.push_back(std::move(j));
      }
    }
  }
  // VMs of ProxmoxTemplates that are gone. Only from a snapshot holding the kind at all: a
  // missing map proves nothing.
  std::vector<std::string> known;
  for (const auto& [key, t] : *pass->snapshot->templates) known.push_back(t->metadata.name);
  for (const auto& [region, obs] : pass->regions) {
    if (!obs.error.empty()) continue;
    for (const auto& [host, hobs] : obs.hosts) {
      host_view view;
      view.host = host;
      for (const auto& [vmid, vm] : obs.ours) {
        for (const auto& r : obs.vms) {
          if (r.vmid == vmid && r.node == host) view.vms.push_back(vm);
        }
      }
      auto plan = plan_orphans(st.ctx.cluster_name, view, known);
      if (plan.steps.empty() || !hobs.error.empty()) continue;
      auto j = std::make_shared<job>();
      j->template_name = "(deleted ProxmoxTemplate)";  // matches no object: no status
      j->region = region;
      j->client = obs.client;
      j->plan = std::move(plan);
      pass->jobs.push_back(std::move(j));
    }
  }
  execute(self, pass);
}

// --- observing -----------------------------------------------------------------------------------

// Reads the configs of the non-template VMs on hosts that hold retired templates of ours and
// counts the disks that sit on each retired template's base volumes.
void count_linked_clones(self_ptr self, pass_ptr pass, const std::string& region,
                         std::function<void()> then) {
  auto& obs = pass->regions[region];
  std::set<std::string> hosts;
  for (const auto& [vmid, vm] : obs.ours) {
    if (!vm.mark.retired) continue;
    for (const auto& r : obs.vms) {
      if (r.vmid == vmid) hosts.insert(r.node);
    }
  }
  auto counts = std::make_shared<std::map<std::uint32_t, std::size_t>>();
  auto all = make_barrier([pass, region, counts, then] {
    auto& o = pass->regions[region];
    for (auto& [vmid, vm] : o.ours) {
      if (!vm.mark.retired) continue;
      std::string node;
      for (const auto& r : o.vms) {
        if (r.vmid == vmid) node = r.node;
      }
      if (o.uncounted_hosts.count(node)) continue;
      vm.linked_clones = (*counts)[vmid];
    }
    then();
  });
  for (const auto& r : obs.vms) {
    if (r.template_ || !hosts.count(r.node)) continue;
    all->add();
    obs.client->vm_config(
        r.node, r.vmid,
        in_actor<proxmox::vm_config>(
            self, [pass, region, counts, all, node = r.node](result<proxmox::vm_config> c) {
              auto& o = pass->regions[region];
              if (!c) {
                // Gone since the listing is fine; anything else makes the count unsure.
                if (c.error().code != "not_found") o.uncounted_hosts.insert(node);
                return all->done();
              }
              for (const auto& [vmid, vm] : o.ours) {
                if (!vm.mark.retired) continue;
                auto base = "base-" + std::to_string(vmid) + "-disk-";
                for (const auto& [key, value] : c->raw) {
                  if (key.rfind("unused", 0) != 0 && value.find(base) != std::string::npos) {
                    ++(*counts)[vmid];
                    break;
                  }
                }
              }
              all->done();
            }));
  }
  all->done();
}

void observe_region(self_ptr self, pass_ptr pass, const std::string& region,
                    std::function<void()> then) {
  auto& st = self->state;
  auto& obs = pass->regions[region];
  obs.region = region;
  obs.client = st.clients[region];
  // Storages the templates of this region may use.
  auto storage_ids = std::make_shared<std::set<std::string>>();
  auto names = std::make_shared<std::set<std::string>>();
  for (const auto& [name, regions] : pass->regions_of) {
    if (std::find(regions.begin(), regions.end(), region) == regions.end()) continue;
    names->insert(name);
    if (const auto* d = std::get_if<desired_template>(&pass->templates[name])) {
      storage_ids->insert(d->spec.storage_ids.begin(), d->spec.storage_ids.end());
    }
  }
  obs.client->cluster_resources(
      std::nullopt,
      in_actor<std::vector<proxmox::cluster_resource>>(
          self, [self, pass, region, storage_ids, names,
                 then](result<std::vector<proxmox::cluster_resource>> res) {
            auto& o = pass->regions[region];
            if (!res) {
              o.error = error_text(res.error());
              return then();
            }
            for (auto& r : *res) {
              if (r.type == "node" && r.status == "online") o.hosts[r.node];
              if (r.type == "qemu") o.vms.push_back(r);
            }
            auto all = make_barrier(
                [self, pass, region, then] { count_linked_clones(self, pass, region, then); });
            for (auto& [host, h] : o.hosts) {
              (void)h;
              all->add();
              o.client->storages(
                  host, in_actor<std::vector<proxmox::storage_info>>(
                            self, [self, pass, region, host, storage_ids,
                                   all](result<std::vector<proxmox::storage_info>> s) {
                              auto& o = pass->regions[region];
                              auto& h = o.hosts[host];
                              if (!s) {
                                h.error = "listing storages of " + host +
                                          " failed: " + error_text(s.error());
                                return all->done();
                              }
                              h.storages = *s;
                              for (const auto& info : *s) {
                                if (!storage_ids->count(info.storage) || !info.active ||
                                    !contains_content(info.content, "import")) {
                                  continue;
                                }
                                all->add();
                                o.client->storage_content(
                                    host, info.storage, "import",
                                    in_actor<std::vector<proxmox::storage_content>>(
                                        self, [pass, region, host, all, storage = info.storage](
                                                  result<std::vector<proxmox::storage_content>> c) {
                                          auto& h = pass->regions[region].hosts[host];
                                          if (!c) {
                                            h.error = "listing " + storage + " on " + host +
                                                      " failed: " + error_text(c.error());
                                          } else {
                                            for (const auto& item : *c) {
                                              h.import_volids.push_back(item.volid);
                                            }
                                          }
                                          all->done();
                                        }));
                              }
                              all->done();
                            }));
            }
            // Our VMs: templates, and VMs named like a template (created, not yet converted).
            for (const auto& r : o.vms) {
              if (!o.hosts.count(r.node)) continue;
              bool candidate = r.template_ || names->count(r.name) > 0;
              if (!candidate) continue;
              all->add();
              o.client->vm_config(
                  r.node, r.vmid,
                  in_actor<proxmox::vm_config>(self, [self, pass, region, all,
                                                      r](result<proxmox::vm_config> c) {
                    auto& o = pass->regions[region];
                    if (c && c->description) {
                      auto mark = parse_template_mark(*c->description);
                      if (mark && mark->cluster == self->state.ctx.cluster_name) {
                        existing_vm vm;
                        vm.vmid = r.vmid;
                        vm.name = r.name;
                        vm.is_template = c->is_template;
                        vm.tags = r.tags;
                        vm.description = *c->description;
                        vm.mark = *mark;
                        o.ours[r.vmid] = std::move(vm);
                      }
                    } else if (!c && c.error().code != "not_found") {
                      // Without the config we cannot tell whether it is ours: plan nothing
                      // on that host rather than build a duplicate.
                      o.hosts[r.node].error = "reading the config of VM " + std::to_string(r.vmid) +
                                              " failed: " + error_text(c.error());
                    }
                    all->done();
                  }));
            }
            all->done();
          }));
}

void run(self_ptr self) {
  auto& st = self->state;
  if (st.busy) {
    st.dirty = true;
    return;
  }
  // No ProxmoxTemplate at all still runs: VMs of deleted ones are retired and destroyed.
  if (!st.snapshot || !st.snapshot->templates || st.clients.empty()) return;
  st.busy = true;
  auto pass = std::make_shared<pass_state>();
  pass->snapshot = st.snapshot;
  std::set<std::string> needed;
  for (const auto& [key, t] : *pass->snapshot->templates) {
    if (t->metadata.deletion_timestamp) continue;
    auto validated = validate_template(*t, st.ctx.cluster_name);
    if (const auto* d = std::get_if<desired_template>(&validated)) {
      auto& regions = pass->regions_of[key];
      if (d->spec.region.empty()) {
        for (const auto& [name, client] : st.clients) regions.push_back(name);
      } else if (st.clients.count(d->spec.region)) {
        regions.push_back(d->spec.region);
      }
      if (regions.empty()) {
        pass->region_problem.insert_or_assign(
            key, spec_problem{"RegionNotConfigured",
                              d->spec.region.empty()
                                  ? "no Proxmox region is configured"
                                  : "region " + d->spec.region +
                                        " is not in the clusters file of the controller"});
      }
      needed.insert(regions.begin(), regions.end());
    }
    pass->templates.emplace(key, std::move(validated));
  }
  // Every region is read, for the orphans, even when no template names it.
  for (const auto& [name, client] : st.clients) needed.insert(name);
  auto all = make_barrier([self, pass] { plan_all(self, pass); });
  for (const auto& region : needed) {
    all->add();
    observe_region(self, pass, region, [all] { all->done(); });
  }
  all->done();
}

impl_actor::behavior_type manager_behavior(
    self_ptr self, controller_context ctx,
    std::map<std::string, std::shared_ptr<proxmox::client>> clients) {
  self->state.ctx = std::move(ctx);
  for (auto& [name, client] : clients) {
    if (client) self->state.clients[name] = std::move(client);
  }
  auto period = std::chrono::duration_cast<std::chrono::milliseconds>(
      self->state.ctx.settings.proxmox_inventory_interval);
  if (period < 1s) period = 1s;
  self->delayed_send(self, period, tick_atom::value);
  return {
      [self](protocol::snapshot_ptr snapshot) {
        // Before every informer listed once, a missing object proves nothing.
        if (!snapshot || !snapshot->synced) return;
        // Proxmox is read again only when the ProxmoxTemplates changed (or on the timer): a
        // burst of pods publishes a snapshot every few milliseconds.
        const bool templates_changed =
            !self->state.snapshot || self->state.snapshot->templates != snapshot->templates;
        self->state.snapshot = std::move(snapshot);
        if (templates_changed) run(self);
      },
      [self](resume_atom, continuation& c) { c.run(); },
      [self, period](tick_atom) {
        run(self);
        self->delayed_send(self, period, tick_atom::value);
      },
  };
}

}  // namespace

protocol::snapshot_listener spawn_template_manager(
    caf::actor_system& system, const controller_context& ctx,
    std::map<std::string, std::shared_ptr<proxmox::client>> clients_by_region) {
  auto impl = system.spawn(manager_behavior, ctx, std::move(clients_by_region));
  return caf::actor_cast<protocol::snapshot_listener>(impl);
}

}  // namespace kp::actors::template_manager
