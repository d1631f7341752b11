// The capacity buffer actor. Evaluations are debounced: a snapshot schedules one after the
// evaluation interval, so a burst of snapshots costs one simulation. Reads of scalable objects
// and status writes complete on io threads and come back as `resume` messages. A buffer whose
// scalable object has not been read yet is left out of an evaluation (no status, no pods)
// rather than judged on a guess.
#include "actors/capacity_buffer/capacity_buffer_actor.hpp"

#include <map>
#include <set>
#include <tuple>

#include <caf/all.hpp>

#include "actors/condition_reasons.hpp"
#include "actors/continuation.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/provisioning/scheduling_input.hpp"
#include "actors/status_conditions.hpp"
#include "core/capacity_buffer/capacity_buffer.hpp"
#include "core/scheduling/provision.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/apps_v1.hpp"
#include "protocol/kube/autoscaling_v1beta1.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::capacity_buffer {
namespace {

namespace cb = kp::capacity_buffer;
using namespace kp::protocol;

using evaluate_atom = caf::atom_constant<caf::atom("cb_eval")>;
using refresh_atom = caf::atom_constant<caf::atom("cb_fresh")>;
using impl_actor =
    snapshot_listener::extend<caf::reacts_to<evaluate_atom>, caf::reacts_to<refresh_atom>,
                              caf::reacts_to<resume_atom, continuation>>;

constexpr const char* default_strategy = "buffer.x-k8s.io/active-capacity";
constexpr const char* api_version = "autoscaling.x-k8s.io/v1beta1";

// namespace, kind, name
using scalable_key = std::tuple<std::string, std::string, std::string>;

struct scalable_read {
  bool done = false;     // an answer arrived (absent or not)
  bool absent = false;   // the object does not exist
  bool stale = false;    // read again at the next evaluation
  bool reading = false;  // a read is under way; the last answer stays in use meanwhile
  cb::scalable_object object;
};

struct buffer_record {
  std::string verdict;  // ReadyForProvisioning reason + message last reported
  int in_flight = 0;
  std::string written_from;  // resourceVersion the last write was based on
  std::optional<kube::capacity_buffer_status> written;
};

struct state {
  state() = default;  // not an aggregate (CAF 0.17 would build it from the actor pointer)
  controller_context ctx;
  capacity_buffer_options opt;
  snapshot_ptr latest;
  bool evaluation_scheduled = false;
  std::uint64_t evaluations = 0;
  std::map<scalable_key, scalable_read> scalables;
  std::map<std::string, buffer_record> buffers;  // by namespace/name
  bool published_pods = false;
  boundary_ptr boundary;
  obs::logger log{"capacitybuffer"};
};

using self_ptr = impl_actor::stateful_pointer<state>;

condition_reason listed_reason(std::string_view r) {
  namespace rs = cb::reasons;
  if (r == rs::resolved) return "Resolved";
  if (r == rs::pod_template_not_found) return "PodTemplateNotFound";
  if (r == rs::scalable_ref_not_found) return "ScalableRefNotFound";
  if (r == rs::fits_existing_capacity) return "FitsExistingCapacity";
  if (r == rs::requires_new_capacity) return "RequiresNewCapacity";
  if (r == rs::not_ready_for_provisioning) return "NotReadyForProvisioning";
  if (r == rs::buffer_empty) return "BufferEmpty";
  return "ResolutionFailed";
}

// A pod template as a pod of `namespace_`, or the reason it does not translate.
result<model::pod> template_pod(const kube::pod_template_spec& t, const std::string& namespace_,
                                const std::string& name) {
  kube::pod p;
  p.metadata = t.metadata;
  p.metadata.name = name;
  p.metadata.namespace_ = namespace_;
  p.spec = t.spec;
  auto m = kube::to_model(p);
  if (!m) return m.error();
  if (auto requests = model::checked_pod_requests(*m); !requests) return requests.error();
  return m;
}

cb::buffer to_core(const kube::capacity_buffer& b, std::string& limits_error) {
  cb::buffer out;
  out.namespace_ = b.metadata.namespace_;
  out.name = b.metadata.name;
  out.uid = b.metadata.uid;
  if (b.spec.pod_template_ref) out.pod_template_ref = b.spec.pod_template_ref->name;
  if (b.spec.scalable_ref)
    out.scalable = cb::scalable_ref{b.spec.scalable_ref->api_group, b.spec.scalable_ref->kind,
                                    b.spec.scalable_ref->name};
  out.replicas = b.spec.replicas;
  out.percentage = b.spec.percentage;
  if (b.spec.limits) {
    auto limits = model::parse_resource_list(*b.spec.limits);
    if (limits)
      out.limits = std::move(*limits);
    else
      limits_error = limits.error().message;
  }
  return out;
}

kube::condition make_condition(const kube::capacity_buffer& b, std::string_view type, bool ok,
                               condition_reason reason, std::string message, std::int64_t now) {
  return next_condition(b.status.conditions, std::string(type), ok ? "True" : "False", reason,
                        std::move(message), b.metadata.generation, kube::format_rfc3339(now));
}

// The status a buffer should show, given its resolution and how many of its virtual pods fit on
// registered nodes now (Karpenter's Provisioning: True only when all of them fit there).
kube::capacity_buffer_status desired_status(const kube::capacity_buffer& b, const cb::resolution& r,
                                            std::int64_t fitting, std::int64_t now) {
  kube::capacity_buffer_status s;
  s.provisioning_strategy = b.spec.provisioning_strategy.value_or(default_strategy);
  if (r.ready) {
    s.replicas = r.replicas;
    if (r.status_pod_template) s.pod_template_ref = kube::local_object_ref{*r.status_pod_template};
    s.pod_template_generation = r.pod_template_generation;
  }
  s.conditions.push_back(make_condition(b, cb::conditions::ready_for_provisioning, r.ready,
                                        listed_reason(r.reason), r.message, now));
  namespace rs = cb::reasons;
  const auto n = std::to_string(r.replicas);
  if (!r.ready)
    s.conditions.push_back(make_condition(b, cb::conditions::provisioning, false,
                                          listed_reason(rs::not_ready_for_provisioning),
                                          "Buffer is not ReadyForProvisioning", now));
  else if (r.replicas == 0)
    s.conditions.push_back(make_condition(b, cb::conditions::provisioning, false,
                                          listed_reason(rs::buffer_empty),
                                          "Buffer has zero desired replicas", now));
  else if (fitting >= r.replicas)
    s.conditions.push_back(make_condition(
        b, cb::conditions::provisioning, true, listed_reason(rs::fits_existing_capacity),
        "All " + n + " virtual pods fit on existing capacity", now));
  else
    s.conditions.push_back(make_condition(
        b, cb::conditions::provisioning, false, listed_reason(rs::requires_new_capacity),
        std::to_string(r.replicas - fitting) + "/" + n + " virtual pods require new capacity",
        now));
  return s;
}

void schedule_evaluation(self_ptr self) {
  auto& st = self->state;
  if (st.evaluation_scheduled) return;
  st.evaluation_scheduled = true;
  self->delayed_send(self, st.opt.evaluation_interval, evaluate_atom::value);
}

// The answer to a scalable object's reads, recorded for the next evaluation.
void record_scalable(self_ptr self, const scalable_key& key,
                     const result<kube::replicated_workload>& workload,
                     const result<kube::scale>& scale) {
  auto& read = self->state.scalables[key];
  read = scalable_read{};
  read.done = true;
  read.object.namespace_ = std::get<0>(key);
  read.object.ref = {"apps", std::get<1>(key), std::get<2>(key)};
  if (!workload) {
    read.absent = workload.error().code == "not_found";
    if (!read.absent) read.object.error = workload.error().message;
  } else if (!scale) {
    read.object.error = "reading its scale: " + scale.error().message;
  } else {
    read.object.replicas = scale->spec_replicas;
    auto pod = template_pod(workload->template_, read.object.namespace_, std::get<2>(key));
    if (pod)
      read.object.pod = std::move(*pod);
    else
      read.object.error = "spec.template: " + pod.error().message;
  }
  schedule_evaluation(self);
}

// Reads a scalable object of kind T (its pod template), then its /scale (its replicas); the
// answers come back as continuations.
template <class T>
void read_scalable_as(self_ptr self, const scalable_key& key) {
  auto client = self->state.ctx.kube;
  if (!client) return;
  auto handle = impl_actor{self};
  const kube::object_key where{std::get<0>(key), std::get<2>(key)};
  const std::string subject = "CapacityBuffer scalableRef " + std::get<1>(key) + " " +
                              std::get<0>(key) + "/" + std::get<2>(key);
  client->get<T>(where, resume_in<result<T>>(
                            handle,
                            [self, key, client, handle, where, subject](result<T> got) {
                              if (!got) {
                                record_scalable(self, key, got.error(), kp::error{});
                                return;
                              }
                              kube::replicated_workload workload = *got;
                              client->get_scale<T>(
                                  where, resume_in<result<kube::scale>>(
                                             handle,
                                             [self, key, workload](result<kube::scale> sc) {
                                               record_scalable(self, key, workload, sc);
                                             },
                                             subject));
                            },
                            subject));
}

void read_scalable(self_ptr self, const scalable_key& key) {
  const auto& kind = std::get<1>(key);
  if (kind == "Deployment") return read_scalable_as<kube::deployment>(self, key);
  if (kind == "ReplicaSet") return read_scalable_as<kube::replica_set>(self, key);
  if (kind == "StatefulSet") return read_scalable_as<kube::stateful_set>(self, key);
}

void write_status(self_ptr self, const kube::capacity_buffer& b,
                  const kube::capacity_buffer_status& desired) {
  auto& st = self->state;
  const std::string key = object_key_of(b);
  auto& rec = st.buffers[key];
  if (rec.in_flight > 0) return;
  if (b.status == desired) return;
  if (rec.written && *rec.written == desired && rec.written_from == b.metadata.resource_version)
    return;  // the snapshot has not caught up with our write yet
  if (!st.ctx.kube) return;
  ++rec.in_flight;
  rec.written = desired;
  rec.written_from = b.metadata.resource_version;
  st.ctx.kube->patch<kube::capacity_buffer>(
      {b.metadata.namespace_, b.metadata.name}, kube::patch_type::merge,
      kube::capacity_buffer_status_merge_patch(desired),
      resume_in<result<kube::capacity_buffer>>(
          impl_actor{self},
          [self, key](result<kube::capacity_buffer> r) {
            auto& rec = self->state.buffers[key];
            --rec.in_flight;
            if (r) {
              rec.written_from = r->metadata.resource_version;
              return;
            }
            rec.written.reset();
            self->state.log.warn(
                "writing capacity buffer status failed",
                {{"capacitybuffer", key}, {"code", r.error().code}, {"error", r.error().message}});
          },
          "CapacityBuffer " + key),
      "status");
}

void report_verdict(self_ptr self, const kube::capacity_buffer& b, const cb::resolution& r) {
  auto& st = self->state;
  auto& rec = st.buffers[object_key_of(b)];
  const std::string verdict = r.reason + "|" + r.message;
  if (rec.verdict == verdict) return;
  const bool first = rec.verdict.empty();
  rec.verdict = verdict;
  const std::string key = object_key_of(b);
  if (r.ready && first && r.replicas == 0) return;  // nothing worth telling
  event_record e;
  e.kind = "CapacityBuffer";
  e.api_version = api_version;
  e.namespace_ = b.metadata.namespace_;
  e.name = b.metadata.name;
  e.uid = b.metadata.uid;
  e.reason = listed_reason(r.reason).str();
  if (r.ready) {
    e.message = "Buffer resolved: " + std::to_string(r.replicas) + " chunks in effect";
    st.log.info("capacity buffer resolved",
                {{"capacitybuffer", key}, {"replicas", std::to_string(r.replicas)}});
  } else {
    e.type = "Warning";
    e.message = r.message;
    st.log.warn("capacity buffer not ready for provisioning", {{"capacitybuffer", key},
                                                               {"reason", r.reason},
                                                               {"field", r.field},
                                                               {"message", r.message}});
  }
  record_event(st.ctx, std::move(e));
}

void publish(self_ptr self, std::shared_ptr<const std::vector<model::pod>> pods) {
  auto& st = self->state;
  if (pods->empty() && !st.published_pods) return;
  st.published_pods = !pods->empty();
  buffer_pods msg{++st.evaluations, std::move(pods)};
  for (const auto& l : st.opt.listeners) self->send(l, msg);
}

void evaluate(self_ptr self) {
  auto& st = self->state;
  if (!st.latest || !st.latest->synced) return;
  const auto& snap = *st.latest;
  const auto now = st.ctx.wall_clock_ms();

  cb::inputs in;
  std::vector<const kube::capacity_buffer*> objects;
  std::vector<cb::resolution> early;  // buffers refused before resolve() (bad limits)
  std::vector<const kube::capacity_buffer*> early_objects;
  std::set<scalable_key> wanted;
  if (snap.capacity_buffers)
    for (const auto& [key, b] : *snap.capacity_buffers) {
      if (b->metadata.deletion_timestamp) continue;
      std::string limits_error;
      auto core = to_core(*b, limits_error);
      if (!limits_error.empty()) {
        cb::resolution r;
        r.namespace_ = core.namespace_;
        r.name = core.name;
        r.reason = std::string(cb::reasons::resolution_failed);
        r.field = "spec.limits";
        r.message = "spec.limits: " + limits_error;
        early.push_back(std::move(r));
        early_objects.push_back(b.get());
        continue;
      }
      if (core.scalable && !core.pod_template_ref && cb::is_supported_scalable(*core.scalable)) {
        scalable_key sk{core.namespace_, core.scalable->kind, core.scalable->name};
        wanted.insert(sk);
        auto& read = st.scalables[sk];
        if ((!read.done || read.stale) && !read.reading) {
          read.reading = true;
          read.stale = false;
          read_scalable(self, sk);
        }
        if (!read.done) continue;  // judged once the first read is answered
      }
      in.buffers.push_back(std::move(core));
      objects.push_back(b.get());
    }
  for (auto it = st.scalables.begin(); it != st.scalables.end();)
    it = wanted.count(it->first) || it->second.reading ? std::next(it) : st.scalables.erase(it);
  for (const auto& [key, read] : st.scalables)
    if (read.done && !read.absent) in.scalables.push_back(read.object);
  if (snap.pod_templates)
    for (const auto& [key, t] : *snap.pod_templates) {
      cb::pod_template pt;
      pt.namespace_ = t->metadata.namespace_;
      pt.name = t->metadata.name;
      pt.generation = t->metadata.generation;
      auto pod = template_pod(t->template_, pt.namespace_, pt.name);
      if (pod)
        pt.pod = std::move(*pod);
      else
        pt.error = "template: " + pod.error().message;
      in.templates.push_back(std::move(pt));
    }

  auto resolutions = cb::resolve(in);

  // Which virtual pods fit on registered nodes now: the simulation without NodePools.
  auto pods = std::make_shared<std::vector<model::pod>>();
  for (const auto& r : resolutions)
    if (r.ready) pods->insert(pods->end(), r.pods.begin(), r.pods.end());
  std::map<std::string, std::int64_t> fitting;  // by buffer key
  if (!pods->empty()) {
    auto input = provisioning::build_scheduling_input(snap, {}, {}, st.ctx.instance_types);
    input.snap.pods = *pods;
    input.snap.nodepools.clear();
    auto plan = scheduling::provision(input.snap);
    for (const auto& b : plan.bindings) {
      if (b.in_flight || b.pod >= pods->size()) continue;
      (*pods)[b.pod].node_name = b.node;
      ++fitting[cb::buffer_key_of((*pods)[b.pod])];
    }
  }

  for (std::size_t i = 0; i < resolutions.size(); ++i) {
    const auto& r = resolutions[i];
    const auto& b = *objects[i];
    st.boundary->contain("CapacityBuffer " + object_key_of(b), [&] {
      report_verdict(self, b, r);
      write_status(self, b, desired_status(b, r, fitting[object_key_of(b)], now));
    });
  }
  for (std::size_t i = 0; i < early.size(); ++i) {
    const auto& b = *early_objects[i];
    st.boundary->contain("CapacityBuffer " + object_key_of(b), [&] {
      report_verdict(self, b, early[i]);
      write_status(self, b, desired_status(b, early[i], 0, now));
    });
  }
  // Forget records of buffers that are gone.
  for (auto it = st.buffers.begin(); it != st.buffers.end();) {
    const bool present = snap.capacity_buffers && snap.capacity_buffers->count(it->first);
    it = present || it->second.in_flight > 0 ? std::next(it) : st.buffers.erase(it);
  }
  publish(self, std::move(pods));
}

impl_actor::behavior_type capacity_buffer_behavior(self_ptr self, controller_context ctx,
                                                   capacity_buffer_options opt) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.opt = std::move(opt);
  st.boundary = make_boundary("capacitybuffer", st.ctx.metrics);
  install_boundary(self, st.boundary);
  self->delayed_send(self, st.opt.refresh_interval, refresh_atom::value);
  return guarded_behavior<impl_actor::behavior_type>(
      st.boundary,
      [self](snapshot_ptr& snap) {
        if (!snap) return;
        self->state.latest = std::move(snap);
        schedule_evaluation(self);
      },
      [self](evaluate_atom) {
        self->state.evaluation_scheduled = false;
        evaluate(self);
      },
      [self](refresh_atom) {
        auto& st = self->state;
        self->delayed_send(self, st.opt.refresh_interval, refresh_atom::value);
        for (auto& [key, read] : st.scalables) read.stale = true;
        schedule_evaluation(self);
      },
      [self](resume_atom, continuation& c) { self->state.boundary->run(c); });
}

}  // namespace

snapshot_listener spawn_capacity_buffer(caf::actor_system& system, const controller_context& ctx,
                                        capacity_buffer_options options) {
  auto handle = system.spawn(capacity_buffer_behavior, ctx, std::move(options));
  return handle;
}

}  // namespace kp::actors::capacity_buffer
