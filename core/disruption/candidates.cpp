#include "core/disruption/candidates.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/disruption/do_not_disrupt.hpp"
#include "core/model/labels.hpp"
#include "core/time/go_duration.hpp"

namespace kp::disruption {
namespace {

namespace ml = model::labels;
namespace ma = model::annotations;

std::string label_of(const model::label_map& m, std::string_view key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

bool reschedulable(const model::pod& p) {
  return !model::is_terminal(p) && !model::is_daemonset_pod(p) && !model::is_mirror_pod(p) &&
         !p.terminating;
}

std::optional<std::string_view> annotation(const model::label_map& m, std::string_view key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return std::string_view(it->second);
}

// "2026-11-26T08:00:00Z": when a grace period runs out, for the person reading the reason.
std::string utc_text(std::int64_t unix_ms) {
  using namespace std::chrono;
  const sys_seconds t{seconds(unix_ms / 1000)};
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss hms{t - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02lldZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), long(hms.hours().count()),
                long(hms.minutes().count()), static_cast<long long>(hms.seconds().count()));
  return buf;
}

std::string pod_ref(const model::pod& p) {
  return p.namespace_ + "/" + p.name;
}

std::int64_t initialized_at(const model::nodeclaim& nc) {
  for (const auto& cond : nc.conditions)
    if (cond.type == "Initialized" && cond.status == "True" && cond.last_transition_unix_ms > 0)
      return cond.last_transition_unix_ms;
  return nc.creation_unix_ms;
}

bool node_disrupting(const model::node& n) {
  if (n.terminating || !n.ready) return true;
  return std::any_of(n.taints.begin(), n.taints.end(),
                     [](const model::taint& t) { return t.key == model::taint_keys::disrupted; });
}

std::vector<budget> pool_budgets(const model::nodepool& np) {
  std::vector<budget> out;
  for (std::size_t i = 0; i < np.disruption.budgets.size(); ++i) {
    const auto& b = np.disruption.budgets[i];
    budget_spec spec;
    spec.nodes = b.nodes;
    if (!b.schedule.empty()) spec.schedule = b.schedule;
    if (!b.duration.empty()) spec.duration = b.duration;
    spec.reasons = b.reasons;
    auto parsed = parse_budget(spec, "spec.disruption.budgets[" + std::to_string(i) + "]");
    if (parsed) {
      out.push_back(*parsed);
    } else {
      budget closed;
      closed.misconfigured = true;  // fail closed, as Karpenter does
      out.push_back(closed);
    }
  }
  if (np.disruption.budgets.empty()) return default_budgets();
  return out;
}

double offering_price(const scheduling::snapshot& s, const std::string& type,
                      const std::string& zone, const std::string& capacity_type) {
  for (const auto& it : s.instance_types) {
    if (it.name != type) continue;
    for (const auto& o : it.offerings)
      if (o.zone == zone && o.capacity_type == capacity_type) return o.price;
  }
  // A right-sized (f1) node costs what its size costs, wherever it runs.
  if (auto size = instance_types::parse_right_sized_name(type);
      size && capacity_type == model::labels::capacity_type_on_demand)
    return instance_types::right_sized_price(*size);
  return 0;
}

// Drift and re-stamping of one annotation pair: a version mismatch re-stamps, equal versions
// with different hashes drift.
void compare_hash(const model::nodeclaim& nc, std::string_view hash_key,
                  std::string_view version_key, const std::string& want_hash,
                  const std::string& want_version, const char* drift_reason, std::string& drift,
                  restamp& stamp) {
  if (want_hash.empty()) return;
  auto have_hash = label_of(nc.annotations, hash_key);
  auto have_version = label_of(nc.annotations, version_key);
  if (have_version != want_version) {
    stamp.annotations[std::string(hash_key)] = want_hash;
    stamp.annotations[std::string(version_key)] = want_version;
    return;
  }
  if (have_hash != want_hash && drift.empty()) drift = drift_reason;
}

}  // namespace

double eviction_cost(const model::pod& p) {
  double cost = 1.0;
  auto it = p.annotations.find("controller.kubernetes.io/pod-deletion-cost");
  if (it != p.annotations.end()) {
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    if (ec == std::errc()) cost += static_cast<double>(v) / std::pow(2.0, 27);
  }
  cost += static_cast<double>(p.priority) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

candidate_set find_candidates(const cluster& c) {
  const auto& s = c.state;
  candidate_set out;
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(c.now.time_since_epoch()).count();

  for (std::size_t i = 0; i < s.bound_pods.size(); ++i)
    out.pods_by_node[s.bound_pods[i]->node_name].push_back(i);

  std::map<std::string, std::size_t, std::less<>> pool_index;
  for (std::size_t i = 0; i < s.nodepools.size(); ++i) {
    pool_index[s.nodepools[i].name] = i;
    out.pools[s.nodepools[i].name].budgets = pool_budgets(s.nodepools[i]);
  }
  std::map<std::string, std::size_t, std::less<>> claim_by_node;
  for (std::size_t i = 0; i < s.nodeclaims.size(); ++i)
    if (!s.nodeclaims[i]->node_name.empty()) claim_by_node[s.nodeclaims[i]->node_name] = i;

  // PDBs by namespace, so that 20,000 pods do not each scan every PDB.
  std::map<std::string, std::vector<const pod_disruption_budget*>, std::less<>> pdbs;
  for (const auto& p : c.pdbs) pdbs[p.namespace_].push_back(&p);

  for (std::size_t ni = 0; ni < s.nodes.size(); ++ni) {
    const auto& n = *s.nodes[ni];
    auto ci = claim_by_node.find(n.name);
    if (ci == claim_by_node.end()) continue;  // not managed: never ours to disrupt
    const auto& nc = *s.nodeclaims[ci->second];
    auto pool_name = nc.nodepool.empty() ? label_of(n.labels, ml::nodepool) : nc.nodepool;
    auto pi = pool_index.find(pool_name);
    auto block = [&](std::string why) { out.not_disrupted.push_back({n.name, std::move(why)}); };

    // Re-stamping concerns every NodeClaim, candidate or not.
    restamp stamp{nc.name, {}};
    std::string drift;
    if (auto d = c.drift.find(pool_name); d != c.drift.end()) {
      compare_hash(nc, ma::nodepool_hash, ma::nodepool_hash_version, d->second.nodepool_hash,
                   d->second.nodepool_hash_version, "NodePoolDrifted", drift, stamp);
      compare_hash(nc, annotations::nodeclass_hash, annotations::nodeclass_hash_version,
                   d->second.nodeclass_hash, d->second.nodeclass_hash_version, "NodeClassDrifted",
                   drift, stamp);
      if (drift.empty() && !d->second.image_id.empty() && !nc.image_id.empty() &&
          nc.image_id != d->second.image_id)
        drift = "ImageDrifted";
    }
    if (!stamp.annotations.empty()) out.restamps.push_back(std::move(stamp));

    if (pi == pool_index.end()) {
      block("its NodePool \"" + pool_name + "\" is not known");
      continue;
    }
    {
      auto& t = out.totals[pool_name];
      t.cost += offering_price(s, label_of(n.labels, ml::instance_type),
                               label_of(n.labels, ml::zone), label_of(n.labels, ml::capacity_type));
      t.disruption_cost += per_node_disruption_cost;
      if (auto it = out.pods_by_node.find(n.name); it != out.pods_by_node.end())
        for (auto i : it->second)
          if (reschedulable(*s.bound_pods[i]))
            t.disruption_cost += std::max(0.0, eviction_cost(*s.bound_pods[i]));
    }
    if (!nc.initialized()) {
      block("it is not initialized yet");
      continue;
    }
    auto& pool = out.pools[pool_name];
    if (!n.terminating && !nc.terminating) ++pool.total;
    if (node_disrupting(n) || nc.terminating) {
      ++pool.disrupting;
      block(n.terminating || nc.terminating
                ? "it is already being deleted"
                : (n.ready ? "it is already being disrupted" : "it is not ready"));
      continue;
    }

    candidate cand;
    cand.node = ni;
    cand.nodeclaim = ci->second;
    cand.name = n.name;
    cand.nodepool = pool_name;
    cand.instance_type = label_of(n.labels, ml::instance_type);
    cand.zone = label_of(n.labels, ml::zone);
    cand.capacity_type = label_of(n.labels, ml::capacity_type);
    cand.price = offering_price(s, cand.instance_type, cand.zone, cand.capacity_type);
    cand.drift = drift;
    cand.created_unix_ms = nc.creation_unix_ms;

    const auto& np = s.nodepools[pi->second];
    if (auto ea = nc.expire_after.empty() ? np.template_.expire_after : nc.expire_after;
        !ea.empty() && ea != "Never") {
      if (auto d = time::parse_go_duration(ea))
        cand.expired =
            now_ms >=
            nc.creation_unix_ms + std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
    }

    if (auto v = annotation(n.annotations, ma::do_not_disrupt); node_do_not_disrupt(v))
      cand.blocked = "the node has annotation karpenter.sh/do-not-disrupt";
    else if (v)
      out.warnings.push_back(
          {"Node", "", n.name,
           "karpenter.sh/do-not-disrupt on a Node blocks only with \"true\"; \"" + std::string(*v) +
               "\" is ignored"});

    std::int64_t last_event = initialized_at(nc);
    if (auto* pods = [&]() -> const std::vector<std::size_t>* {
          auto it = out.pods_by_node.find(n.name);
          return it == out.pods_by_node.end() ? nullptr : &it->second;
        }()) {
      for (auto pi2 : *pods) {
        const auto& p = *s.bound_pods[pi2];
        if (model::is_terminal(p)) continue;
        last_event = std::max(last_event, p.creation_unix_ms);
        // Every active pod counts here, DaemonSet and mirror pods too (Karpenter's IsDisruptable).
        if (!p.terminating) {
          auto dnd = read_pod_do_not_disrupt(annotation(p.annotations, ma::do_not_disrupt),
                                             p.start_unix_ms, now_ms);
          if (dnd.what == do_not_disrupt::state::invalid)
            out.warnings.push_back({"Pod", p.namespace_, p.name,
                                    "Invalid karpenter.sh/do-not-disrupt annotation: " + dnd.error +
                                        ", ignoring annotation"});
          if (cand.blocked.empty() && dnd.active())
            cand.blocked =
                "pod " + pod_ref(p) + " has annotation karpenter.sh/do-not-disrupt" +
                (dnd.what == do_not_disrupt::state::until ? " until " + utc_text(dnd.until_unix_ms)
                                                          : std::string());
        }
        if (model::is_daemonset_pod(p) || !reschedulable(p)) continue;
        cand.pods.push_back(pi2);
        cand.reschedule_cost += std::max(0.0, eviction_cost(p));
        if (cand.blocked.empty()) {
          if (auto it = pdbs.find(p.namespace_); it != pdbs.end()) {
            const pod_disruption_budget* match = nullptr;
            int matches = 0;
            for (const auto* b : it->second)
              if (model::matches(b->selector, p.labels)) {
                ++matches;
                match = b;
              }
            if (matches > 1)
              cand.blocked =
                  "pod " + pod_ref(p) + " is covered by more than one PodDisruptionBudget";
            else if (match && match->disruptions_allowed <= 0)
              cand.blocked = "PodDisruptionBudget " + match->namespace_ + "/" + match->name +
                             " allows 0 disruptions for pod " + pod_ref(p);
          }
        }
      }
    }
    if (auto it = c.last_pod_event_unix_ms.find(nc.name); it != c.last_pod_event_unix_ms.end())
      last_event = std::max(last_event, it->second);
    cand.empty = cand.reschedule_cost <= per_node_disruption_cost;

    // Static NodePools hold their replicas; consolidation never picks their nodes.
    const auto& after = np.disruption.consolidate_after;
    if (after != "Never" && !np.replicas) {
      if (auto d = time::parse_go_duration(after))
        cand.consolidatable =
            now_ms >=
            last_event + std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
    }
    if (!cand.blocked.empty()) block(cand.blocked);
    out.all.push_back(std::move(cand));
  }
  return out;
}

}  // namespace kp::disruption
