#include "core/disruption/simulation.hpp"

#include <algorithm>
#include <set>

#include "core/model/labels.hpp"

namespace kp::disruption {
namespace {

bool allows(const std::vector<model::node_selector_requirement>& reqs, std::string_view key,
            const std::string& value) {
  for (const auto& r : reqs) {
    if (r.key != key) continue;
    bool listed = std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case model::selector_operator::in:
        if (!listed) return false;
        break;
      case model::selector_operator::not_in:
        if (listed) return false;
        break;
      case model::selector_operator::does_not_exist:
        return false;
      default:
        break;
    }
  }
  return true;
}

}  // namespace

double worst_launch_price(const instance_types::instance_type& type,
                          const scheduling::planned_nodeclaim& nc) {
  double worst = -1;
  for (const auto& o : type.offerings) {
    if (!o.available) continue;
    if (!allows(nc.requirements, model::labels::zone, o.zone)) continue;
    if (!allows(nc.requirements, model::labels::capacity_type, o.capacity_type)) continue;
    worst = std::max(worst, o.price);
  }
  return worst;  // -1: no offering at all (never cheaper: callers compare with < on >= 0)
}

simulation simulate(const cluster& c, const candidate_set& cs,
                    const std::vector<std::size_t>& batch, const scheduling::options& opts) {
  const auto& s = c.state;
  std::set<std::string, std::less<>> excluded;
  for (auto b : batch) excluded.insert(cs.all[b].name);
  // Nodes already on their way out are no destination; their pods are re-placed too.
  std::set<std::string, std::less<>> deleting;
  for (const auto& n : s.nodes)
    if (n->terminating ||
        std::any_of(n->taints.begin(), n->taints.end(),
                    [](const model::taint& t) { return t.key == model::taint_keys::disrupted; }))
      deleting.insert(n->name);

  scheduling::snapshot snap;
  snap.nodepools = s.nodepools;
  snap.instance_types = s.instance_types;
  snap.right_sized = s.right_sized;
  snap.daemonsets = s.daemonsets;
  snap.pods = s.pods;
  const std::size_t pending = snap.pods.size();
  for (auto b : batch)
    for (auto pi : cs.all[b].pods) {
      auto p = *s.bound_pods[pi];
      p.node_name.clear();
      p.nominated_node_name.clear();
      p.phase = "Pending";
      p.unschedulable = true;
      snap.pods.push_back(std::move(p));
    }
  const std::size_t must_end = snap.pods.size();
  snap.nodes.reserve(s.nodes.size());
  for (const auto& n : s.nodes)
    if (!excluded.contains(n->name) && !deleting.contains(n->name)) snap.nodes.push_back(n);
  // The pods staying where they are are shared, not copied: only the re-placed ones change.
  snap.bound_pods.reserve(s.bound_pods.size());
  for (const auto& shared : s.bound_pods) {
    const auto& p = *shared;
    if (excluded.contains(p.node_name)) continue;
    if (!deleting.empty() && deleting.contains(p.node_name)) {
      if (!model::is_daemonset_pod(p) && !model::is_terminal(p) && !p.terminating) {
        auto q = p;
        q.node_name.clear();
        q.phase = "Pending";
        snap.pods.push_back(std::move(q));
      }
      continue;
    }
    snap.bound_pods.push_back(shared);
  }
  std::set<std::string, std::less<>> uninitialized;
  for (const auto& shared : s.nodeclaims) {
    const auto& nc = *shared;
    if (excluded.contains(nc.node_name) || deleting.contains(nc.node_name)) continue;
    if (!nc.initialized()) uninitialized.insert(nc.node_name.empty() ? nc.name : nc.node_name);
    snap.nodeclaims.push_back(shared);
  }

  auto result = scheduling::provision(snap, opts);
  simulation out;
  auto is_batch_pod = [&](std::size_t i) { return i >= pending && i < must_end; };
  for (const auto& e : result.errors)
    if (is_batch_pod(e.pod)) {
      const auto& p = snap.pods[e.pod];
      out.failure = "pod " + p.namespace_ + "/" + p.name + " cannot be rescheduled: " + e.reason;
      return out;
    }
  for (const auto& b : result.bindings)
    if (is_batch_pod(b.pod) && (b.in_flight || uninitialized.contains(b.node))) {
      const auto& p = snap.pods[b.pod];
      out.failure = "pod " + p.namespace_ + "/" + p.name + " would land on uninitialized " + b.node;
      return out;
    }
  for (auto& nc : result.nodeclaims)
    if (std::any_of(nc.pods.begin(), nc.pods.end(), is_batch_pod))
      out.new_nodeclaims.push_back(std::move(nc));
  out.ok = true;
  return out;
}

}  // namespace kp::disruption
