#include "cmd/karpenter-proxmox/plan/what_if.hpp"

#include <algorithm>
#include <map>

#include "actors/disruption/disruption_input.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/provisioning/scheduling_input.hpp"
#include "cmd/karpenter-proxmox/plan/live_placement.hpp"
#include "cmd/karpenter-proxmox/plan/workload_file.hpp"
#include "core/disruption/conservative.hpp"
#include "core/disruption/planner.hpp"
#include "core/placement/place_vm.hpp"
#include "core/scheduling/provision.hpp"
#include "protocol/kube/nodeclaim_from_plan.hpp"

namespace kp::plan {
namespace {

namespace nc = actors::nodeclaim;
namespace region = actors::region;

std::string key_of(const model::pod& p) {
  return p.namespace_ + "/" + p.name;
}

bool is_added(const model::pod& p) {
  return p.uid.rfind(added_pod_uid_prefix, 0) == 0;
}

// The snapshot the controller would see once the added pods exist.
protocol::cluster_snapshot with_added_pods(const protocol::cluster_snapshot& live,
                                           const std::vector<kube::pod>& added) {
  protocol::cluster_snapshot snap = live;
  auto pods = std::make_shared<protocol::pod_model_map>();
  if (live.pods) *pods = *live.pods;
  for (const auto& p : added)
    pods->insert_or_assign(protocol::object_key_of(p), protocol::translated(p));
  snap.pods = std::move(pods);
  return snap;
}

// The scheduling options the provisioner takes from the settings.
scheduling::options scheduling_options(const config::settings& s) {
  scheduling::options opts;
  opts.preferences = s.preference_policy == config::preference_mode::ignore
                         ? scheduling::preference_policy::ignore
                         : scheduling::preference_policy::respect;
  opts.min_values = s.min_values_policy == config::min_values_mode::best_effort
                        ? scheduling::min_values_policy::best_effort
                        : scheduling::min_values_policy::strict;
  return opts;
}

// The disruption planner's options as the controller sets them from the settings.
disruption::planner_options planner_options(const config::settings& s) {
  disruption::planner_options opts;
  opts.scheduling = scheduling_options(s);
  if (!s.conservative_scale_down) return opts;
  using std::chrono::duration_cast;
  disruption::conservative_settings c;
  c.stabilization = duration_cast<std::chrono::seconds>(s.scale_down_stabilization);
  c.min_node_age = duration_cast<std::chrono::seconds>(s.min_node_age);
  c.load_headroom = s.load_headroom;
  return disruption::conservative_mode(c, opts);
}

// What the NodeClaim's launch would do: the node class's template and region, the cheapest
// compatible type, the node class's limits, then place_vm over the region's hosts.
void launch(planned_node& out, const kube::node_claim& claim, const what_if_input& in,
            const protocol::cluster_snapshot& snap,
            const std::vector<instance_types::instance_type>& types,
            std::map<std::string, region_hosts>& regions, int vmid) {
  auto choice = nc::resolve_template(snap, claim);
  if (!choice) {
    out.placement_error = choice.error().message;
    return;
  }
  out.node_class = choice->node_class->metadata.name;
  std::vector<std::string> names;
  for (const auto& [name, view] : regions) names.push_back(name);
  auto region = nc::pick_region(claim, *choice, names);
  if (!region) {
    out.placement_error = region.error().message;
    return;
  }
  out.region = *region;
  auto type = nc::cheapest_instance_type(types, claim, *region);
  if (!type) {
    out.placement_error = type.error().message;
    return;
  }
  out.instance_type = type->name;
  protocol::launch_request req;
  req.nodeclaim = out.name;
  req.nodepool = out.nodepool;
  req.instance_type = type->name;
  req.vcpus = static_cast<int>(type->vm_cpus);
  req.memory_mib = static_cast<std::uint64_t>(type->vm_memory_bytes >> 20);
  auto zones = nc::zones_for(claim, *choice->node_class);
  req.zones = zones.allowed;
  req.excluded_zones = zones.excluded;
  req.template_name = choice->template_name;
  if (auto applied = nc::apply_node_class(req, *choice->node_class); !applied) {
    out.placement_error = "node class " + out.node_class + ": " + applied.error().message;
    return;
  }
  auto& view = regions.at(*region);
  auto hosts = region::launch_hosts_for(req, view.reading->vms, *region);
  if (!hosts) {
    out.placement_error = hosts.error().message;
    return;
  }
  auto strategy = placement::parse_strategy(req.strategy.empty() ? "Balanced" : req.strategy);
  if (!strategy) {
    out.placement_error = strategy.error().message;
    return;
  }
  const bool pin =
      req.static_cpu_policy || in.settings.node_policy == config::node_policy_mode::static_pinning;
  placement::vm_request want{req.vcpus, static_cast<std::int64_t>(req.memory_mib) << 20};
  auto decision = placement::place_vm(
      view.hosts, vmid, want, hosts->filter, *strategy,
      pin ? placement::cpu_policy::static_pinning : placement::cpu_policy::simple, view.cursor);
  if (!decision) {
    out.placement_error = decision.error().message;
    return;
  }
  out.host = view.hosts[decision->host].name();
  out.price = offering_price(*type, out.region, out.host, out.price);
  if (decision->pinned) {
    out.pinned_cpus = decision->pinned->cpus.to_string();
    for (const auto& b : decision->pinned->numa)
      if (std::find(out.numa_nodes.begin(), out.numa_nodes.end(), b.host_node) ==
          out.numa_nodes.end())
        out.numa_nodes.push_back(b.host_node);
  }
}

// With the controller's instance types as loaded, as the disruption actor plans.
void plan_removals(const what_if_input& in, const protocol::cluster_snapshot& snap,
                   what_if_report& report) {
  auto input = actors::disruption::to_disruption_input(snap, in.instance_types, in.now_unix_ms);
  auto plan = disruption::plan_disruption(input.cluster, planner_options(in.settings));
  auto add = [&](const disruption::command& c, const std::string& method) {
    removal r;
    r.method = method;
    r.reason = std::string(disruption::to_string(c.why));
    r.nodes = c.nodes;
    r.nodeclaims = c.nodeclaims;
    r.replacements = c.replacements.size();
    r.savings = c.savings;
    r.decision = c.decision;
    report.removals.push_back(std::move(r));
  };
  for (const auto& c : plan.commands) add(c, plan.method);
  for (const auto& c : plan.expirations) add(c, "expiration");
}

}  // namespace

what_if_report run_what_if(const what_if_input& in) {
  what_if_report report;
  report.cluster_name = in.world.cluster_name;
  const auto snap = with_added_pods(in.world.snapshot, in.added);

  // Offerings follow the hosts' free capacity, as before each provisioning batch.
  auto regions =
      placement_view(in.world, in.node_settings ? &*in.node_settings : nullptr, report.notes);
  const auto types = offered_types(in.instance_types, regions);

  auto input = actors::provisioning::build_scheduling_input(snap, {}, {}, types);
  for (const auto& s : input.skipped_pools) report.notes.push_back(s);
  for (const auto& [pod, why] : input.invalid_pods)
    report.pending.push_back({key_of(*pod), is_added(*pod), "", why});
  scheduling::plan plan;
  if (!input.snap.pods.empty())
    plan = scheduling::provision(input.snap, scheduling_options(in.settings));

  for (const auto& err : plan.errors) {
    const auto* pod = input.pending[err.pod];
    report.pending.push_back({key_of(*pod), is_added(*pod), "", err.reason});
  }
  for (const auto& bind : plan.bindings) {
    const auto* pod = input.pending[bind.pod];
    report.bound.push_back(
        {key_of(*pod), is_added(*pod), (bind.in_flight ? "nodeclaim/" : "node/") + bind.node, ""});
  }
  int index = 0;
  for (const auto& planned : plan.nodeclaims) {
    auto pool = input.pools.find(planned.nodepool);
    if (pool == input.pools.end()) continue;  // plans only use given pools
    planned_node out;
    out.name = planned.nodepool + "-what-if-" + std::to_string(++index);
    out.nodepool = planned.nodepool;
    out.instance_types = scheduling::instance_type_names(planned, input.snap);
    out.price = planned.price;
    for (std::size_t i : planned.pods) out.pods.push_back(key_of(*input.pending[i]));
    auto claim = kube::nodeclaim_from_plan(planned, input.snap, *pool->second, out.name);
    // Negative VMIDs: never one Proxmox could hold.
    launch(out, claim, in, snap, types, regions, -index);
    report.nodeclaims.push_back(std::move(out));
  }
  plan_removals(in, snap, report);
  return report;
}

}  // namespace kp::plan
