#include "cmd/karpenter-proxmox/plan/live_world.hpp"

#include <future>

namespace kp::plan {
namespace {

using clock = std::chrono::steady_clock;

// Starts an asynchronous call and waits for its single answer until `deadline`. The promise is
// shared with the callback, so an answer after the deadline lands nowhere harmful.
template <class T, class Start>
result<T> await(Start&& start, clock::time_point deadline, const std::string& what) {
  auto promise = std::make_shared<std::promise<result<T>>>();
  auto answer = promise->get_future();
  start([promise](result<T> r) { promise->set_value(std::move(r)); });
  if (answer.wait_until(deadline) != std::future_status::ready) {
    return make_error("timeout", what + ": no answer before the deadline");
  }
  return answer.get();
}

template <class T>
result<protocol::shared_objects<T>> list_kind(kube::client& kube, clock::time_point deadline) {
  auto listed =
      await<kube::object_list<T>>([&](auto done) { kube.list_all<T>("", {}, std::move(done)); },
                                  deadline, "listing " + std::string(T::resource.plural));
  if (!listed) {
    return make_error(listed.error().code,
                      "listing " + std::string(T::resource.plural) + ": " + listed.error().message);
  }
  auto objects = std::make_shared<protocol::object_map<T>>();
  for (auto& item : listed->items) {
    auto key = protocol::object_key_of(item);
    (*objects)[key] = std::make_shared<const T>(std::move(item));
  }
  return protocol::shared_objects<T>(std::move(objects));
}

}  // namespace

result<live_world> read_kubernetes(kube::client& kube, const std::string& cluster_name,
                                   clock::time_point deadline) {
  live_world world;
  world.cluster_name = cluster_name;
  if (world.cluster_name.empty()) {
    auto ns = await<kube::namespace_object>(
        [&](auto done) {
          kube.get<kube::namespace_object>({"", "kube-system"}, std::move(done));
        },
        deadline, "reading namespace kube-system");
    if (!ns) return make_error(ns.error().code, "namespace kube-system: " + ns.error().message);
    world.cluster_name = ns->metadata.uid;
  }
  auto& snap = world.snapshot;
  status failed;
  auto fill = [&]<class T>(protocol::shared_objects<T>& into) {
    if (!failed) return;
    auto listed = list_kind<T>(kube, deadline);
    if (!listed) {
      failed = listed.error();
      return;
    }
    into = std::move(*listed);
  };
  fill(world.pods);
  if (world.pods) snap.pods = protocol::pod_models_of(*world.pods);
  fill(snap.nodes);
  fill(snap.node_claims);
  fill(snap.node_pools);
  fill(snap.node_classes);
  fill(snap.templates);
  fill(snap.unmanaged_templates);
  fill(snap.daemon_sets);
  fill(snap.pod_disruption_budgets);
  fill(snap.volume_attachments);
  if (!failed) return failed.error();
  snap.bootstrap_tokens = std::make_shared<protocol::object_map<kube::secret>>();
  snap.synced = true;
  snap.generation = 1;
  snap.taken_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  return world;
}

region_reading read_region(proxmox::api& api, const std::string& region,
                           clock::time_point deadline) {
  region_reading out;
  out.region = region;
  auto resources = await<std::vector<proxmox::cluster_resource>>(
      [&](auto done) { api.cluster_resources(std::nullopt, std::move(done)); }, deadline,
      "GET /cluster/resources");
  if (!resources) {
    out.error = "cluster resources: " + resources.error().code + ": " + resources.error().message;
    return out;
  }
  auto listing = actors::region::listing_from_resources(*resources);
  out.hosts = std::move(listing.hosts);
  out.vms = std::move(listing.vms);
  for (auto& [name, host] : out.hosts) {
    if (!host.online()) continue;
    auto status = await<proxmox::node_status>(
        [&, name = name](auto done) { api.node_status(name, std::move(done)); }, deadline,
        "GET /nodes/" + name + "/status");
    if (status) host.node_status = std::move(*status);
  }
  for (auto& [vmid, vm] : out.vms) {
    auto host = out.hosts.find(vm.node);
    if (vm.is_container || host == out.hosts.end() || !host->second.online()) continue;
    auto config = await<proxmox::vm_config>(
        [&, node = vm.node, id = vmid](auto done) { api.vm_config(node, id, std::move(done)); },
        deadline, "GET /nodes/" + vm.node + "/qemu/" + std::to_string(vmid) + "/config");
    if (config) {
      vm.config = std::move(*config);
    } else {
      vm.config_error = config.error().code + ": " + config.error().message;
    }
  }
  return out;
}

}  // namespace kp::plan
