#pragma once
// The node class status actor: for every ProxmoxNodeClass writes InstanceTemplateReady,
// InstanceMetadataOptionsReady and Ready (nodeclass_conditions.hpp), on every snapshot that
// changed node classes or templates (on every snapshot while one is not Ready) and on a timer
// (the regions' inventories and the Secrets change without a snapshot). Writes only what
// changed; every change is an Event on the node class and a log line. Subscribe it to
// cluster_state.
#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::nodeclass_status {

// Needs from ctx: kube (Secrets, status writes), regions (inventory_atom), settings
// (system_namespace, proxmox_inventory_interval as the re-check period); events when present.
protocol::nodeclass_status_actor spawn_nodeclass_status(caf::actor_system& system,
                                                        const controller_context& ctx);

}  // namespace kp::actors::nodeclass_status

namespace kp::actors {
using nodeclass_status::spawn_nodeclass_status;
}  // namespace kp::actors
