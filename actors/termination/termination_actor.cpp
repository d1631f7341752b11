#include "actors/termination/termination_actor.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/event_reasons.hpp"
#include "actors/failure_boundary.hpp"
#include "actors/termination/drain_plan.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"
#include "protocol/provider_id.hpp"

namespace kp::actors {

namespace {

using namespace std::chrono_literals;
using namespace termination;
using protocol::cluster_snapshot;
using protocol::parse_provider_id;

using term_tick_atom = caf::atom_constant<caf::atom("termtick")>;

using impl_actor = protocol::termination_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                                       caf::reacts_to<term_tick_atom>>;

constexpr auto tick_interval = 1s;
constexpr const char* exclude_lb_label = "node.kubernetes.io/exclude-from-external-load-balancers";
constexpr std::int64_t claim_delete_retry_ms = 10'000;
constexpr auto region_request_timeout = std::chrono::minutes(10);

// Retries of one pod's eviction (a PDB said no) or one step of a job: 1 s doubling to 10 s,
// close to Karpenter's 100 ms -> 10 s per-item limiter without hammering a blocked budget.
std::int64_t retry_delay_ms(int failures) {
  std::int64_t d = 1000;
  for (int i = 1; i < failures && d < 10'000; ++i) d *= 2;
  return std::min<std::int64_t>(d, 10'000);
}

struct pod_attempt {
  bool in_flight = false;
  std::int64_t next_ms = 0;
  int failures = 0;
  bool reported = false;  // FailedDraining said once
};

// One NodeClaim (or one claim-less Node of ours) on its way out. The flags remember finished
// steps, so a snapshot that has not caught up with our own writes does not redo them.
struct job {
  std::string claim;      // "" for a Node without NodeClaim
  std::string node_name;  // for a claim-less Node
  std::int64_t drain_started_ms = 0;
  bool busy = false;  // a write of this job is in flight
  bool announced = false;
  bool tainted = false;
  bool drained = false;
  bool volumes_reported = false;
  bool vm_deleted = false;
  bool node_done = false;
  bool finished = false;
  std::int64_t retry_at_ms = 0;
  int failures = 0;
};

struct termination_state {
  controller_context ctx;
  protocol::snapshot_ptr snap;
  std::map<std::string, job> jobs;                    // "claim/<name>" or "node/<name>"
  std::map<std::string, pod_attempt> pods;            // by pod UID
  std::map<std::string, std::int64_t> claim_deletes;  // NodeClaims we deleted for their Node
  bool tick_pending = false;
  bool reconcile_queued = false;
  boundary_ptr boundary;
  obs::logger log{"termination"};
  static inline const char* name = "termination";
};

using self_ptr = impl_actor::stateful_pointer<termination_state>;

template <class T>
std::function<void(T)> back(self_ptr self, std::function<void(T)> f) {
  return resume_in<T>(impl_actor{self}, std::move(f));
}

std::string label_of(const kube::object_meta& m, const std::string& key) {
  auto it = m.labels.find(key);
  return it == m.labels.end() ? std::string() : it->second;
}

bool has_finalizer(const kube::object_meta& m) {
  return std::find(m.finalizers.begin(), m.finalizers.end(), termination_finalizer) !=
         m.finalizers.end();
}

// Ours: the NodeClass is ours (or not named), so another provider's claims are left alone.
bool our_claim(const kube::node_claim& c) {
  const auto& group = c.spec.node_class_ref.group;
  return group.empty() || group == "karpenter.proxmox.sinextra.dev";
}

const kube::node* node_of_claim(const cluster_snapshot& s, const kube::node_claim& claim) {
  if (!claim.status.node_name.empty()) {
    if (const auto* n = cluster_snapshot::find(s.nodes, claim.status.node_name)) return n;
  }
  if (!s.nodes || claim.status.provider_id.empty()) return nullptr;
  for (const auto& [key, n] : *s.nodes) {
    (void)key;
    if (n->spec.provider_id == claim.status.provider_id) return n.get();
  }
  return nullptr;
}

const kube::node_claim* claim_of_node(const cluster_snapshot& s, const kube::node& node) {
  if (!s.node_claims) return nullptr;
  for (const auto& [key, c] : *s.node_claims) {
    (void)key;
    if (c->status.node_name == node.metadata.name) return c.get();
    if (!node.spec.provider_id.empty() && c->status.provider_id == node.spec.provider_id) {
      return c.get();
    }
  }
  return nullptr;
}

std::int64_t ms_of(config::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

void event_on(self_ptr self, std::string kind, std::string api_version, const kube::object_meta& m,
              std::string type, event_reason reason, std::string message) {
  protocol::event_record e;
  e.kind = std::move(kind);
  e.api_version = std::move(api_version);
  e.namespace_ = m.namespace_;
  e.name = m.name;
  e.uid = m.uid;
  e.type = std::move(type);
  e.reason = reason.str();
  e.message = std::move(message);
  record_event(self->state.ctx, std::move(e));
}

void claim_event(self_ptr self, const kube::node_claim& c, std::string type, event_reason reason,
                 std::string message) {
  event_on(self, "NodeClaim", "karpenter.sh/v1", c.metadata, std::move(type), std::move(reason),
           std::move(message));
}

void node_event(self_ptr self, const kube::node& n, std::string type, event_reason reason,
                std::string message) {
  event_on(self, "Node", "v1", n.metadata, std::move(type), std::move(reason), std::move(message));
}

void count_eviction(self_ptr self, const std::string& code) {
  if (auto& m = self->state.ctx.metrics)
    m->pods_eviction_requests.Add({{"code", code}}).Increment();
}

void count_drained_pod(self_ptr self, const std::string& reason) {
  if (auto& m = self->state.ctx.metrics) m->pods_drained.Add({{"reason", reason}}).Increment();
}

// Karpenter labels drained pods with the NodeClaim's disruption reason.
std::string disruption_reason(const kube::node_claim* claim) {
  if (!claim) return "deleted";
  for (const auto& c : claim->status.conditions) {
    if ((c.type == "DisruptionReason" || c.type == "Disrupted") && c.status == "True" &&
        !c.reason.empty()) {
      std::string r = c.reason;
      std::transform(r.begin(), r.end(), r.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      return r;
    }
  }
  return "deleted";
}

void reconcile(self_ptr self);

// Runs another pass soon, as a message: a step may finish synchronously inside a pass, which
// must not re-enter itself while it walks the jobs.
void request_reconcile(self_ptr self) {
  if (self->state.reconcile_queued) return;
  self->state.reconcile_queued = true;
  self->send(impl_actor{self}, resume_atom::value, continuation{[self] {
               self->state.reconcile_queued = false;
               reconcile(self);
             }});
}

// A step of `key` failed: log it and retry after a growing delay.
void step_failed(self_ptr self, const std::string& key, const std::string& what,
                 const kp::error& e) {
  auto it = self->state.jobs.find(key);
  if (it == self->state.jobs.end()) return;
  auto& j = it->second;
  j.busy = false;
  ++j.failures;
  j.retry_at_ms = self->state.ctx.wall_clock_ms() + retry_delay_ms(j.failures);
  self->state.log.warn(what + " failed; retrying",
                       {{"job", key}, {"code", e.code}, {"error", e.message}});
}

// Ends a step of `key` successfully and applies `mark` to the job (if it still exists).
void step_done(self_ptr self, const std::string& key, const std::function<void(job&)>& mark) {
  auto it = self->state.jobs.find(key);
  if (it == self->state.jobs.end()) return;
  it->second.busy = false;
  it->second.failures = 0;
  it->second.retry_at_ms = 0;
  mark(it->second);
  request_reconcile(self);
}

// --- Kubernetes writes ------------------------------------------------------------------------

// Reads the Node fresh (the snapshot may lag) and adds the taint with a resourceVersion test.
void taint_node(self_ptr self, const std::string& key, const std::string& node) {
  auto kube = self->state.ctx.kube;
  std::string now = kube::format_rfc3339(self->state.ctx.wall_clock_ms());
  kube->get<kube::node>(
      {"", node}, back<result<kube::node>>(self, [self, key, node, now](result<kube::node> n) {
        if (!n) {
          if (n.error().code == "not_found") {
            step_done(self, key, [](job& j) { j.tainted = true; });
          } else {
            step_failed(self, key, "reading Node " + node, n.error());
          }
          return;
        }
        if (has_disrupted_taint(n->spec.taints)) {
          step_done(self, key, [](job& j) { j.tainted = true; });
          return;
        }
        auto body = kube::taints_json_patch(with_disrupted_taint(n->spec.taints, now),
                                            n->metadata.resource_version);
        self->state.ctx.kube->patch<kube::node>(
            {"", node}, kube::patch_type::json, std::move(body),
            back<result<kube::node>>(self, [self, key, node](result<kube::node> r) {
              if (!r && r.error().code != "not_found") {
                step_failed(self, key, "tainting Node " + node, r.error());
                return;
              }
              self->state.log.info(
                  "tainted node", {{"node", node}, {"taint", "karpenter.sh/disrupted:NoSchedule"}});
              // As Karpenter does: load balancers stop sending traffic to a node going away.
              self->state.ctx.kube->patch<kube::node>(
                  {"", node}, kube::patch_type::merge,
                  kube::labels_merge_patch({{exclude_lb_label, "karpenter"}}, {}),
                  back<result<kube::node>>(self, [self, key, node](result<kube::node> l) {
                    if (!l && l.error().code != "not_found") {
                      self->state.log.warn("labelling node failed",
                                           {{"node", node}, {"error", l.error().message}});
                    }
                    step_done(self, key, [](job& j) { j.tainted = true; });
                  }));
            }));
      }));
}

// Removes our finalizer from a fresh copy of the object (merge patch guarded by its
// resourceVersion); a conflict starts again from a fresh read. `done` gets ok when the
// finalizer is gone (or the object is).
template <class T>
void remove_finalizer(self_ptr self, const std::string& name, int attempts,
                      std::function<void(status)> done) {
  self->state.ctx.kube->get<T>(
      {"", name}, back<result<T>>(self, [self, name, attempts, done](result<T> current) {
        if (!current) {
          if (current.error().code == "not_found") return done(status{});
          return done(current.error());
        }
        auto finalizers = current->metadata.finalizers;
        auto before = finalizers.size();
        std::erase(finalizers, std::string(termination_finalizer));
        if (finalizers.size() == before) return done(status{});
        auto body = kube::finalizers_merge_patch(finalizers, current->metadata.resource_version);
        self->state.ctx.kube->template patch<T>(
            {"", name}, kube::patch_type::merge, std::move(body),
            back<result<T>>(self, [self, name, attempts, done](result<T> r) {
              if (r || r.error().code == "not_found") return done(status{});
              if (r.error().code == "conflict" && attempts > 1) {
                return remove_finalizer<T>(self, name, attempts - 1, done);
              }
              done(r.error());
            }));
      }));
}

// The region refused to delete what the providerID names: a Warning on the NodeClaim (or Node).
void foreign_vm_found(self_ptr self, const std::string& name, const std::string& message) {
  auto& st = self->state;
  st.log.warn(
      "the VM of the NodeClaim is gone and its VMID holds a VM that is not ours; "
      "leaving it untouched",
      {{"nodeclaim", name}, {"reason", message}});
  if (!st.snap) return;
  if (const auto* c = cluster_snapshot::find(st.snap->node_claims, name)) {
    claim_event(self, *c, "Warning", "ForeignVM", message);
  } else if (const auto* n = cluster_snapshot::find(st.snap->nodes, name)) {
    node_event(self, *n, "Warning", "ForeignVM", message);
  }
}

// Deletes the VM: by providerID on its region, or (never launched) by name on every region.
void delete_vm(self_ptr self, const std::string& key, const std::string& provider_id,
               const std::string& claim_name) {
  auto& st = self->state;
  auto mark_deleted = [self, key](const std::string& what) {
    self->state.log.info("deleted VM", {{"job", key}, {"vm", what}});
    step_done(self, key, [](job& j) { j.vm_deleted = true; });
  };
  if (!provider_id.empty()) {
    auto id = parse_provider_id(provider_id);
    if (!id) {
      // Not a Proxmox VM of ours: there is nothing for us to delete.
      step_done(self, key, [](job& j) { j.vm_deleted = true; });
      return;
    }
    auto region = st.ctx.regions.find(id->region);
    if (region == st.ctx.regions.end()) {
      step_failed(self, key, "deleting VM " + provider_id,
                  kp::make_error("unknown_region", "no region named " + id->region));
      return;
    }
    if (claim_name.empty()) {
      // Nobody to check the VM's mark against: a VMID alone never identifies our VM.
      step_done(self, key, [](job& j) { j.vm_deleted = true; });
      return;
    }
    protocol::delete_request req;
    req.vmid = id->vmid;
    req.nodeclaim = claim_name;
    self->request(region->second, region_request_timeout, protocol::vm_delete_atom::value, req)
        .then(
            guarded(
                st.boundary,
                [self, key, provider_id, claim_name, mark_deleted](protocol::delete_reply& reply) {
                  if (reply.ok) return mark_deleted(provider_id);
                  if (reply.error.code == "foreign_vm") {
                    // Our VM is gone and its VMID holds someone else's: never touched, and the
                    // NodeClaim's VM counts as deleted.
                    foreign_vm_found(self, claim_name, reply.error.message);
                    return mark_deleted(provider_id + " (gone; the VMID now holds a VM not ours)");
                  }
                  step_failed(self, key, "deleting VM " + provider_id,
                              kp::make_error(reply.error.code, reply.error.message));
                }),
            guarded(st.boundary, [self, key, provider_id](caf::error& e) {
              step_failed(self, key, "deleting VM " + provider_id,
                          kp::make_error("region", self->system().render(e)));
            }));
    return;
  }
  if (claim_name.empty() || st.ctx.regions.empty()) {
    step_done(self, key, [](job& j) { j.vm_deleted = true; });
    return;
  }
  // Never launched (or the launch reply was lost): any region may hold a VM of that name.
  struct tally {
    std::size_t left = 0;
    std::optional<kp::error> failure;
  };
  auto t = std::make_shared<tally>();
  t->left = st.ctx.regions.size();
  auto finish = [self, key, claim_name, t, mark_deleted]() {
    if (--t->left > 0) return;
    if (t->failure) return step_failed(self, key, "deleting VM named " + claim_name, *t->failure);
    mark_deleted("named " + claim_name);
  };
  for (const auto& [name, region] : st.ctx.regions) {
    protocol::delete_request req;
    req.nodeclaim = claim_name;
    self->request(region, region_request_timeout, protocol::vm_delete_atom::value, req)
        .then(guarded(st.boundary,
                      [t, finish](protocol::delete_reply& reply) {
                        if (!reply.ok) {
                          t->failure = kp::make_error(reply.error.code, reply.error.message);
                        }
                        finish();
                      }),
              guarded(st.boundary, [self, t, finish](caf::error& e) {
                t->failure = kp::make_error("region", self->system().render(e));
                finish();
              }));
  }
}

// Deletes the Node (if it is not deleting yet) and removes our finalizer from it.
void finish_node(self_ptr self, const std::string& key, const kube::node& node) {
  std::string name = node.metadata.name;
  std::string nodepool = label_of(node.metadata, "karpenter.sh/nodepool");
  std::string zone = label_of(node.metadata, "topology.kubernetes.io/zone");
  std::optional<std::int64_t> deleted_ms;
  if (node.metadata.deletion_timestamp) {
    deleted_ms = kube::parse_rfc3339_ms(*node.metadata.deletion_timestamp);
  }
  auto unfinalize = [self, key, name, nodepool, zone, deleted_ms]() {
    remove_finalizer<kube::node>(
        self, name, 3, [self, key, name, nodepool, zone, deleted_ms](status s) {
          if (!s)
            return step_failed(self, key, "removing the finalizer of Node " + name, s.error());
          auto& st = self->state;
          if (auto& m = st.ctx.metrics) {
            m->nodes_terminated.Add({{"nodepool", nodepool}, {"zone", zone}}).Increment();
            if (deleted_ms) {
              double seconds = static_cast<double>(st.ctx.wall_clock_ms() - *deleted_ms) / 1000.0;
              m->nodes_termination_duration.Add({{"nodepool", nodepool}}, obs::duration_buckets())
                  .Observe(std::max(0.0, seconds));
            }
          }
          st.log.info("deleted node", {{"node", name}});
          step_done(self, key, [](job& j) { j.node_done = true; });
        });
  };
  if (node.metadata.deletion_timestamp) {
    unfinalize();
    return;
  }
  self->state.ctx.kube->remove<kube::node>(
      {"", name}, {}, back<status>(self, [self, key, name, unfinalize](status s) {
        if (!s && s.error().code != "not_found") {
          return step_failed(self, key, "deleting Node " + name, s.error());
        }
        unfinalize();
      }));
}

void finish_claim(self_ptr self, const std::string& key, const kube::node_claim& claim) {
  std::string name = claim.metadata.name;
  std::string nodepool = label_of(claim.metadata, "karpenter.sh/nodepool");
  std::string capacity = label_of(claim.metadata, "karpenter.sh/capacity-type");
  if (capacity.empty()) capacity = "on-demand";  // the only kind Proxmox has
  std::string zone = label_of(claim.metadata, "topology.kubernetes.io/zone");
  std::optional<std::int64_t> deleted_ms;
  if (claim.metadata.deletion_timestamp) {
    deleted_ms = kube::parse_rfc3339_ms(*claim.metadata.deletion_timestamp);
  }
  remove_finalizer<kube::node_claim>(
      self, name, 3, [self, key, name, nodepool, capacity, zone, deleted_ms](status s) {
        if (!s) {
          return step_failed(self, key, "removing the finalizer of NodeClaim " + name, s.error());
        }
        auto& st = self->state;
        double seconds = 0;
        if (deleted_ms) {
          seconds = std::max(0.0, static_cast<double>(st.ctx.wall_clock_ms() - *deleted_ms) / 1000);
        }
        if (auto& m = st.ctx.metrics) {
          m->nodeclaims_terminated
              .Add({{"nodepool", nodepool}, {"capacity_type", capacity}, {"zone", zone}})
              .Increment();
          if (deleted_ms) {
            m->nodeclaims_termination_duration
                .Add({{"nodepool", nodepool}}, obs::duration_buckets())
                .Observe(seconds);
          }
        }
        st.log.info("terminated nodeclaim",
                    {{"nodeclaim", name}, {"duration_seconds", std::to_string(seconds)}});
        step_done(self, key, [](job& j) { j.finished = true; });
      });
}

// --- draining -----------------------------------------------------------------------------

void evict_pod(self_ptr self, const model::pod& p, const kube::node* node, std::string reason) {
  auto& attempt = self->state.pods[p.uid];
  attempt.in_flight = true;
  kube::delete_options opts;
  opts.precondition_uid = p.uid;
  std::string uid = p.uid;
  std::string ns = p.namespace_;
  std::string name = p.name;
  kube::object_meta pod_meta;  // what names the pod in its Event
  pod_meta.namespace_ = p.namespace_;
  pod_meta.name = p.name;
  pod_meta.uid = p.uid;
  std::optional<kube::object_meta> node_meta;
  if (node) node_meta = node->metadata;
  self->state.ctx.kube->evict(
      {ns, name}, opts,
      back<status>(self, [self, uid, ns, name, pod_meta, node_meta, reason](status s) {
        auto& st = self->state;
        auto& a = st.pods[uid];
        a.in_flight = false;
        std::string pod = ns + "/" + name;
        if (s) {
          count_eviction(self, "200");
          count_drained_pod(self, reason);
          event_on(self, "Pod", "v1", pod_meta, "Normal", "Evicted", "Evicted pod");
          st.log.info("evicted pod", {{"pod", pod}});
          a.next_ms = st.ctx.wall_clock_ms() + 5000;  // it is terminating now; look later
          return;
        }
        const auto& code = s.error().code;
        if (code == "not_found" || code == "conflict") {
          // Gone, or replaced by a pod of the same name: nothing left to evict.
          count_eviction(self, code == "not_found" ? "404" : "409");
          return;
        }
        ++a.failures;
        a.next_ms = st.ctx.wall_clock_ms() + retry_delay_ms(a.failures);
        if (code == "blocked_by_pdb") {
          count_eviction(self, "429");
          if (!a.reported) {
            a.reported = true;
            st.log.info("eviction blocked by a PodDisruptionBudget; retrying",
                        {{"pod", pod}, {"error", s.error().message}});
            if (node_meta) {
              event_on(self, "Node", "v1", *node_meta, "Warning", "FailedDraining",
                       "Failed to drain node, pod " + pod + ": " + s.error().message);
            }
          }
          return;
        }
        count_eviction(self, code == "too_many_requests" ? "429" : "500");
        st.log.warn("eviction failed; retrying",
                    {{"pod", pod}, {"code", code}, {"error", s.error().message}});
      }));
}

void force_delete_pod(self_ptr self, const model::pod& p, std::int64_t grace_seconds,
                      std::string reason) {
  auto& attempt = self->state.pods[p.uid];
  attempt.in_flight = true;
  kube::delete_options opts;
  opts.precondition_uid = p.uid;
  opts.grace_period_seconds = grace_seconds;
  std::string uid = p.uid;
  std::string pod = p.namespace_ + "/" + p.name;
  self->state.log.warn("deleting pod: the termination grace period leaves no more time",
                       {{"pod", pod}, {"grace_seconds", std::to_string(grace_seconds)}});
  self->state.ctx.kube->remove<kube::pod>(
      {p.namespace_, p.name}, opts, back<status>(self, [self, uid, pod, reason](status s) {
        auto& a = self->state.pods[uid];
        a.in_flight = false;
        if (s) {
          count_drained_pod(self, reason);
          a.next_ms = self->state.ctx.wall_clock_ms() + 5000;
          return;
        }
        if (s.error().code == "not_found" || s.error().code == "conflict") return;
        ++a.failures;
        a.next_ms = self->state.ctx.wall_clock_ms() + retry_delay_ms(a.failures);
        self->state.log.warn("deleting pod failed; retrying",
                             {{"pod", pod}, {"error", s.error().message}});
      }));
}

std::vector<const model::pod*> pods_on(const cluster_snapshot& s, const std::string& node) {
  std::vector<const model::pod*> out;
  if (!s.pods) return out;
  for (const auto& [key, p] : *s.pods) {
    (void)key;
    if (p.pod->node_name == node) out.push_back(p.pod.get());
  }
  return out;
}

std::size_t attachments_of(const cluster_snapshot& s, const std::string& node) {
  if (!s.volume_attachments) return 0;
  return static_cast<std::size_t>(
      std::count_if(s.volume_attachments->begin(), s.volume_attachments->end(),
                    [&](const auto& kv) { return kv.second->node_name == node; }));
}

// Drives the drain one pass; true once the node is drained.
bool drain(self_ptr self, job& j, const kube::node& node, const kube::node_claim* claim,
           std::optional<std::int64_t> deadline, std::int64_t now) {
  auto& st = self->state;
  if (j.drain_started_ms == 0) j.drain_started_ms = now;
  auto plan = plan_drain(pods_on(*st.snap, node.metadata.name), now, deadline);
  auto ready = [&](const model::pod& p) {
    auto& a = st.pods[p.uid];
    return !a.in_flight && now >= a.next_ms;
  };
  std::string reason = disruption_reason(claim);
  for (const auto* p : plan.force_delete) {
    if (ready(*p)) force_delete_pod(self, *p, force_delete_grace_seconds(now, *deadline), reason);
  }
  for (const auto* p : plan.evict) {
    if (ready(*p)) evict_pod(self, *p, &node, reason);
  }
  for (const auto* p : plan.blocked) {
    auto& a = st.pods[p->uid];
    if (a.reported) continue;
    a.reported = true;
    std::string pod = p->namespace_ + "/" + p->name;
    st.log.info("pod blocks the drain with karpenter.sh/do-not-disrupt until the deadline",
                {{"pod", pod}, {"node", node.metadata.name}});
    node_event(self, node, "Warning", "FailedDraining",
               "Failed to drain node, pod " + pod + " has karpenter.sh/do-not-disrupt");
  }
  if (!plan.drained()) return false;
  // Karpenter drains for at least MinDrainTime: a pod bound just before the taint shows up late.
  return now - j.drain_started_ms >= ms_of(st.ctx.settings.min_drain_duration);
}

// One pass over one job; starts at most one write of the job and any evictions.
void step(self_ptr self, const std::string& key, job& j, const kube::node_claim* claim,
          const kube::node* node, std::int64_t now) {
  auto& st = self->state;
  if (j.finished || j.busy || now < j.retry_at_ms) return;
  if (!j.announced) {
    j.announced = true;
    st.log.info("terminating", {{"nodeclaim", j.claim}, {"node", node ? node->metadata.name : ""}});
    if (claim) claim_event(self, *claim, "Normal", "Terminating", "Terminating NodeClaim");
    if (node) node_event(self, *node, "Normal", "Terminating", "Terminating Node");
  }
  std::optional<std::int64_t> deadline;
  if (claim) deadline = termination_deadline_ms(*claim, ms_of(st.ctx.settings.drain_timeout));
  if (node && !j.node_done) {
    if (!j.tainted) {
      if (has_disrupted_taint(node->spec.taints)) {
        j.tainted = true;
      } else {
        j.busy = true;
        taint_node(self, key, node->metadata.name);
        return;
      }
    }
    if (!j.drained) {
      if (!drain(self, j, *node, claim, deadline, now)) return;
      j.drained = true;
      st.log.info("drained node", {{"node", node->metadata.name}});
      if (auto& m = st.ctx.metrics) {
        m->nodes_drained.Add({{"nodepool", label_of(node->metadata, "karpenter.sh/nodepool")}})
            .Increment();
      }
    }
    auto volumes = attachments_of(*st.snap, node->metadata.name);
    if (volumes > 0 && (!deadline || now < *deadline)) {
      if (!j.volumes_reported) {
        j.volumes_reported = true;
        st.log.info("waiting for volume attachments to go",
                    {{"node", node->metadata.name}, {"attachments", std::to_string(volumes)}});
      }
      return;
    }
  }
  if (!j.vm_deleted) {
    j.busy = true;
    std::string provider_id = claim ? claim->status.provider_id : node->spec.provider_id;
    if (claim && provider_id.empty() && node) provider_id = node->spec.provider_id;
    // The VM's expected owner: the NodeClaim, else the Node (VM name = NodeClaim name = Node name).
    delete_vm(self, key, provider_id,
              claim ? claim->metadata.name : (node ? node->metadata.name : ""));
    return;
  }
  if (node && !j.node_done) {
    j.busy = true;
    finish_node(self, key, *node);
    return;
  }
  if (claim) {
    j.busy = true;
    finish_claim(self, key, *claim);
    return;
  }
  j.finished = true;
}

void request_claim_delete(self_ptr self, const kube::node_claim& claim, std::int64_t now) {
  auto& st = self->state;
  auto it = st.claim_deletes.find(claim.metadata.name);
  if (it != st.claim_deletes.end() && now - it->second < claim_delete_retry_ms) return;
  st.claim_deletes[claim.metadata.name] = now;
  std::string name = claim.metadata.name;
  st.log.info("deleting nodeclaim: its node is being deleted", {{"nodeclaim", name}});
  kube::delete_options opts;
  opts.precondition_uid = claim.metadata.uid;
  st.ctx.kube->remove<kube::node_claim>(
      {"", name}, opts, back<status>(self, [self, name](status s) {
        if (!s && s.error().code != "not_found") {
          self->state.log.warn("deleting nodeclaim failed",
                               {{"nodeclaim", name}, {"error", s.error().message}});
        }
      }));
}

void schedule_tick(self_ptr self) {
  auto& st = self->state;
  if (st.tick_pending || st.jobs.empty()) return;
  st.tick_pending = true;
  self->delayed_send(self, tick_interval, term_tick_atom::value);
}

void reconcile(self_ptr self) {
  auto& st = self->state;
  if (!st.snap) return;
  const auto& s = *st.snap;
  auto now = st.ctx.wall_clock_ms();

  // Nodes of ours being deleted: their NodeClaim goes too; a Node without one is a job itself
  // (only once every NodeClaim is known: an unlisted one must not look absent).
  if (s.nodes && s.synced) {
    for (const auto& [key, n] : *s.nodes) {
      (void)key;
      if (!n->metadata.deletion_timestamp || !has_finalizer(n->metadata)) continue;
      const auto* claim = claim_of_node(s, *n);
      if (claim) {
        if (!claim->metadata.deletion_timestamp && our_claim(*claim)) {
          request_claim_delete(self, *claim, now);
        }
        continue;
      }
      if (n->spec.provider_id.rfind("proxmox://", 0) != 0) continue;
      auto& j = st.jobs["node/" + n->metadata.name];
      j.node_name = n->metadata.name;
    }
  }
  if (s.node_claims) {
    for (const auto& [name, c] : *s.node_claims) {
      if (!c->metadata.deletion_timestamp || !has_finalizer(c->metadata) || !our_claim(*c)) {
        continue;
      }
      auto& j = st.jobs["claim/" + name];
      j.claim = name;
    }
  }
  for (auto it = st.jobs.begin(); it != st.jobs.end();) {
    auto& [key, j] = *it;
    const kube::node_claim* claim = nullptr;
    const kube::node* node = nullptr;
    bool gone = false;
    if (!j.claim.empty()) {
      claim = cluster_snapshot::find(s.node_claims, j.claim);
      gone = !claim || !has_finalizer(claim->metadata);
      if (claim) node = node_of_claim(s, *claim);
    } else {
      node = cluster_snapshot::find(s.nodes, j.node_name);
      gone = !node || !has_finalizer(node->metadata);
    }
    if (gone && !j.busy) {
      st.claim_deletes.erase(j.claim);
      it = st.jobs.erase(it);
      continue;
    }
    // A step that throws is confined to its job, which retries later like a failed step.
    if (!gone && !st.boundary->contain(key, [&] { step(self, key, j, claim, node, now); })) {
      step_failed(self, key, "a step", kp::make_error("exception", "caught at the boundary"));
    }
    ++it;
  }
  // Forget attempts of pods that are gone.
  if (!st.pods.empty()) {
    std::set<std::string> live;
    if (s.pods) {
      for (const auto& [key, p] : *s.pods) {
        (void)key;
        live.insert(p.pod->uid);
      }
    }
    std::erase_if(st.pods,
                  [&](const auto& kv) { return !kv.second.in_flight && !live.count(kv.first); });
  }
  schedule_tick(self);
}

impl_actor::behavior_type termination_behavior(self_ptr self, controller_context ctx) {
  auto boundary = make_boundary("termination", ctx.metrics);
  install_boundary(self, boundary);
  self->state.boundary = boundary;
  self->state.ctx = std::move(ctx);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
      [self](protocol::snapshot_ptr snap) {
        self->state.snap = std::move(snap);
        reconcile(self);
      },
      [boundary](resume_atom, continuation& c) { boundary->run(c); },
      [self](term_tick_atom) {
        self->state.tick_pending = false;
        reconcile(self);
      });
}

}  // namespace

protocol::termination_actor spawn_termination(caf::actor_system& system,
                                              const controller_context& ctx) {
  auto impl = system.spawn(termination_behavior, ctx);
  return impl;
}

}  // namespace kp::actors
