#pragma once
// The managed ProxmoxTemplate actor: for every ProxmoxTemplate, on every online host of its
// region (every configured region when it names none), keeps one template VM built from the
// spec's source image (download-url with the checksum, create importing the disk, convert to
// template); when the image changes it builds a new one and retires the old (renamed, tagged,
// destroyed once no linked clone uses it). Level-triggered on snapshots and a timer, idempotent
// across restarts (the VMs are found by the mark line in their description, template_plan.hpp).
// Writes the status (ImageReady, Ready, zones region/host/vmid, imageID) only when it changes;
// a refused spec gets a condition, an Event and a log line, and nothing is created.
#include <map>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::proxmox {
class client;
}

namespace kp::actors::template_manager {

// Needs from ctx: kube (status writes), cluster_name (the mark), settings
// (proxmox_inventory_interval as the re-check period, proxmox_download_timeout,
// proxmox_clone_timeout for create+import, proxmox_template_timeout, proxmox_config_timeout,
// proxmox_delete_timeout, proxmox_task_poll_interval); events when present.
// `clients_by_region`: one Proxmox client per configured region (the clusters file).
// Subscribe the handle to cluster_state; it acts only on synced snapshots.
protocol::snapshot_listener spawn_template_manager(
    caf::actor_system& system, const controller_context& ctx,
    std::map<std::string, std::shared_ptr<proxmox::client>> clients_by_region);

}  // namespace kp::actors::template_manager

namespace kp::actors {
using template_manager::spawn_template_manager;
}  // namespace kp::actors
