#pragma once
// Completions of asynchronous I/O (Kubernetes and Proxmox clients) run on io threads. An actor
// never touches its state there: it wraps the rest of the work in a `continuation` and sends it
// to itself (anon_send, cpp-stack.md section 3), so the work runs inside the actor, in order,
// single-threaded. An actor that uses this adds `caf::reacts_to<resume_atom, continuation>` to its
// interface and `[boundary](resume_atom, continuation& c) { boundary->run(c); }` to its
// behaviour, so a completion that throws is confined to itself (failure_boundary.hpp).
#include <functional>
#include <string>
#include <utility>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/send.hpp>

#include "core/result.hpp"

namespace kp::actors {

// A piece of work to run inside the actor (the rest of an operation after an I/O completion).
struct continuation {
  std::function<void()> run;
  // What the work is for ("NodeClaim default-abcde"), named in the log if it throws.
  std::string subject;
};

using resume_atom = caf::atom_constant<caf::atom("resume")>;

}  // namespace kp::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kp::actors::continuation)

namespace kp::actors {

// A callback for an I/O client that resumes `f` inside the actor `handle` (any typed or untyped
// handle whose interface accepts resume_atom + continuation). If the actor is gone, nothing runs.
// `subject` names the object the operation is for, should `f` throw.
template <class Result, class Handle>
std::function<void(Result)> resume_in(Handle handle, std::function<void(Result)> f,
                                      std::string subject = {}) {
  return [handle = std::move(handle), f = std::move(f), subject = std::move(subject)](Result r) {
    caf::anon_send(handle, resume_atom::value,
                   continuation{[f, r = std::move(r)]() mutable { f(std::move(r)); }, subject});
  };
}

}  // namespace kp::actors
