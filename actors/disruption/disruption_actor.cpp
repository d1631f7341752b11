#include "actors/disruption/disruption_actor.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <caf/all.hpp>

#include "actors/continuation.hpp"
#include "actors/disruption/decision_labels.hpp"
#include "actors/disruption/disruption_input.hpp"
#include "actors/event_reasons.hpp"
#include "actors/failure_boundary.hpp"
#include "core/disruption/conservative.hpp"
#include "core/disruption/repair.hpp"
#include "core/model/labels.hpp"
#include "core/scheduling/provision.hpp"
#include "observability/logging.hpp"
#include "protocol/kube/nodeclaim_from_plan.hpp"

namespace kp::actors::disruption {
namespace {

namespace kd = kp::disruption;
using protocol::snapshot_ptr;

using tick_atom = caf::atom_constant<caf::atom("dis_tick")>;
using validate_atom = caf::atom_constant<caf::atom("dis_valid")>;
using timeout_atom = caf::atom_constant<caf::atom("dis_tmo")>;

using impl_actor =
    caf::typed_actor<caf::reacts_to<snapshot_ptr>, caf::reacts_to<protocol::buffer_pods>,
                     caf::reacts_to<tick_atom>, caf::reacts_to<validate_atom, std::uint64_t>,
                     caf::reacts_to<timeout_atom, std::uint64_t>,
                     caf::reacts_to<resume_atom, continuation>>;

// One validated command being carried out.
struct command_run {
  enum class stage { tainting, launching, waiting, deleting, done };
  std::uint64_t id = 0;
  kd::command cmd;
  std::string method;
  std::shared_ptr<const disruption_input> input;  // the validation's view (replacement indices)
  std::vector<std::string> replacements;          // names of the NodeClaims created
  stage st = stage::tainting;
  int pending = 0;
  bool failed = false;
  std::string failure;
};

struct state {
  controller_context ctx;
  disruption_options opts;
  std::shared_ptr<cluster_writes> writes;
  snapshot_ptr latest;
  // The Nodes' and NodeClaims' models of the last pass, reused while their objects are unchanged.
  translation_memo memo;
  enum class phase { idle, validating, executing } ph = phase::idle;
  std::uint64_t cycle = 0;
  std::vector<kd::command> proposed;
  std::string method;
  std::vector<std::shared_ptr<command_run>> running;
  std::set<std::string> deleting;  // NodeClaims deleted forcefully (expiration, repair)
  std::size_t single_node_start = 0;
  // The scored moves last counted and when: a pass that scores the same moves again within
  // five minutes does not count them twice (Karpenter skips consolidation that long when
  // nothing changed).
  std::string last_scored;
  std::int64_t last_scored_ms = 0;
  std::map<std::string, prometheus::Gauge*, std::less<>> cost_gauges;  // by NodePool
  // CapacityBuffer gate: the virtual pods of the buffers ready for provisioning.
  std::shared_ptr<const std::vector<model::pod>> buffer_pods;
  // The hosts' free room by region, as last reported (for right-sized replacements).
  std::map<std::string, std::vector<instance_types::zone_capacity>> hosts;
  std::mt19937_64 rng;
  obs::logger log{"disruption"};
};

using self_ptr = impl_actor::stateful_pointer<state>;

// The snapshot as core/disruption sees it, with the buffers' virtual pods counted on the nodes
// whose room they keep: a node holding only buffer room is not empty, and consolidating it
// must find the buffer room elsewhere (Karpenter's buffer-aware disruption). The pods are placed
// on this very snapshot (the simulation without NodePools), so a node that registered since the
// buffer actor last looked is never judged empty in between. Right-sized replacements are sized
// against the hosts' room the regions last reported.
disruption_input input_of(state& st) {
  instance_types::right_sized_offer right_sized{st.ctx.settings.vm_memory_overhead_percent, {}};
  for (const auto& [region, zones] : st.hosts)
    right_sized.zones.insert(right_sized.zones.end(), zones.begin(), zones.end());
  auto in = to_disruption_input(*st.latest, st.ctx.instance_types, st.ctx.wall_clock_ms(),
                                std::move(right_sized), st.memo);
  if (!st.buffer_pods || st.buffer_pods->empty()) return in;
  auto& s = in.cluster.state;
  auto pending = std::move(s.pods);
  auto pools = std::move(s.nodepools);
  s.pods = *st.buffer_pods;
  for (auto& p : s.pods) p.node_name.clear();
  s.nodepools.clear();
  const auto plan = scheduling::provision(s);
  auto placed = std::move(s.pods);
  s.pods = std::move(pending);
  s.nodepools = std::move(pools);
  for (const auto& b : plan.bindings) {
    if (b.in_flight || b.pod >= placed.size()) continue;
    placed[b.pod].node_name = b.node;
    s.bound_pods.push_back(model::share(std::move(placed[b.pod])));
  }
  return in;
}

// ---- helpers -----------------------------------------------------------------------------------

// Asks every region for its hosts' room; the answers serve the next passes. A region that does
// not answer keeps what it reported before.
void refresh_hosts(self_ptr self, const boundary_ptr& boundary) {
  for (const auto& [name, region] : self->state.ctx.regions)
    self->request(region, std::chrono::seconds(10), protocol::inventory_atom::value)
        .then(
            guarded(boundary,
                    [self, name = name](protocol::region_inventory& inv) {
                      auto& zones = self->state.hosts[name];
                      zones.clear();
                      for (const auto& h : inv.capacity)
                        zones.push_back({name, h.host, h.free_cpus, h.free_memory_bytes, h.online});
                    }),
            guarded(boundary, [self, name = name](caf::error& err) {
              self->state.log.debug("region did not report its hosts; keeping the last report",
                                    {{"region", name}, {"reason", caf::to_string(err)}});
            }));
}

kd::planner_options planner_options_of(const state& st) {
  auto base = st.opts.planner;
  base.scheduling.preferences = st.ctx.settings.preference_policy == config::preference_mode::ignore
                                    ? scheduling::preference_policy::ignore
                                    : scheduling::preference_policy::respect;
  base.scheduling.min_values = st.ctx.settings.min_values_policy == config::min_values_mode::strict
                                   ? scheduling::min_values_policy::strict
                                   : scheduling::min_values_policy::best_effort;
  if (st.opts.conservative) base = kd::conservative_mode(*st.opts.conservative, base);
  base.single_node_start = st.single_node_start;
  base.static_capacity = st.ctx.settings.gates.static_capacity;
  return base;
}

void event(const state& st, const std::string& kind, const std::string& name, event_reason reason,
           const std::string& message, bool warning = false) {
  protocol::event_record e;
  e.kind = kind;
  e.name = name;
  e.reason = reason.str();
  e.message = message;
  e.type = warning ? "Warning" : "Normal";
  if (kind == "Node") {
    e.api_version = "v1";
    if (st.latest)
      if (const auto* n = protocol::cluster_snapshot::find(st.latest->nodes, name))
        e.uid = n->metadata.uid;
  } else if (kind == "NodePool") {
    e.api_version = "karpenter.sh/v1";
    if (st.latest)
      if (const auto* p = protocol::cluster_snapshot::find(st.latest->node_pools, name))
        e.uid = p->metadata.uid;
  } else {
    e.api_version = "karpenter.sh/v1";
    if (st.latest)
      if (const auto* c = protocol::cluster_snapshot::find(st.latest->node_claims, name))
        e.uid = c->metadata.uid;
  }
  record_event(st.ctx, std::move(e));
}

// NodeClaim name by node name, from the newest snapshot.
std::map<std::string, std::string> claims_by_node(const state& st) {
  std::map<std::string, std::string> out;
  if (!st.latest || !st.latest->node_claims) return out;
  for (const auto& [key, c] : *st.latest->node_claims)
    if (!c->status.node_name.empty()) out[c->status.node_name] = c->metadata.name;
  return out;
}

std::string label_of(const kube::string_map& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? std::string() : it->second;
}

void count_disrupted(const state& st, const std::string& claim, const std::string& reason) {
  if (!st.ctx.metrics || !st.latest) return;
  std::string pool, capacity = "on-demand";
  if (const auto* c = protocol::cluster_snapshot::find(st.latest->node_claims, claim)) {
    pool = label_of(c->metadata.labels, model::labels::nodepool);
    if (auto ct = label_of(c->metadata.labels, model::labels::capacity_type); !ct.empty())
      capacity = ct;
  }
  st.ctx.metrics->nodeclaims_disrupted
      .Add({{"reason", reason}, {"nodepool", pool}, {"capacity_type", capacity}})
      .Increment();
}

void count_decision(const state& st, const kd::command& cmd, const std::string& method) {
  if (!st.ctx.metrics) return;
  st.ctx.metrics->disruption_decisions
      .Add({{"decision", cmd.replacements.empty() ? "delete" : "replace"},
            {"reason", reason_label(cmd.why)},
            {"consolidation_type", consolidation_type(method)}})
      .Increment();
}

template <class F>
cluster_writes::done resume(self_ptr self, F f) {
  return resume_in<status>(impl_actor{self}, std::function<void(status)>(f));
}

// ---- the pass ----------------------------------------------------------------------------------

// karpenter_nodepools_cost_total: the offering prices of each NodePool's nodes.
void publish_costs(state& st, const kd::candidate_set& cs) {
  std::set<std::string, std::less<>> pools;
  for (const auto& [pool, ps] : cs.pools) {
    pools.insert(pool);
    auto& g = st.cost_gauges[pool];
    if (g == nullptr) g = &st.ctx.metrics->nodepools_cost.Add({{"nodepool", pool}});
    auto t = cs.totals.find(pool);
    g->Set(t == cs.totals.end() ? 0.0 : t->second.cost);
  }
  for (auto it = st.cost_gauges.begin(); it != st.cost_gauges.end();) {
    if (pools.contains(it->first)) {
      ++it;
      continue;
    }
    st.ctx.metrics->nodepools_cost.Remove(it->second);
    it = st.cost_gauges.erase(it);
  }
}

void publish_gauges(self_ptr self, const disruption_input& in, const kd::candidate_set& cs) {
  auto& st = self->state;
  if (!st.ctx.metrics) return;
  int empty = 0, drifted = 0, underutilized = 0, expired = 0;
  for (const auto& k : cs.all) {
    if (k.expired) ++expired;
    if (!k.blocked.empty()) continue;
    if (!k.drift.empty()) ++drifted;
    if (k.consolidatable && k.empty) ++empty;
    if (k.consolidatable && !k.empty) ++underutilized;
  }
  auto& eligible = st.ctx.metrics->disruption_eligible_nodes;
  eligible.Add({{"reason", "empty"}}).Set(empty);
  eligible.Add({{"reason", "drifted"}}).Set(drifted);
  eligible.Add({{"reason", "underutilized"}}).Set(underutilized);
  eligible.Add({{"reason", "expired"}}).Set(expired);
  publish_costs(st, cs);
  for (const auto& [pool, ps] : cs.pools) {
    for (auto r : {kd::reason::empty, kd::reason::drifted, kd::reason::underutilized}) {
      const int allowed = std::min(ps.allowed(r, in.cluster.now), ps.total);
      st.ctx.metrics->nodepools_allowed_disruptions
          .Add({{"nodepool", pool}, {"reason", std::string(kd::to_string(r))}})
          .Set(allowed);
    }
  }
}

// InvalidDoNotDisruptAnnotation, on the pod (Karpenter's Event) or the node; the recorder
// folds the repeats of every pass into one Event.
void report_warnings(const state& st, const std::vector<kd::annotation_warning>& warnings) {
  for (const auto& w : warnings) {
    protocol::event_record e;
    e.kind = w.kind;
    e.api_version = "v1";
    e.namespace_ = w.namespace_;
    e.name = w.name;
    e.type = "Warning";
    e.reason = event_reason("InvalidDoNotDisruptAnnotation").str();
    e.message = w.message;
    if (st.latest) {
      if (w.kind == "Pod") {
        if (const auto* p =
                protocol::cluster_snapshot::find(st.latest->pods, w.namespace_ + "/" + w.name))
          e.uid = p->uid;
      } else if (const auto* n = protocol::cluster_snapshot::find(st.latest->nodes, w.name)) {
        e.uid = n->metadata.uid;
      }
    }
    record_event(st.ctx, std::move(e));
  }
}

// karpenter_consolidation_moves_total and karpenter_consolidation_score, and Karpenter's
// ConsolidationApproved Events for approved Balanced moves (rejections are counted only).
void report_scored(state& st, const std::vector<kd::scored_move>& scored) {
  if (scored.empty()) return;
  std::string signature;
  for (const auto& m : scored) {
    signature += m.nodepool + (m.approved ? "+" : "-");
    for (const auto& n : m.nodes) signature += n + ",";
    signature += ";";
  }
  const std::int64_t now = st.ctx.wall_clock_ms();
  if (signature == st.last_scored && now - st.last_scored_ms < 5 * 60'000) return;
  st.last_scored = signature;
  st.last_scored_ms = now;
  const auto claims = claims_by_node(st);
  for (const auto& m : scored) {
    const std::string decision = m.approved ? "approved" : "rejected";
    if (st.ctx.metrics) {
      st.ctx.metrics->consolidation_moves
          .Add({{"decision", decision}, {"nodepool", m.nodepool}, {"policy", m.policy}})
          .Increment();
      if (m.score)
        st.ctx.metrics->consolidation_score
            .Add({{"decision", m.score->approved() ? "approved" : "rejected"},
                  {"nodepool", m.nodepool},
                  {"policy", m.policy}},
                 obs::consolidation_score_buckets())
            .Observe(m.score->score());
    }
    if (!m.score || !m.score->approved()) continue;
    if (m.consolidation_type == "single") {
      for (const auto& node : m.nodes) {
        event(st, "Node", node, "ConsolidationApproved", m.score->describe());
        if (auto c = claims.find(node); c != claims.end())
          event(st, "NodeClaim", c->second, "ConsolidationApproved", m.score->describe());
      }
    } else {
      event(st, "NodePool", m.nodepool, "ConsolidationApproved", m.score->describe());
    }
  }
}

void report_blocked(self_ptr self, const std::vector<kd::blocked_node>& blocked) {
  auto& st = self->state;
  std::set<std::pair<std::string, std::string>> seen;
  const auto claims = claims_by_node(st);
  for (const auto& b : blocked) {
    if (!seen.emplace(b.node, b.reason).second) continue;
    const auto category = blocked_category(b.reason);
    // Nodes not yet ours to judge (initializing, already leaving) are not "blocked".
    if (category == "not-initialized" || category == "deleting" || category == "disrupting")
      continue;
    if (st.ctx.metrics) st.ctx.metrics->disruption_blocked.Add({{"reason", category}}).Increment();
    const std::string message = "Cannot disrupt: " + b.reason;
    event(st, "Node", b.node, "DisruptionBlocked", message);
    if (auto claim = claims.find(b.node); claim != claims.end())
      event(st, "NodeClaim", claim->second, "DisruptionBlocked", message);
  }
}

void forceful_delete(self_ptr self, const std::string& claim, const std::string& node,
                     const std::string& reason, const std::string& message) {
  auto& st = self->state;
  if (claim.empty() || !st.deleting.insert(claim).second) return;
  event(st, "NodeClaim", claim, "DisruptionTerminating", message);
  if (!node.empty()) event(st, "Node", node, "DisruptionTerminating", message);
  count_disrupted(st, claim, reason);
  st.writes->delete_nodeclaim(claim, resume(self, [self, claim](status s) {
                                if (s) return;
                                self->state.deleting.erase(claim);  // try again next pass
                                self->state.log.warn(
                                    "deleting NodeClaim failed",
                                    {{"nodeclaim", claim}, {"error", s.error().message}});
                              }));
}

void prune_deleting(state& st) {
  for (auto it = st.deleting.begin(); it != st.deleting.end();) {
    const auto* c = protocol::cluster_snapshot::find(st.latest->node_claims, *it);
    if (!c || c->metadata.deletion_timestamp)
      it = st.deleting.erase(it);
    else
      ++it;
  }
}

// Node repair (feature gate NodeRepair): forceful, like expiration.
void repair_nodes(self_ptr self, const disruption_input& in) {
  auto& st = self->state;
  if (!st.ctx.settings.gates.node_repair) return;
  auto repairs = kd::plan_repairs(in.health, kd::default_repair_policies(st.opts.repair_toleration),
                                  in.cluster.now);
  for (const auto& r : repairs.repairs)
    forceful_delete(self, r.nodeclaim, r.node, "unhealthy",
                    "Repairing unhealthy node: " + r.reason);
  for (const auto& b : repairs.blocked) {
    event(st, "Node", b.node, "NodeRepairBlocked", b.reason, true);
    if (st.ctx.metrics)
      st.ctx.metrics->disruption_blocked.Add({{"reason", "unhealthy-pool"}}).Increment();
  }
}

// While a graceful command is in flight (up to replacement_timeout) expiration and repair do
// not wait for it: they need no planning, only the candidates.
void forceful_pass(self_ptr self) {
  auto& st = self->state;
  auto in = input_of(st);
  prune_deleting(st);
  auto cs = kd::find_candidates(in.cluster);
  for (const auto& k : cs.all) {
    if (!k.expired) continue;
    const auto& claim = in.cluster.state.nodeclaims[k.nodeclaim]->name;
    if (st.deleting.contains(claim)) continue;
    kd::command cmd;
    cmd.why = kd::command_reason::expired;
    count_decision(st, cmd, "");
    forceful_delete(self, claim, k.name, "expired",
                    "Disrupting NodeClaim: Expired (delete expired node " + k.name + ")");
  }
  repair_nodes(self, in);
}

void run_pass(self_ptr self) {
  auto& st = self->state;
  const auto started = std::chrono::steady_clock::now();
  auto in = input_of(st);
  for (const auto& s : in.skipped) st.log.warn("object left out of disruption", {{"error", s}});
  const auto opts = planner_options_of(st);
  const auto candidates = kd::find_candidates(in.cluster);
  auto plan = kd::plan_disruption(in.cluster, candidates, opts);
  st.single_node_start += plan.single_node_evaluated;
  if (st.ctx.metrics) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string reason = plan.commands.empty() ? "" : reason_label(plan.commands.front().why);
    st.ctx.metrics->disruption_evaluation_duration
        .Add({{"reason", reason}, {"consolidation_type", consolidation_type(plan.method)}},
             obs::duration_buckets())
        .Observe(seconds);
  }
  publish_gauges(self, in, candidates);
  prune_deleting(st);

  // A hash-version change re-stamps the NodeClaim; it is never drift (karpenter-core.md 1.6).
  for (const auto& r : plan.restamps) {
    const auto claim = r.nodeclaim;
    st.writes->annotate_nodeclaim(claim, r.annotations, resume(self, [self, claim](status s) {
                                    if (!s)
                                      self->state.log.warn(
                                          "re-stamping NodeClaim failed",
                                          {{"nodeclaim", claim}, {"error", s.error().message}});
                                  }));
  }

  // Expiration is forceful: neither budgets nor do-not-disrupt hold it back; the provisioner
  // launches what the evicted pods need.
  for (const auto& cmd : plan.expirations) {
    for (std::size_t i = 0; i < cmd.nodeclaims.size(); ++i) {
      if (st.deleting.contains(cmd.nodeclaims[i])) continue;
      count_decision(st, cmd, "");
      forceful_delete(self, cmd.nodeclaims[i], cmd.nodes[i], "expired",
                      "Disrupting NodeClaim: Expired (" + cmd.decision + ")");
    }
  }

  repair_nodes(self, in);

  report_blocked(self, plan.not_disrupted);
  report_warnings(st, plan.warnings);
  report_scored(st, plan.scored);

  if (plan.commands.empty()) return;
  for (const auto& cmd : plan.commands)
    st.log.info("disruption proposed, validating",
                {{"method", plan.method}, {"decision", cmd.decision}});
  st.proposed = std::move(plan.commands);
  st.method = plan.method;
  st.ph = state::phase::validating;
  ++st.cycle;
  self->delayed_send(self, st.opts.validation_delay, validate_atom::value, st.cycle);
}

// ---- carrying a command out --------------------------------------------------------------------

void finish_if_done(self_ptr self) {
  auto& st = self->state;
  for (const auto& r : st.running)
    if (r->st != command_run::stage::done) return;
  st.running.clear();
  st.ph = state::phase::idle;
}

void abort_run(self_ptr self, const std::shared_ptr<command_run>& run, const std::string& why) {
  auto& st = self->state;
  st.log.warn("disruption aborted", {{"decision", run->cmd.decision}, {"reason", why}});
  for (std::size_t i = 0; i < run->cmd.nodes.size(); ++i) {
    const auto node = run->cmd.nodes[i];
    st.writes->taint_disrupted(node, false, resume(self, [self, node](status s) {
                                 if (!s)
                                   self->state.log.warn(
                                       "removing the disrupted taint failed",
                                       {{"node", node}, {"error", s.error().message}});
                               }));
    event(st, "Node", node, "DisruptionBlocked", "Disruption aborted: " + why, true);
    if (i < run->cmd.nodeclaims.size())
      event(st, "NodeClaim", run->cmd.nodeclaims[i], "DisruptionBlocked",
            "Disruption aborted: " + why, true);
  }
  if (st.ctx.metrics) st.ctx.metrics->disruption_blocked.Add({{"reason", "aborted"}}).Increment();
  run->st = command_run::stage::done;
  finish_if_done(self);
}

void delete_candidates(self_ptr self, const std::shared_ptr<command_run>& run) {
  auto& st = self->state;
  run->st = command_run::stage::deleting;
  const auto title = reason_title(run->cmd.why);
  for (std::size_t i = 0; i < run->cmd.nodeclaims.size(); ++i) {
    const auto& claim = run->cmd.nodeclaims[i];
    event(st, "NodeClaim", claim, "DisruptionTerminating", "Disrupting NodeClaim: " + title);
    if (i < run->cmd.nodes.size())
      event(st, "Node", run->cmd.nodes[i], "DisruptionTerminating", "Disrupting Node: " + title);
    count_disrupted(st, claim, reason_label(run->cmd.why));
    ++run->pending;
    st.writes->delete_nodeclaim(claim, resume(self, [self, run, claim](status s) {
                                  if (run->st == command_run::stage::done)
                                    return;  // given up meanwhile

                                  if (!s)
                                    self->state.log.warn(
                                        "deleting NodeClaim failed",
                                        {{"nodeclaim", claim}, {"error", s.error().message}});
                                  if (--run->pending > 0) return;
                                  run->st = command_run::stage::done;
                                  finish_if_done(self);
                                }));
  }
  if (run->pending == 0) {
    run->st = command_run::stage::done;
    finish_if_done(self);
  }
}

bool replacements_initialized(const state& st, const command_run& run) {
  if (!st.latest) return false;
  for (const auto& name : run.replacements) {
    const auto* c = protocol::cluster_snapshot::find(st.latest->node_claims, name);
    if (!c) return false;
    bool ok = false;
    for (const auto& cond : c->status.conditions)
      if (cond.type == "Initialized") ok = cond.status == "True";
    if (!ok) return false;
  }
  return true;
}

void check_waiting(self_ptr self) {
  auto runs = self->state.running;  // delete_candidates may clear the list
  for (const auto& run : runs)
    if (run->st == command_run::stage::waiting && replacements_initialized(self->state, *run))
      delete_candidates(self, run);
}

void launch(self_ptr self, const std::shared_ptr<command_run>& run) {
  auto& st = self->state;
  if (run->cmd.replacements.empty()) return delete_candidates(self, run);
  run->st = command_run::stage::launching;
  const auto& snap = run->input->cluster.state;
  for (const auto& planned : run->cmd.replacements)
    if (!protocol::cluster_snapshot::find(st.latest->node_pools, planned.nodepool))
      return abort_run(self, run, "NodePool " + planned.nodepool + " is gone");
  for (const auto& planned : run->cmd.replacements) {
    const auto* pool = protocol::cluster_snapshot::find(st.latest->node_pools, planned.nodepool);
    const auto name = planned.nodepool + "-" + kube::generated_name_suffix(st.rng);
    auto claim = kube::nodeclaim_from_plan(planned, snap, *pool, name);
    run->replacements.push_back(name);
    for (const auto& c : run->cmd.nodeclaims)
      event(st, "NodeClaim", c, "DisruptionLaunching",
            "Launching NodeClaim: " + reason_title(run->cmd.why) + " (replacement " + name + ")");
    if (st.ctx.metrics)
      st.ctx.metrics->nodeclaims_created
          .Add({{"reason", reason_label(run->cmd.why)},
                {"nodepool", planned.nodepool},
                {"min_values_relaxed", planned.min_values_relaxed ? "true" : "false"}})
          .Increment();
    ++run->pending;
    st.writes->create_nodeclaim(claim, resume(self, [self, run, name](status s) {
                                  if (run->st == command_run::stage::done)
                                    return;  // given up meanwhile

                                  if (!s) {
                                    run->failed = true;
                                    run->failure = "creating replacement " + name +
                                                   " failed: " + s.error().message;
                                  }
                                  if (--run->pending > 0) return;
                                  if (run->failed) return abort_run(self, run, run->failure);
                                  run->st = command_run::stage::waiting;
                                  self->delayed_send(self, self->state.opts.replacement_timeout,
                                                     timeout_atom::value, run->id);
                                  check_waiting(self);
                                }));
  }
}

void start_run(self_ptr self, const std::shared_ptr<command_run>& run) {
  auto& st = self->state;
  count_decision(st, run->cmd, run->method);
  st.log.info("disrupting", {{"method", run->method}, {"decision", run->cmd.decision}});
  const auto title = reason_title(run->cmd.why);
  for (std::size_t i = 0; i < run->cmd.nodes.size(); ++i) {
    const auto node = run->cmd.nodes[i];
    event(st, "Node", node, "Disrupting", "Disrupting Node: " + title + ": " + run->cmd.decision);
    if (i < run->cmd.nodeclaims.size()) {
      const auto claim = run->cmd.nodeclaims[i];
      event(st, "NodeClaim", claim, "Disrupting",
            "Disrupting NodeClaim: " + title + ": " + run->cmd.decision);
      st.writes->mark_disruption_reason(
          claim, disruption_condition_reason(run->cmd.why), run->cmd.decision,
          resume(self, [self, claim](status s) {
            if (!s)
              self->state.log.debug("DisruptionReason not recorded",
                                    {{"nodeclaim", claim}, {"error", s.error().message}});
          }));
    }
    ++run->pending;
    st.writes->taint_disrupted(node, true, resume(self, [self, run, node](status s) {
                                 if (run->st == command_run::stage::done)
                                   return;  // given up meanwhile

                                 if (!s) {
                                   run->failed = true;
                                   run->failure =
                                       "tainting " + node + " failed: " + s.error().message;
                                 }
                                 if (--run->pending > 0) return;
                                 if (run->failed) return abort_run(self, run, run->failure);
                                 launch(self, run);
                               }));
  }
  if (run->cmd.nodes.empty()) launch(self, run);
}

void on_validate(self_ptr self, std::uint64_t cycle) {
  auto& st = self->state;
  if (cycle != st.cycle || st.ph != state::phase::validating) return;
  auto proposed = std::move(st.proposed);
  st.proposed.clear();
  if (!st.latest) {
    st.ph = state::phase::idle;
    return;
  }
  auto in = std::make_shared<disruption_input>(input_of(st));
  const auto opts = planner_options_of(st);
  std::vector<std::shared_ptr<command_run>> runs;
  for (const auto& cmd : proposed) {
    auto valid = kd::validate(cmd, in->cluster, opts);
    if (!valid || valid->nodes.empty()) {
      const std::string why = valid ? "no node qualifies any more" : valid.error().message;
      st.log.info("disruption invalidated", {{"decision", cmd.decision}, {"reason", why}});
      if (st.ctx.metrics)
        st.ctx.metrics->disruption_failed_validations
            .Add({{"consolidation_type", consolidation_type(st.method)}})
            .Increment();
      continue;
    }
    auto run = std::make_shared<command_run>();
    run->id = ++st.cycle;
    run->cmd = std::move(*valid);
    run->method = st.method;
    run->input = in;
    runs.push_back(std::move(run));
  }
  if (runs.empty()) {
    st.ph = state::phase::idle;
    return;
  }
  st.ph = state::phase::executing;
  st.running = runs;
  for (const auto& run : runs) start_run(self, run);
}

void on_timeout(self_ptr self, std::uint64_t id) {
  auto runs = self->state.running;
  for (const auto& run : runs)
    if (run->id == id && run->st == command_run::stage::waiting)
      abort_run(self, run,
                "replacement NodeClaims were not initialized within " +
                    std::to_string(self->state.opts.replacement_timeout.count() / 1000) + "s");
}

impl_actor::behavior_type disruption_behavior(self_ptr self, controller_context ctx,
                                              disruption_options opts,
                                              std::shared_ptr<cluster_writes> writes) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.opts = std::move(opts);
  st.writes = std::move(writes);
  st.rng.seed(st.opts.seed != 0 ? st.opts.seed : std::random_device{}());
  self->delayed_send(self, st.opts.period, tick_atom::value);
  auto boundary = make_boundary("disruption", st.ctx.metrics);
  install_boundary(self, boundary);
  return guarded_behavior<impl_actor::behavior_type>(
      boundary,
      [self](const snapshot_ptr& snap) {
        if (!snap) return;
        self->state.latest = snap;
        if (self->state.ph == state::phase::executing) check_waiting(self);
      },
      [self](protocol::buffer_pods& b) {
        if (self->state.ctx.settings.gates.capacity_buffer)
          self->state.buffer_pods = std::move(b.pods);
      },
      [self, boundary](tick_atom) {
        auto& s = self->state;
        self->delayed_send(self, s.opts.period, tick_atom::value);
        refresh_hosts(self, boundary);
        if (!s.latest || !s.latest->synced) return;
        if (s.ph == state::phase::idle) {
          // A pass that fails is abandoned whole; the next tick starts a fresh one.
          if (!boundary->contain("a disruption pass", [&] { run_pass(self); }) && s.running.empty())
            s.ph = state::phase::idle;
        } else {
          forceful_pass(self);
        }
      },
      [self](validate_atom, std::uint64_t cycle) { on_validate(self, cycle); },
      [self](timeout_atom, std::uint64_t id) { on_timeout(self, id); },
      [boundary](resume_atom, continuation& c) { boundary->run(c); });
}

}  // namespace

protocol::disruption_actor spawn_disruption(caf::actor_system& system,
                                            const controller_context& ctx,
                                            disruption_options options,
                                            std::shared_ptr<cluster_writes> writes) {
  if (!writes) writes = kube_cluster_writes(ctx.kube, ctx.wall_clock_ms);
  auto handle = system.spawn(disruption_behavior, ctx, std::move(options), std::move(writes));
  return handle;  // the declared interface, a subset of the actor's own
}

}  // namespace kp::actors::disruption
