// One pass at a time: ask every region the templates need for one observation (hosts, storages,
// import files, the VMs carrying our mark and how many linked clones use each retired one), plan
// each (template, host), run the downloads in parallel and every other step one after the other,
// then write the statuses that changed. Every Proxmox operation is a typed request to the
// region actor (protocol/region_template_messages.hpp): the region holds the credit window, hands
// out the VMIDs and re-checks the mark before it changes a VM; this actor owns no client. A
// snapshot arriving meanwhile marks the state dirty and one more pass follows; a pass that made
// progress is followed by another at once, which confirms it and takes the next steps
// (retirement); failures wait for the timer.
#include "actors/template_builder/template_builder.hpp"

#include <algorithm>
#include <set>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/status_refusals.hpp"
#include "actors/template_builder/template_plan.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::template_builder {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;
using tick_atom = caf::atom_constant<caf::atom("tmpltick")>;
using impl_actor = protocol::snapshot_listener::extend<caf::reacts_to<resume_atom, continuation>,
                                                       caf::reacts_to<tick_atom>>;

struct builder_state {
  controller_context ctx;
  boundary_ptr boundary;
  protocol::snapshot_ptr snapshot;
  obs::logger log{"template.builder"};
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
  static inline const char* name = "template-builder";
};

using self_ptr = impl_actor::stateful_pointer<builder_state>;

template <class T>
std::function<void(result<T>)> in_actor(self_ptr self, std::function<void(result<T>)> f,
                                        std::string subject) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f), std::move(subject));
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

std::string subject_of(const std::string& template_name) {
  return "ProxmoxTemplate " + template_name;
}

// --- what one pass sees and does -----------------------------------------------------------------

struct host_obs {
  std::vector<proxmox::storage_info> storages;
  std::vector<std::string> import_volids;
  std::string error;
  std::vector<existing_vm> vms;  // ours, on this host
};

struct region_obs {
  std::string error;
  std::map<std::string, host_obs> hosts;  // online hosts
};

struct job {
  std::string template_name;
  std::string region;
  host_plan plan;
  // The template each VM of this host belongs to, by its mark (orphans' steps name theirs).
  std::map<std::uint32_t, std::string> owner_of;
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

// How long the region gets to answer a step: the step's own task timeout, once more for the
// credit window (launches may hold every credit) and a minute for the calls around the task.
std::chrono::milliseconds answer_within(config::duration step_timeout) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(step_timeout) * 2 + 60s;
}

std::string error_text(const region_error& e) {
  return e.message.empty() ? e.code : e.message;
}

