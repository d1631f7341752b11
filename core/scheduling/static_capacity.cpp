#include "core/scheduling/static_capacity.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/model/labels.hpp"

namespace kp::scheduling {
namespace {

bool disrupted(const model::node& n) {
  return std::any_of(n.taints.begin(), n.taints.end(),
                     [](const model::taint& t) { return t.key == model::taint_keys::disrupted; });
}

const model::node* node_named(const snapshot& snap, const std::string& name) {
  if (name.empty()) return nullptr;
  for (const auto& n : snap.nodes)
    if (n->name == name) return n.get();
  return nullptr;
}

std::optional<std::int64_t> node_limit(const model::nodepool& np) {
  auto it = np.limits.items().find(model::resource_names::nodes);
  if (it == np.limits.items().end()) return std::nullopt;
  return it->second.value();
}

// How hard a NodeClaim is to remove: (do-not-disrupt pods, pods), fewer first.
struct removal_cost {
  bool do_not_disrupt = false;
  std::size_t pods = 0;
};

}  // namespace

static_pool_count count_static_pool(const snapshot& snap, const std::string& name) {
  static_pool_count c;
  for (const auto& shared : snap.nodeclaims) {
    const auto& nc = *shared;
    if (nc.nodepool != name) continue;
    if (nc.terminating) {
      ++c.deleting;
    } else if (const auto* n = node_named(snap, nc.node_name); n && disrupted(*n)) {
      ++c.pending_disruption;
    } else {
      ++c.running;
    }
  }
  return c;
}

std::optional<std::int64_t> node_limit_room(const snapshot& snap, const model::nodepool& np) {
  auto limit = node_limit(np);
  if (!limit) return std::nullopt;
  std::int64_t used = 0;
  for (const auto& nc : snap.nodeclaims)
    if (nc->nodepool == np.name) ++used;
  return std::max<std::int64_t>(0, *limit - used);
}

std::vector<static_pool_plan> plan_static_capacity(const snapshot& snap) {
  std::vector<static_pool_plan> out;
  for (const auto& np : snap.nodepools) {
    if (!np.replicas || !np.ready || np.deleting) continue;
    static_pool_plan p;
    p.nodepool = np.name;
    p.replicas = std::max<std::int64_t>(0, *np.replicas);
    p.count = count_static_pool(snap, np.name);
    // NodeClaims being replaced count as present: the disruption controller is creating their
    // replacements.
    const std::int64_t missing = p.replicas - p.count.running - p.count.pending_disruption;
    if (missing > 0) {
      p.create = missing;
      if (auto room = node_limit_room(snap, np); room && *room < missing) {
        p.create = *room;
        p.held_back = missing - *room;
        p.node_limit = node_limit(np);
      }
    }
    const std::int64_t surplus = p.count.running - p.replicas;
    if (surplus > 0) {
      std::vector<std::tuple<int, bool, std::size_t, std::string>> ranked;
      std::map<std::string, removal_cost> cost;  // by node name
      for (const auto& shared : snap.bound_pods) {
        const auto& pod = *shared;
        if (pod.node_name.empty() || model::is_daemonset_pod(pod) || model::is_terminal(pod))
          continue;
        auto& c = cost[pod.node_name];
        ++c.pods;
        c.do_not_disrupt |= model::has_do_not_disrupt(pod);
      }
      for (const auto& shared : snap.nodeclaims) {
        const auto& nc = *shared;
        if (nc.nodepool != np.name || nc.terminating) continue;
        const auto* n = node_named(snap, nc.node_name);
        if (n && disrupted(*n)) continue;
        if (nc.provider_id.empty()) {
          ranked.emplace_back(0, false, 0, nc.name);
          continue;
        }
        removal_cost c;
        if (auto it = cost.find(nc.node_name.empty() ? nc.name : nc.node_name); it != cost.end())
          c = it->second;
        ranked.emplace_back(c.pods == 0 && !c.do_not_disrupt ? 1 : 2, c.do_not_disrupt, c.pods,
                            nc.name);
      }
      std::sort(ranked.begin(), ranked.end());
      for (std::size_t i = 0; i < ranked.size() && static_cast<std::int64_t>(i) < surplus; ++i)
        p.remove.push_back(std::get<3>(ranked[i]));
    }
    if (p.create > 0 || !p.remove.empty() || p.held_back > 0) out.push_back(std::move(p));
  }
  return out;
}

std::optional<planned_nodeclaim> static_nodeclaim(const snapshot& snap, const std::string& name,
                                                  const options& opts, std::string& why) {
  auto pool = std::find_if(snap.nodepools.begin(), snap.nodepools.end(),
                           [&](const model::nodepool& np) { return np.name == name; });
  if (pool == snap.nodepools.end()) {
    why = "NodePool \"" + name + "\" is not known";
    return std::nullopt;
  }
  // The provisioning simulation of one pod that asks for nothing and tolerates everything, on
  // this pool alone: the NodeClaim it opens is the pool's template, with every instance type
  // that holds the DaemonSet overhead.
  snapshot one;
  model::nodepool np = *pool;
  np.replicas.reset();
  np.limits = {};
  np.ready = true;
  np.deleting = false;
  one.nodepools.push_back(std::move(np));
  one.instance_types = snap.instance_types;
  one.right_sized = snap.right_sized;
  one.daemonsets = snap.daemonsets;
  model::pod placeholder;
  placeholder.name = name + "-static-capacity";
  placeholder.uid = placeholder.name;
  placeholder.unschedulable = true;
  placeholder.tolerations.push_back({"", "Exists", "", "", std::nullopt});
  one.pods.push_back(std::move(placeholder));
  auto plan = provision(one, opts);
  if (plan.nodeclaims.empty()) {
    why = plan.errors.empty() ? "no NodeClaim could be planned" : plan.errors.front().reason;
    return std::nullopt;
  }
  auto nc = std::move(plan.nodeclaims.front());
  nc.pods.clear();
  return nc;
}

}  // namespace kp::scheduling
