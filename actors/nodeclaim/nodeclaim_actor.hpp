#pragma once
// One actor per NodeClaim of this provider: adds the termination finalizer, launches the VM
// (node class -> template -> instance type -> bootstrap token -> cloud-init ISO -> region),
// registers the Node, marks it initialized, releases the ISO, and deletes the claim when it
// does not launch within LAUNCH_TIMEOUT or register within REGISTRATION_TIMEOUT. Level-triggered:
// every snapshot re-runs the phase the claim is in, and a phase that is done writes nothing.
// Claims being deleted belong to the termination actor and are left alone.
#include <string>

#include <caf/fwd.hpp>

#include "actors/controller_context.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors::nodeclaim {

// `name` is the NodeClaim's name (cluster-scoped). Needs from ctx: kube, regions,
// instance_types, settings (system_namespace, launch/registration timeouts, bootstrap token TTL),
// cluster_endpoint, cluster_ca_pem, kubernetes_version; metrics and events when present.
// The fleet passes the one context all its actors share; the overload taking a context copies it.
protocol::nodeclaim_actor spawn_nodeclaim_actor(caf::actor_system& system, shared_context ctx,
                                                std::string name);
protocol::nodeclaim_actor spawn_nodeclaim_actor(caf::actor_system& system,
                                                const controller_context& ctx, std::string name);

}  // namespace kp::actors::nodeclaim
