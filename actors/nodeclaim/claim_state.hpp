#pragma once
// The nodeclaim actor's private state and the functions its phase files share. Only the files of
// the nodeclaim actor (nodeclaim_actor.cpp, nodeclaim_launch.cpp, nodeclaim_registration.cpp,
// nodeclaim_upkeep.cpp) include this; it brings in CAF templates.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include <caf/all.hpp>

#include "actors/backoff.hpp"
#include "actors/continuation.hpp"
#include "actors/controller_context.hpp"
#include "actors/event_reasons.hpp"
#include "actors/status_conditions.hpp"
#include "actors/status_refusals.hpp"
#include "core/boxed_optional.hpp"
#include "core/cloudinit/bootstrap_token.hpp"
#include "core/instance_types/instance_type.hpp"
#include "observability/logging.hpp"
#include "protocol/cluster_snapshot.hpp"
#include "protocol/controller_messages.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/region_messages.hpp"

namespace kp::actors::nodeclaim::detail {

using retry_atom = caf::atom_constant<caf::atom("ncretry")>;
using deadline_atom = caf::atom_constant<caf::atom("ncdeadline")>;
using impl_actor = protocol::nodeclaim_actor::extend<caf::reacts_to<resume_atom, continuation>,
                                                     caf::reacts_to<retry_atom>,
                                                     caf::reacts_to<deadline_atom, int>>;

// Which deadline a deadline_atom carries.
constexpr int launch_deadline = 0;
constexpr int registration_deadline = 1;

struct launched_vm {
  std::string uid;
  protocol::launch_reply reply;
  instance_types::instance_type type;
  std::string template_name;
  std::string node_class;
  std::string image_id;  // the template's status.imageID at launch: what image drift compares
};

struct claim_state {
  shared_context ctx;  // never null
  std::string claim_name;
  protocol::snapshot_ptr snapshot;
  obs::logger log{"nodeclaim"};
  bool busy = false;
  std::int64_t written_rv = -1;  // resourceVersion our last claim write produced
  // Boxed: set only for a launch made in this lifetime, while 4,000 claims of a large cluster
  // would otherwise each carry its 880 bytes inline.
  boxed_optional<launched_vm> launched;
  // When the region answered this lifetime's launch (actor clock): the join step starts there.
  std::optional<caf::actor_clock::time_point> launch_answered_at;
  std::string launch_image_id;  // the template image of the launch in flight (busy)
  std::optional<cloudinit::bootstrap_token> token;  // made by us this lifetime
  backoff retry{std::chrono::seconds(1), std::chrono::seconds(60)};
  bool retry_pending = false;
  bool launch_armed = false;
  bool registration_armed = false;
  bool registered_written = false;
  bool iso_released = false;
  std::string synced_node_class;  // "<uid>/<generation>" of the node class last synced to the VM
  std::set<std::string> tokens_deleting;
  status_refusals refusals;

  static inline const char* name = "nodeclaim";
};

using self_ptr = impl_actor::stateful_pointer<claim_state>;

// A Kubernetes completion, run back inside the actor.
template <class T>
std::function<void(result<T>)> in_actor(self_ptr self, std::function<void(result<T>)> f) {
  return resume_in<result<T>>(impl_actor{self}, std::move(f));
}

inline std::function<void(status)> in_actor_status(self_ptr self, std::function<void(status)> f) {
  return resume_in<status>(impl_actor{self}, std::move(f));
}

// --- shared by the phases (nodeclaim_actor.cpp)
// ---------------------------------------------------

std::string now_rfc3339(const claim_state& st);
const kube::node_claim* current_claim(const claim_state& st);
void note_written(self_ptr self, const kube::node_claim& written);
void event(const claim_state& st, const kube::node_claim& claim, std::string type,
           event_reason reason, std::string message);
std::string nodepool_of(const kube::node_claim& claim);
std::string label_of(const kube::node_claim& claim, const char* key);
void schedule_retry(self_ptr self);
// Ends a phase: `ok` resets the backoff and looks at the state again; otherwise retry later.
void phase_done(self_ptr self, bool ok);
// Writes the claim's status (merge patch of the status subresource) and then runs `next`.
void write_status(self_ptr self, kube::node_claim claim, std::function<void(bool)> next);
// Sets one condition and writes the status only when it changed.
void write_condition(self_ptr self, const kube::node_claim& claim, const std::string& type,
                     const std::string& status, condition_reason reason,
                     const std::string& message);

// --- the phases
// -----------------------------------------------------------------------------------

// nodeclaim_launch.cpp
void launch(self_ptr self, const kube::node_claim& claim);

// nodeclaim_registration.cpp
void delete_tokens(self_ptr self, const kube::node_claim& claim);
void do_register(self_ptr self, const kube::node_claim& claim);
void do_initialize(self_ptr self, const kube::node_claim& claim);

// nodeclaim_upkeep.cpp
void release_iso(self_ptr self, const kube::node_claim& claim);
void sync_with_node_class(self_ptr self, const kube::node_claim& claim);
void arm_timers(self_ptr self, const kube::node_claim& claim);
void on_deadline(self_ptr self, int which);

}  // namespace kp::actors::nodeclaim::detail
