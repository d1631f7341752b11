#include "actors/provisioning/scheduling_input.hpp"

#include <set>
#include <unordered_map>

#include "actors/node_overlay/overlaid_types.hpp"
#include "actors/provisioning/pci_offerings.hpp"
#include "actors/provisioning/provisionable.hpp"
#include "core/instance_types/reservation.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/model_translation.hpp"

namespace kp::actors::provisioning {
namespace {

model::pod daemon_pod(const kube::daemon_set& ds, std::string& error) {
  kube::pod p;
  p.metadata = ds.template_.metadata;
  p.metadata.name = ds.metadata.name;
  p.metadata.namespace_ = ds.metadata.namespace_;
  p.metadata.uid = ds.metadata.uid;
  p.spec = ds.template_.spec;
  kube::owner_reference owner;
  owner.api_version = "apps/v1";
  owner.kind = "DaemonSet";
  owner.name = ds.metadata.name;
  owner.uid = ds.metadata.uid;
  owner.controller = true;
  p.metadata.owner_references = {owner};
  auto m = kube::to_model(p);
  if (!m) {
    error = m.error().message;
    return {};
  }
  return std::move(*m);
}

}  // namespace

std::string node_class_blocker(const protocol::cluster_snapshot& snap, const std::string& name) {
  const auto* nc = protocol::cluster_snapshot::find(snap.node_classes, name);
  const std::string who = std::string(node_class_kind) + " \"" + name + "\"";
  if (!nc) return who + " does not exist";
  if (nc->metadata.deletion_timestamp) return who + " is being deleted";
  if (nc->status.conditions.empty()) return "";
  for (const auto& c : nc->status.conditions) {
    if (c.type != "Ready") continue;
    if (c.status == "True") return "";
    std::string out = who + " is not ready (Ready=" + c.status;
    if (!c.reason.empty()) out += ", " + c.reason;
    if (!c.message.empty()) out += ": " + c.message;
    return out + ")";
  }
  return who + " has no Ready condition yet";
}

model::resource_list pessimistic_capacity(const model::nodeclaim& claim,
                                          const std::vector<instance_types::instance_type>& types,
                                          double memory_overhead_percent) {
  const model::node_selector_requirement* req = nullptr;
  for (const auto& r : claim.requirements)
    if (r.key == model::labels::instance_type && r.op == model::selector_operator::in) req = &r;
  model::resource_list out;
  if (!req) return out;
  std::set<std::string_view> names(req->values.begin(), req->values.end());
  for (const auto& t : types) {
    if (!names.count(t.name)) continue;
    out = model::resource_list::max(out, t.capacity);
  }
  for (const auto& name : names)
    if (auto size = instance_types::parse_right_sized_name(name))
      out = model::resource_list::max(
          out, instance_types::right_sized_type(*size, memory_overhead_percent).capacity);
  return out;
}

scheduling_input build_scheduling_input(const protocol::cluster_snapshot& snap,
                                        const std::vector<model::nodeclaim>& in_flight,
                                        const std::map<std::string, std::string>& nominations,
                                        const std::vector<instance_types::instance_type>& types,
                                        instance_types::right_sized_offer right_sized) {
  scheduling_input in;
  auto& s = in.snap;
  // Offerings come from the region inventories; when nobody has computed any yet, every type is
  // offered in every zone the ready NodeClasses selected (placement decides for real later), so
  // that nothing is unschedulable merely for lack of bookkeeping. NodeOverlays apply on top.
  s.instance_types =
      node_overlay::overlaid(node_overlay::with_node_class_offerings(types, snap), snap);
  // The hosts' own reports, before any stand-in: only those know which devices are free.
  const auto reported_hosts = right_sized.zones;
  if (right_sized.zones.empty()) right_sized.zones = node_overlay::selected_zones(snap);
  s.right_sized = std::move(right_sized);

  // NodeClaims first: nominations only hold onto claims that exist and are not ready for pods.
  std::set<std::string> claim_names;
  std::set<std::string> holding;  // claims that still hold their nominated pods
  auto add_claim = [&](model::nodeclaim c) {
    if (c.capacity.empty())
      c.capacity = pessimistic_capacity(c, s.instance_types, s.right_sized.memory_overhead_percent);
    claim_names.insert(c.name);
    if (!c.terminating && !c.initialized()) holding.insert(c.name);
    s.nodeclaims.push_back(model::share(std::move(c)));
  };
  if (snap.node_claims) {
    for (const auto& [key, c] : *snap.node_claims) {
      auto m = kube::to_model(*c);
      if (m) add_claim(std::move(*m));
    }
  }
  for (const auto& c : in_flight)
    if (!claim_names.count(c.name)) add_claim(c);
  // Reserved offerings run out as NodeClaims (deleting and in-flight ones too) hold them.
  instance_types::apply_reservations(s.instance_types,
                                     instance_types::reservations_held(s.nodeclaims));

  if (snap.nodes) {
    for (const auto& [key, n] : *snap.nodes) {
      auto m = kube::to_model(*n);
      if (m) s.nodes.push_back(model::share(std::move(*m)));
    }
  }

  if (snap.pods) {
    // Bound pods share the snapshot's models (translated once per pod object); pending ones are
    // few and copied, since the planner places them.
    for (const auto& [key, entry] : *snap.pods) {
      const auto& pod = *entry.pod;
      if (!pod.node_name.empty()) {
        if (model::is_terminal(pod)) continue;
        if (entry.valid()) s.bound_pods.push_back(entry.pod);
        continue;
      }
      if (!is_provisionable(pod, snap)) continue;
      if (!entry.valid()) {
        in.invalid_pods.emplace_back(&pod, entry.invalid->message);
        continue;
      }
      // Requests whose sum does not fit would saturate; no node can hold them, say so.
      if (auto requests = model::checked_pod_requests(pod); !requests) {
        in.invalid_pods.emplace_back(&pod, requests.error().message);
        continue;
      }
      model::pod m = pod;
      auto nom = nominations.find(pod.uid);
      if (nom != nominations.end() && holding.count(nom->second)) {
        m.node_name = nom->second;  // counted on the claim it was planned onto
        s.bound_pods.push_back(model::share(std::move(m)));
        continue;
      }
      s.pods.push_back(std::move(m));
      in.pending.push_back(&pod);
    }
  }

  if (snap.node_pools) {
    for (const auto& [key, np] : *snap.node_pools) {
      const auto& ref = np->spec.template_.spec.node_class_ref;
      const std::string who = "NodePool \"" + np->metadata.name + "\"";
      if (np->metadata.deletion_timestamp) {
        in.skipped_pools.push_back(who + " is being deleted");
        continue;
      }
      if (ref.kind != node_class_kind || (!ref.group.empty() && ref.group != node_class_group)) {
        in.skipped_pools.push_back(who + " references " + ref.group + "/" + ref.kind + ", not a " +
                                   node_class_kind);
        continue;
      }
      if (auto why = node_class_blocker(snap, ref.name); !why.empty()) {
        in.skipped_pools.push_back(who + ": " + why);
        continue;
      }
      auto m = kube::to_model(*np);
      if (!m) {
        in.skipped_pools.push_back(who + ": " + m.error().message);
        continue;
      }
      if (!m->ready) {
        in.skipped_pools.push_back(who + " is not ready");
        continue;
      }
      // The node class's kubelet maxPods lowers the pods every node of this pool can hold.
      const auto* nc = protocol::cluster_snapshot::find(snap.node_classes, ref.name);
      if (nc != nullptr && nc->spec.kubelet && nc->spec.kubelet->max_pods) {
        m->kubelet_max_pods = *nc->spec.kubelet->max_pods;
      }
      // PCI devices: their resources on every node, offered only where the devices are free.
      if (nc != nullptr) {
        if (auto why = offer_pci_devices(*m, *nc, reported_hosts); !why.empty()) {
          in.skipped_pools.push_back(who + ": " + why);
          continue;
        }
      }
      in.pools[np->metadata.name] = np.get();
      s.nodepools.push_back(std::move(*m));
    }
  }

  if (snap.daemon_sets) {
    for (const auto& [key, ds] : *snap.daemon_sets) {
      std::string error;
      auto p = daemon_pod(*ds, error);
      if (error.empty()) s.daemonsets.push_back(std::move(p));
    }
  }
  return in;
}

}  // namespace kp::actors::provisioning
