#pragma once
// The capacity buffer actor's output (CapacityBuffer gate): the virtual pods of every buffer
// ready for provisioning, published after each evaluation to the provisioner (which keeps room
// for them, creating NodeClaims where none is left) and to disruption (which counts the pods
// on a node, so a node holding only buffer room is not empty while the buffer is wanted).
#include <cstdint>
#include <memory>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "core/model/pod.hpp"

namespace kp::protocol {

struct buffer_pods {
  std::uint64_t evaluation = 0;
  // Immutable once sent. node_name is set on the pods that fit on a registered node in that
  // evaluation; receivers place them again on their own snapshot.
  std::shared_ptr<const std::vector<model::pod>> pods;
};

using buffer_pods_listener = caf::typed_actor<caf::reacts_to<buffer_pods>>;

}  // namespace kp::protocol

// A shared immutable pointer, like snapshot_ptr: in one process only, never serialised.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kp::protocol::buffer_pods)
