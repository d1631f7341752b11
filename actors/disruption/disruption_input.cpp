#include "actors/disruption/disruption_input.hpp"

#include <set>

#include "actors/node_overlay/overlaid_types.hpp"
#include "core/instance_types/reservation.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::disruption {
namespace {

namespace kd = kp::disruption;
namespace ml = model::labels;

std::string label(const kube::string_map& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? std::string() : it->second;
}

std::optional<model::label_selector> pdb_selector(const kube::pod_disruption_budget& pdb) {
  // A PDB without a selector selects nothing (policy/v1); an empty one selects every pod of
  // its namespace, which model::matches already does.
  if (!pdb.spec.selector) return std::nullopt;
  model::label_selector out;
  out.match_labels.insert(pdb.spec.selector->match_labels.begin(),
                          pdb.spec.selector->match_labels.end());
  for (const auto& e : pdb.spec.selector->match_expressions) {
    auto op = model::parse_selector_operator(e.operator_);
    if (!op) return std::nullopt;
    out.match_expressions.push_back({e.key, *op, e.values});
  }
  return out;
}

// What a NodePool's NodeClaims should carry now: the NodePool's own hash annotations (stamped
// by the nodepool hash controller, Karpenter's scheme), the node class's, and the image of the
// node class's template.
kd::drift_reference drift_of(const kube::node_pool& pool, const protocol::cluster_snapshot& snap) {
  kd::drift_reference d;
  d.nodepool_hash = label(pool.metadata.annotations, model::annotations::nodepool_hash);
  d.nodepool_hash_version =
      label(pool.metadata.annotations, model::annotations::nodepool_hash_version);
  const auto& ref = pool.spec.template_.spec.node_class_ref;
  if (const auto* nc = protocol::cluster_snapshot::find(snap.node_classes, ref.name)) {
    d.nodeclass_hash = label(nc->metadata.annotations, kd::annotations::nodeclass_hash);
    d.nodeclass_hash_version =
        label(nc->metadata.annotations, kd::annotations::nodeclass_hash_version);
    const auto& t = nc->spec.instance_template_ref;
    if (t.kind == "ProxmoxUnmanagedTemplate") {
      if (const auto* u = protocol::cluster_snapshot::find(snap.unmanaged_templates, t.name))
        d.image_id = u->status.image_id;
    } else if (const auto* m = protocol::cluster_snapshot::find(snap.templates, t.name)) {
      d.image_id = m->status.image_id;
    }
  }
  return d;
}

void add_offerings_when_missing(std::vector<instance_types::instance_type>& types,
                                const protocol::cluster_snapshot& snap) {
  for (const auto& t : types)
    if (!t.offerings.empty()) return;
  std::set<std::pair<std::string, std::string>> zones;
  if (snap.nodes)
    for (const auto& [key, n] : *snap.nodes) {
      auto region = label(n->metadata.labels, ml::region);
      auto zone = label(n->metadata.labels, ml::zone);
      if (!region.empty() && !zone.empty()) zones.emplace(region, zone);
    }
  if (snap.node_classes)
    for (const auto& [key, nc] : *snap.node_classes)
      for (const auto& z : nc->status.selected_zones) {  // region/zone/templateVMID
        auto a = z.find('/');
        auto b = a == std::string::npos ? a : z.find('/', a + 1);
        if (b != std::string::npos) zones.emplace(z.substr(0, a), z.substr(a + 1, b - a - 1));
      }
  std::vector<instance_types::zone_capacity> capacity;
  for (const auto& [region, zone] : zones)
    capacity.push_back({region, zone, 1 << 20, std::int64_t{1} << 60, true});
  if (!capacity.empty()) instance_types::build_offerings(types, capacity);
}

}  // namespace