std::string no_answer(self_ptr self, const caf::error& e) {
  return "the region did not answer: " + self->system().render(e);
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

// Runs one stage of a pass; should it throw, the pass ends there (reported by the boundary) and
// the next snapshot or tick starts afresh, rather than leaving the actor busy for good.
template <class F>
void stage(self_ptr self, std::string_view what, F&& f) {
  if (!self->state.boundary->contain(what, std::forward<F>(f))) finish(self, false);
}

// --- status -------------------------------------------------------------------------------------

void announce(const builder_state& st, const kube::proxmox_template& t, const kube::condition& c) {
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

// The status of one template from what the pass saw and did; written only when it changed.
void write_status(self_ptr self, const pass_ptr& pass, const std::string& name,
                  const std::variant<desired_template, spec_problem>& validated,
                  const std::shared_ptr<barrier>& all) {
  auto& st = self->state;
  const auto* t = protocol::cluster_snapshot::find(pass->snapshot->templates, name);
  if (t == nullptr) return;
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
  auto status = desired_status(baseline, outcome, kube::format_rfc3339(st.ctx.wall_clock_ms()));
  if (same_status(status, baseline.status)) return;
  const auto generation = t->metadata.generation;
  auto body = conditions_digest(status.conditions) + status.image_id + status.zone_count;
  for (const auto& z : status.zones) body += z + ";";
  if (st.refusals.refused(name, generation, body)) return;
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
  auto written = [self, name, generation,
                  body = std::move(body)](result<kube::proxmox_template> r) {
    auto& st = self->state;
    if (r) {
      st.refusals.forget(name);
    } else if (status_refusals::is_refusal(r.error())) {
      st.written.erase(name);
      // The same write would be refused again: not before the generation changes.
      st.refusals.report(r.error(), "ProxmoxTemplate", name, generation, body, st.ctx.metrics.get(),
                         st.log);
    } else {
      st.written.erase(name);
      // A conflict means a newer object is on its way; its snapshot runs us again. Other
      // errors wait for the next snapshot or tick.
      st.log.warn("writing the template status failed",
                  {{"template", name}, {"error", r.error().code + ": " + r.error().message}});
    }
  };
  st.ctx.kube->update_status<kube::proxmox_template>(
      updated, in_actor<kube::proxmox_template>(
                   self,
                   [self, all, name, written](result<kube::proxmox_template> r) {
                     self->state.boundary->contain(subject_of(name),
                                                   [&] { written(std::move(r)); });
                     all->done();
                   },
                   subject_of(name)));
}

void write_statuses(self_ptr self, pass_ptr pass) {
  auto& st = self->state;
  bool progressed = false;
  for (const auto& j : pass->jobs) progressed = progressed || j->progressed;
  auto all = make_barrier([self, progressed] { finish(self, progressed); });
  for (const auto& [name, validated] : pass->templates) {
    // One template's status cannot hold up the others'.
    st.boundary->contain(subject_of(name), [&, &name = name, &validated = validated] {
      write_status(self, pass, name, validated, all);
    });
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

void log_step(const builder_state& st, const job& j, const step& s, const char* what) {
  st.log.info(what, {{"template", j.template_name},
                     {"region", j.region},
                     {"host", j.plan.host},
                     {"vmid", std::to_string(s.vmid)},
                     {"why", s.why}});
}

// What a step's outcome does to its job: `ok` runs with the reply of a step that succeeded,
// `failed` with the reason in words otherwise (a refusal, a Proxmox error, no answer in time).
struct step_outcome {
  std::function<void(const template_step_reply&)> ok;
  std::function<void(const std::string&)> failed;
};

// Sends one step to the region of `j`; its outcome updates the job inside the boundary, and
// `done` runs in every case, so a throwing outcome fails this template's step and nothing else.
template <class Request>
void send_step(self_ptr self, const std::shared_ptr<job>& j, Request req,
               config::duration step_timeout, step_outcome outcome, step_done done) {
  auto& st = self->state;
  auto region = st.ctx.regions.find(j->region);
  if (region == st.ctx.regions.end()) {
    outcome.failed("region " + j->region + " has no actor");
    return done();
  }
  auto handled = std::make_shared<step_outcome>(std::move(outcome));
  auto settle = [self, j, done](auto&& f) {
    if (!self->state.boundary->contain(subject_of(j->template_name), f)) {
      fail(*j, "CreateFailed", "an internal error stopped this step; the controller log says why");
    }
    done();
  };
  self->request(region->second, answer_within(step_timeout), template_atom::value, std::move(req))
      .then(
          [handled, settle](template_step_reply& r) {
            settle([&] {
              if (r.ok) {
                handled->ok(r);
              } else {
                handled->failed(error_text(r.error));
              }
            });
          },
          [self, handled, settle](caf::error& e) {
            settle([&] { handled->failed(no_answer(self, e)); });
          });
}

void run_download(self_ptr self, std::shared_ptr<job> j, const step& s, step_done done) {
  log_step(self->state, *j, s, "downloading template image");
  auto describe = [url = s.download.url,
                   target = j->plan.host + "/" + s.download.storage](const std::string& why) {
    return "download of " + url + " to " + target + " failed: " + why;
  };
  step_outcome o;
  o.ok = [j](const template_step_reply&) { j->progressed = true; };
  o.failed = [j, describe](const std::string& why) {
    fail(*j, "DownloadFailed", describe(why), true);
  };
  send_step(self, j, template_download_request{s.download},
            self->state.ctx.settings.proxmox_download_timeout, std::move(o), std::move(done));
}

// The template a VM's mark names: the job's own for the VM it builds, the mark's otherwise.
std::string owner(const job& j, std::uint32_t vmid) {
  auto it = j.owner_of.find(vmid);
  return it != j.owner_of.end() ? it->second : j.template_name;
}

void run_step(self_ptr self, std::shared_ptr<job> j, const step& s, step_done done) {
  auto& st = self->state;
  auto where = j->region + "/" + j->plan.host;
  const auto& timeouts = st.ctx.settings;
  switch (s.kind) {
    case step_kind::download:
      return run_download(self, j, s, std::move(done));
    case step_kind::create: {
      log_step(st, *j, s, "creating template VM");
      // The region picks the VMID from its one allocator, the one launches use.
      template_create_request req{j->plan.host, j->template_name, s.config};
      step_outcome o;
      o.ok = [j](const template_step_reply& r) {
        j->built_vmid = r.vmid;
        j->progressed = true;
      };
      o.failed = [j, where](const std::string& why) {
        fail(*j, "CreateFailed", "creating the template VM on " + where + " failed: " + why);
      };
      return send_step(self, j, std::move(req), timeouts.proxmox_clone_timeout, std::move(o),
                       std::move(done));
    }
    case step_kind::convert: {
      std::uint32_t vmid = s.vmid != 0 ? s.vmid : j->built_vmid.value_or(0);
      log_step(st, *j, s, "converting VM to template");
      template_convert_request req{j->plan.host, vmid, owner(*j, vmid)};
      step_outcome o;
      o.ok = [j, vmid](const template_step_reply&) {
        j->built_vmid = vmid;
        j->progressed = true;
      };
      o.failed = [j, vmid, where](const std::string& why) {
        fail(*j, "TemplateConversionFailed",
             "converting VM " + std::to_string(vmid) + " on " + where +
                 " to a template failed: " + why);
      };
      return send_step(self, j, std::move(req), timeouts.proxmox_template_timeout, std::move(o),
                       std::move(done));
    }
    case step_kind::retire: {
      log_step(st, *j, s, "retiring template VM");
      template_retire_request req{j->plan.host, s.vmid, owner(*j, s.vmid), s.config};
      step_outcome o;
      o.ok = [j](const template_step_reply&) { j->progressed = true; };
      // A failed retirement leaves a working template of the old image: logged, retried on the
      // next pass, never a condition.
      o.failed = [self, j, vmid = s.vmid](const std::string& why) {
        self->state.log.warn("retiring a template VM failed", {{"template", j->template_name},
                                                               {"host", j->plan.host},
                                                               {"vmid", std::to_string(vmid)},
                                                               {"error", why}});
      };
      return send_step(self, j, std::move(req), timeouts.proxmox_config_timeout, std::move(o),
                       std::move(done));
    }
    case step_kind::destroy: {
      log_step(st, *j, s, "destroying template VM");
      template_delete_request req{j->plan.host, s.vmid, owner(*j, s.vmid)};
      step_outcome o;
      o.ok = [j](const template_step_reply&) { j->progressed = true; };
      // Refused while linked clones use the base volume (or anything else): the VM stays
      // retired and the next pass tries again. Never a condition.
      o.failed = [self, j, vmid = s.vmid](const std::string& why) {
        self->state.log.info("template VM kept for now", {{"template", j->template_name},
                                                          {"host", j->plan.host},
                                                          {"vmid", std::to_string(vmid)},
                                                          {"reason", why}});
      };
      return send_step(self, j, std::move(req), timeouts.proxmox_delete_timeout, std::move(o),
                       std::move(done));
    }
  }
  done();
}

// Runs the job's remaining steps in order, stopping at the first failure.
void run_job(self_ptr self, std::shared_ptr<job> j, step_done done) {
  while (j->next < j->plan.steps.size() && j->plan.steps[j->next].kind == step_kind::download) {
    ++j->next;  // downloads ran in the first phase
  }
  if (j->failed || j->next >= j->plan.steps.size()) return done();
  const auto& s = j->plan.steps[j->next++];
  // Sending the step is its last act: a throw before it sent nothing, so the job ends here.
  bool sent = self->state.boundary->contain(subject_of(j->template_name), [&] {
    run_step(self, j, s, [self, j, done] { run_job(self, j, done); });
  });
  if (!sent) {
    fail(*j, "CreateFailed", "an internal error stopped this step; the controller log says why");
    done();
  }
}

void run_jobs_in_order(self_ptr self, pass_ptr pass, std::size_t index) {
  if (index >= pass->jobs.size()) {
    return stage(self, "the template statuses", [&] { write_statuses(self, pass); });
  }
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
      bool sent = self->state.boundary->contain(subject_of(j->template_name), [&] {
        run_download(self, j, s, [downloads] { downloads->done(); });
      });
      if (!sent) {
        fail(*j, "DownloadFailed", "an internal error stopped the download", true);
        downloads->done();
      }
    }
  }
  downloads->done();
}

// --- planning ------------------------------------------------------------------------------------

std::shared_ptr<job> make_job(const std::string& template_name, const std::string& region,
                              const host_view& view) {
  auto j = std::make_shared<job>();
  j->template_name = template_name;
  j->region = region;
  for (const auto& vm : view.vms) j->owner_of[vm.vmid] = vm.mark.template_name;
  return j;
}

void plan_template(self_ptr self, pass_ptr pass, const std::string& name,
                   const desired_template& d) {
  auto& st = self->state;
  for (const auto& region : pass->regions_of[name]) {
    const auto& obs = pass->regions[region];
    if (!obs.error.empty()) continue;
    for (const auto& [host, hobs] : obs.hosts) {
      host_view view;
      view.host = host;
      view.storages = hobs.storages;
      view.import_volids = hobs.import_volids;
      view.vms = hobs.vms;
      auto j = make_job(name, region, view);
      j->plan = plan_host(d, view);
      if (!hobs.error.empty()) {
        // Part of the host could not be read: acting on half a view could duplicate a
        // template or re-download a file, so this pass only reports.
        j->plan.steps.clear();
        if (!j->plan.ready_vmid) j->plan.blocked = spec_problem{"ProxmoxUnreachable", hobs.error};
      }
      if (j->plan.retired_kept > 0) {
        st.log.debug(
            "retired templates kept: linked clones use them",
            {{"template", name}, {"host", host}, {"count", std::to_string(j->plan.retired_kept)}});
      }
      pass->jobs.push_back(std::move(j));
    }
  }
}

void plan_all(self_ptr self, pass_ptr pass) {
  auto& st = self->state;
  for (const auto& [name, validated] : pass->templates) {
    const auto* d = std::get_if<desired_template>(&validated);
    if (d == nullptr) continue;
    st.boundary->contain(subject_of(name),
                         [&, &name = name] { plan_template(self, pass, name, *d); });
  }
  // VMs of ProxmoxTemplates that are gone. Only from a snapshot holding the kind at all: a
  // missing map proves nothing.
  std::vector<std::string> known;
  for (const auto& [key, t] : *pass->snapshot->templates) known.push_back(t->metadata.name);
  for (const auto& [region, obs] : pass->regions) {
    if (!obs.error.empty()) continue;
    for (const auto& [host, hobs] : obs.hosts) {
      if (!hobs.error.empty()) continue;
      host_view view;
      view.host = host;
      view.vms = hobs.vms;
      auto plan = plan_orphans(st.ctx.cluster_name, view, known);
      if (plan.steps.empty()) continue;
      auto j = make_job("(deleted ProxmoxTemplate)", region, view);  // matches no object
      j->plan = std::move(plan);
      pass->jobs.push_back(std::move(j));
    }
  }
  execute(self, pass);
}

// --- observing -----------------------------------------------------------------------------------

void take_observation(region_obs& obs, const template_observation& o) {
  if (!o.ok) {
    obs.error = o.error.empty() ? "the region could not list its resources" : o.error;
    return;
  }
  for (const auto& h : o.hosts) {
    auto& hobs = obs.hosts[h.host];
    hobs.storages = h.storages;
    hobs.import_volids = h.import_volids;
    hobs.error = h.error;
  }
  for (const auto& vm : o.vms) {
    auto host = obs.hosts.find(vm.host);
    auto mark = parse_template_mark(vm.description);
    if (host == obs.hosts.end() || !mark) continue;
    existing_vm e;
    e.vmid = vm.vmid;
    e.name = vm.name;
    e.is_template = vm.is_template;
    e.tags = vm.tags;
    e.description = vm.description;
    e.mark = *mark;
    if (mark->retired && vm.linked_clones_known) e.linked_clones = vm.linked_clones;
    host->second.vms.push_back(std::move(e));
  }
}

// Asks the region for what the templates need to know of it.
void observe_region(self_ptr self, pass_ptr pass, const std::string& region,
                    std::function<void()> then) {
  auto& st = self->state;
  template_observe_request req;
  std::set<std::string> storages;
  for (const auto& [name, regions] : pass->regions_of) {
    if (std::find(regions.begin(), regions.end(), region) == regions.end()) continue;
    req.template_names.push_back(name);
    if (const auto* d = std::get_if<desired_template>(&pass->templates[name])) {
      storages.insert(d->spec.storage_ids.begin(), d->spec.storage_ids.end());
    }
  }
  req.import_storages.assign(storages.begin(), storages.end());
  auto settle = [self, pass, region, then](auto&& f) {
    if (!self->state.boundary->contain("region " + region, f)) {
      pass->regions[region].error = "an internal error; the controller log says why";
    }
    then();
  };
  self->request(st.ctx.regions.at(region), answer_within(st.ctx.settings.proxmox_config_timeout),
                template_atom::value, std::move(req))
      .then(
          [pass, region, settle](template_observation& o) {
            settle([&] { take_observation(pass->regions[region], o); });
          },
          [self, pass, region, settle](caf::error& e) {
            settle([&] { pass->regions[region].error = no_answer(self, e); });
          });
}

void start_pass(self_ptr self) {
  auto& st = self->state;
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
        for (const auto& [name, region] : st.ctx.regions) regions.push_back(name);
      } else if (st.ctx.regions.count(d->spec.region)) {
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
  for (const auto& [name, region] : st.ctx.regions) needed.insert(name);
  auto all = make_barrier([self, pass] { stage(self, "planning", [&] { plan_all(self, pass); }); });
  for (const auto& region : needed) {
    all->add();
    observe_region(self, pass, region, [all] { all->done(); });
  }
  all->done();
}

void run(self_ptr self) {
  auto& st = self->state;
  if (st.busy) {
    st.dirty = true;
    return;
  }
  // No ProxmoxTemplate at all still runs: VMs of deleted ones are retired and destroyed.
  if (!st.snapshot || !st.snapshot->templates || st.ctx.regions.empty()) return;
  stage(self, "starting a pass", [&] { start_pass(self); });
}

impl_actor::behavior_type builder_behavior(self_ptr self, controller_context ctx) {
  self->state.ctx = std::move(ctx);
  auto boundary = make_boundary("template_builder", self->state.ctx.metrics);
  self->state.boundary = boundary;
  install_boundary(self, boundary);
  auto period = std::chrono::duration_cast<std::chrono::milliseconds>(
      self->state.ctx.settings.proxmox_inventory_interval);
  if (period < 1s) period = 1s;
  self->delayed_send(self, period, tick_atom::value);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
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
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self, period](tick_atom) {
        self->delayed_send(self, period, tick_atom::value);
        run(self);
      });
}

}  // namespace

protocol::snapshot_listener spawn_template_builder(caf::actor_system& system,
                                                   const controller_context& ctx) {
  return system.spawn(builder_behavior, ctx);
}

}  // namespace kp::actors::template_builder
