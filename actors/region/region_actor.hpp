#pragma once
// The region actor: one per Proxmox cluster and the only door to it. Owns the inventory (hosts,
// topology, VMs, templates, storages), VMID allocation, placement and at most `max_in_flight`
// Proxmox operations at once (the rest queue, depth exported as
// karpenter_proxmox_actor_queue_depth). Answers the protocol::region_actor interface. Proxmox
// calls complete on any thread and come back to the actor as messages; timers and task waits
// come from the actor clock.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "core/topology/node_settings.hpp"
#include "protocol/proxmox/api.hpp"
#include "protocol/proxmox/task_waiter.hpp"
#include "protocol/region_messages.hpp"

namespace prometheus {
class Registry;
}
namespace kp::obs {
struct karpenter_metrics;
}

namespace kp::actors::region {

struct region_settings {
  std::string region;                // the name in providerIDs (proxmox://<region>/<vmid>)
  std::string cluster_name;          // CLUSTER_NAME: whose marks are ours
  std::uint32_t first_vmid = 20000;  // PROXMOX_VMID
  std::size_t max_in_flight = 8;     // PROXMOX_MAX_INFLIGHT
  std::chrono::milliseconds refresh_interval{std::chrono::minutes(1)};
  std::chrono::seconds vmid_quarantine{std::chrono::minutes(5)};
  proxmox::task_wait_options clone_wait;     // clone, upload, config, resize, delete
  proxmox::task_wait_options start_wait;     // start and stop
  proxmox::task_wait_options download_wait;  // template images (download-url)
  proxmox::task_wait_options template_wait;  // conversion to a template
  // A task wait's first poll goes out after the typical duration of that task type on that
  // host, learnt from earlier tasks (task_timing.hpp), within these bounds; at once while no
  // task of that kind ended yet. PROXMOX_TASK_FIRST_POLL_FLOOR / _CAP.
  std::chrono::milliseconds task_first_poll_floor{20};
  std::chrono::milliseconds task_first_poll_cap{std::chrono::seconds(10)};
  // Task waits look at their tasks through one GET /cluster/tasks read per poll round, shared by
  // every wait of the region; a task it does not list is polled on its own. False: every wait
  // polls its own task. PROXMOX_CLUSTER_TASK_LIST.
  bool cluster_task_list = true;
  // A wait that falls due opens a round of the shared list: the waits falling due within this
  // join it, and one read answers them all (0: the read goes out at once). A look waits this
  // much longer at most. PROXMOX_TASK_LIST_GATHER.
  std::chrono::milliseconds task_list_gather{30};
  // A template's config (its mark) read this recently serves the template observation without
  // another read; host facts (node status: CPU topology; network: bridges) are read again at
  // the first refresh after this age, and at once after a failed read.
  // PROXMOX_TEMPLATE_CONFIG_MAX_AGE, PROXMOX_HOST_FACTS_MAX_AGE.
  std::chrono::milliseconds template_config_max_age{std::chrono::minutes(5)};
  std::chrono::milliseconds host_facts_max_age{std::chrono::minutes(30)};
  // A launched VM's config as the launch wrote it serves the inventory this long unless the
  // door reads it sooner (the ISO release does, once the node initialised); then a refresh
  // reads it. PROXMOX_LAUNCHED_CONFIG_MAX_AGE.
  std::chrono::milliseconds launched_config_max_age{std::chrono::minutes(5)};
  // How long a launch (or a template VM's creation) waits for the VMIDs NodeClaims name before it
  // answers "not_ready": nothing is allocated before they are known.
  std::chrono::milliseconds claims_wait{std::chrono::seconds(30)};
  // The guest agent wait of a join command (ping until it answers, then exec-status until the
  // command exits): its timeout and poll intervals. Nothing: start_wait's.
  std::optional<proxmox::task_wait_options> agent_wait;
  // Root (ticket) credentials may set the root-only `affinity`; a token writes the plan into
  // the description instead.
  bool can_set_affinity = false;
  // NODE_POLICY=static: every launch pins CPUs and binds NUMA nodes (as if the request's
  // static_cpu_policy were set).
  bool static_cpu_policy = false;
  prometheus::Registry* metrics = nullptr;  // optional
  // Optional: counts failures caught at the actor's boundary (actor_failures{actor="region"}).
  std::shared_ptr<obs::karpenter_metrics> karpenter;
  // Leftover cloud-init ISOs of this cluster (core/ownership/iso_name.hpp) whose VM is gone,
  // older than this, are deleted during refreshes (every `leftover_iso_every` refreshes, not
  // the first one). The grace keeps another controller's launch in flight safe.
  std::chrono::seconds leftover_iso_grace{std::chrono::minutes(10)};
  unsigned leftover_iso_every = 10;
  // NODE_SETTING_FILE as loaded once at start (config::load_node_settings_file): its entries for
  // this region override each host's topology (core/topology resolve_host_topology). A host
  // whose entry does not fit is left out of placement (logged, and listed in the inventory's
  // unusable_hosts). Nothing: topology VM or prediction only.
  std::optional<topology::node_settings_file> node_settings;
};

// Spawns the actor over `api` (the REST client, or a test's in-memory Proxmox).
protocol::region_actor spawn_region_actor(caf::actor_system& system,
                                          std::shared_ptr<proxmox::api> api,
                                          region_settings settings);

}  // namespace kp::actors::region