disruption_input to_disruption_input(const protocol::cluster_snapshot& snap,
                                     const std::vector<instance_types::instance_type>& types,
                                     std::int64_t now_unix_ms,
                                     instance_types::right_sized_offer right_sized,
                                     translation_memo& memo) {
  disruption_input out;
  auto& c = out.cluster;
  auto& s = c.state;
  c.now = std::chrono::sys_seconds(std::chrono::seconds(now_unix_ms / 1000));
  s.instance_types = types;
  add_offerings_when_missing(s.instance_types, snap);
  // Consolidation prices nodes and replacements as provisioning does: with the NodeOverlays.
  s.instance_types = node_overlay::overlaid(std::move(s.instance_types), snap);
  instance_types::withhold_reserved_offerings(s.instance_types);
  s.right_sized = std::move(right_sized);

  if (snap.node_pools)
    for (const auto& [key, p] : *snap.node_pools) {
      auto m = kube::to_model(*p);
      if (!m) {
        out.skipped.push_back(m.error().message);
        continue;
      }
      s.nodepools.push_back(std::move(*m));
      c.drift[p->metadata.name] = drift_of(*p, snap);
    }

  std::map<std::string, const kube::node_claim*, std::less<>> claim_of_node;
  s.nodeclaims.reserve(snap.node_claims ? snap.node_claims->size() : 0);
  memo.nodeclaims.read(
      snap.node_claims,
      [&memo](const kube::node_claim& nc) { return kube::to_model(nc, &memo.nodeclaim_parts); },
      [&](const kube::node_claim& nc, const auto& translated) {
        if (!translated.model) {
          out.skipped.push_back(translated.invalid->message);
          return;
        }
        if (auto t = kube::parse_rfc3339_ms(nc.status.last_pod_event_time))
          c.last_pod_event_unix_ms[nc.metadata.name] = *t;
        if (!nc.status.node_name.empty()) claim_of_node[nc.status.node_name] = &nc;
        s.nodeclaims.push_back(translated.model);
      });

  s.nodes.reserve(snap.nodes ? snap.nodes->size() : 0);
  memo.nodes.read(
      snap.nodes, [](const kube::node& n) { return kube::to_model(n); },
      [&](const kube::node& n, const auto& translated) {
        if (!translated.model) {
          out.skipped.push_back(translated.invalid->message);
          return;
        }
        s.nodes.push_back(translated.model);
        auto claim = claim_of_node.find(n.metadata.name);
        if (claim == claim_of_node.end()) return;
        kd::node_health h;
        h.node = n.metadata.name;
        h.nodeclaim = claim->second->metadata.name;
        h.nodepool = label(claim->second->metadata.labels, ml::nodepool);
        h.deleting = n.metadata.deletion_timestamp.has_value() ||
                     claim->second->metadata.deletion_timestamp.has_value();
        for (const auto& cond : n.status.conditions)
          h.conditions.push_back({cond.type, cond.status,
                                  kube::parse_rfc3339_ms(cond.last_transition_time).value_or(0)});
        out.health.push_back(std::move(h));
      });

  if (snap.pods) {
    // Bound pods are shared with the cache (and with every simulation); pending ones are few
    // and copied, since the planner re-places them.
    auto place = [&](model::shared_pod m) {
      if (!m->node_name.empty())
        s.bound_pods.push_back(std::move(m));
      else if (model::is_provisionable(*m))
        s.pods.push_back(*m);
    };
    s.bound_pods.reserve(snap.pods->size());
    for (const auto& [key, p] : *snap.pods) {
      if (!p.valid())
        out.skipped.push_back(p.invalid->message);
      else
        place(p.pod);
    }
  }

  if (snap.daemon_sets)
    for (const auto& [key, ds] : *snap.daemon_sets) {
      kube::pod p;
      p.metadata = ds->template_.metadata;
      p.metadata.namespace_ = ds->metadata.namespace_;
      p.metadata.name = ds->metadata.name;
      p.metadata.owner_references = {
          {"apps/v1", "DaemonSet", ds->metadata.name, ds->metadata.uid, true, true}};
      p.spec = ds->template_.spec;
      auto m = kube::to_model(p);
      if (!m) {
        out.skipped.push_back(m.error().message);
        continue;
      }
      s.daemonsets.push_back(std::move(*m));
    }

  if (snap.pod_disruption_budgets)
    for (const auto& [key, pdb] : *snap.pod_disruption_budgets) {
      auto sel = pdb_selector(*pdb);
      if (!sel) continue;
      c.pdbs.push_back({pdb->metadata.name, pdb->metadata.namespace_, std::move(*sel),
                        static_cast<int>(pdb->status.disruptions_allowed)});
    }
  return out;
}

disruption_input to_disruption_input(const protocol::cluster_snapshot& snap,
                                     const std::vector<instance_types::instance_type>& types,
                                     std::int64_t now_unix_ms,
                                     instance_types::right_sized_offer right_sized) {
  translation_memo fresh;
  return to_disruption_input(snap, types, now_unix_ms, std::move(right_sized), fresh);
}

}  // namespace kp::actors::disruption
