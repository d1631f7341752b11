#pragma once
// The wiring shared by the status writers that react only to snapshots and to the completions of
// their own writes (NodePool status, NodeOverlay status): a snapshot_listener that also takes
// its completions back (continuation.hpp), behind a failure boundary (failure_boundary.hpp).
// The writer supplies its state and what it does with a snapshot; the handle it returns is the
// declared protocol::snapshot_listener, converted by type, never cast.
// Include it from .cpp files only: it pulls in CAF.
#include <string>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/continuation.hpp"
#include "actors/controller_context.hpp"
#include "actors/failure_boundary.hpp"
#include "protocol/controller_messages.hpp"

namespace kp::actors {

using status_writer_actor =
    protocol::snapshot_listener::extend<caf::reacts_to<resume_atom, continuation>>;

template <class State>
using status_writer_ptr = typename status_writer_actor::template stateful_pointer<State>;

// `State` holds `ctx` (controller_context), `opt` (the writer's options) and `boundary`
// (boundary_ptr); `OnSnapshot` handles every snapshot, inside the boundary.
template <class State, void (*OnSnapshot)(status_writer_ptr<State>, protocol::snapshot_ptr)>
status_writer_actor::behavior_type status_writer_behavior(status_writer_ptr<State> self,
                                                          std::string actor, controller_context ctx,
                                                          decltype(State::opt) opt) {
  self->state.ctx = std::move(ctx);
  self->state.opt = std::move(opt);
  auto boundary = make_boundary(std::move(actor), self->state.ctx.metrics);
  self->state.boundary = boundary;
  install_boundary(self, boundary);
  return guarded_behavior<status_writer_actor::behavior_type>(
      boundary, [self](protocol::snapshot_ptr& snap) { OnSnapshot(self, std::move(snap)); },
      [boundary](resume_atom, continuation& c) { boundary->run(c); });
}

// Spawns the writer; `actor` names it in the failure log and metric ("nodepool_status").
template <class State, void (*OnSnapshot)(status_writer_ptr<State>, protocol::snapshot_ptr)>
protocol::snapshot_listener spawn_status_writer(caf::actor_system& system, std::string actor,
                                                const controller_context& ctx,
                                                decltype(State::opt) opt) {
  return system.spawn(status_writer_behavior<State, OnSnapshot>, std::move(actor), ctx,
                      std::move(opt));
}

}  // namespace kp::actors
