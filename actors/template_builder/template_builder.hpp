#pragma once
// The managed ProxmoxTemplate actor: for every ProxmoxTemplate, on every online host of its
// region (every configured region when it names none), keeps one template VM built from the
// spec's source image (download-url with the checksum, create importing the disk, convert to
// template); when the image changes it builds a new one and retires the old (renamed, tagged,
// destroyed once no linked clone uses it). Level-triggered on snapshots and a timer, idempotent
// across restarts (the VMs are found by the mark line in their description, template_plan.hpp).
// Every Proxmox operation is a typed request to the region actor (its VMIDs, credit window and
// ownership re-check); this actor owns no Proxmox client. Writes the status (ImageReady, Ready,
// zones region/host/vmid, imageID) only when it changes; a refused spec gets a condition, an
// Event and a log line, and nothing is created. Inside the failure boundary
// (actors/failure_boundary.hpp, actor="template_builder"): a throw is confined to the template
// it was handling.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::template_builder {

// Needs from ctx: regions (the region actors by region name, from the clusters file), kube
// (status writes), cluster_name (the mark), settings (proxmox_inventory_interval as the re-check
// period; proxmox_download_timeout, proxmox_clone_timeout, proxmox_template_timeout,
// proxmox_config_timeout and proxmox_delete_timeout bound how long a region may take to answer
// each step); metrics and events when present.
// Subscribe the handle to cluster_state; it acts only on synced snapshots.
protocol::snapshot_listener spawn_template_builder(caf::actor_system& system,
                                                   const controller_context& ctx);

}  // namespace kp::actors::template_builder

namespace kp::actors {
using template_builder::spawn_template_builder;
}  // namespace kp::actors
