#pragma once
// The typed messages, atoms and actor interfaces that actors exchange, declared once so every
// sender and receiver is checked by the compiler. Header-only; CAF 0.17 idioms (atom_constant,
// typed_actor<replies_to<...>::with<...>, reacts_to<...>>, inspect overloads).
#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace kp::protocol {

// --- atoms (at most 10 characters) -------------------------------------------------------------
using probe_atom = caf::atom_constant<caf::atom("probe")>;           // probe now
using probe_done_atom = caf::atom_constant<caf::atom("probedone")>;  // a probe's reply arrived
using readiness_atom = caf::atom_constant<caf::atom("readiness")>;   // query, and registry key
using children_atom = caf::atom_constant<caf::atom("children")>;     // supervisor: who runs
using restart_atom = caf::atom_constant<caf::atom("restart")>;       // supervisor: respawn one

// --- messages ----------------------------------------------------------------------------------

// One component's readiness, sent to the readiness actor whenever it is (re)assessed.
// component: "kubernetes api", "proxmox region r1", ...; detail says what is missing.
struct readiness_report {
  std::string component;
  bool ready = false;
  std::string detail;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, readiness_report& x) {
  return f(caf::meta::type_name("readiness_report"), x.component, x.ready, x.detail);
}

// The outcome of one reachability probe of an HTTP endpoint.
struct probe_outcome {
  bool connected = false;
  int http_status = 0;  // 0 when no HTTP response arrived
  std::string detail;   // "connection refused", "HTTP 401: credentials refused", ...
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, probe_outcome& x) {
  return f(caf::meta::type_name("probe_outcome"), x.connected, x.http_status, x.detail);
}

// --- actor interfaces --------------------------------------------------------------------------

// Collects readiness reports and publishes them to the /readyz state. The query replies whether
// everything is ready and the /readyz body. Registered in the actor registry under
// readiness_atom, so reporters find the current instance even after a restart.
using readiness_actor = caf::typed_actor<caf::reacts_to<readiness_report>,
                                         caf::replies_to<readiness_atom>::with<bool, std::string>>;

// Probes one HTTP endpoint (a Proxmox cluster's /version, the Kubernetes API's /version) with
// exponential backoff while unreachable, and reports to the readiness actor.
using endpoint_probe_actor =
    caf::typed_actor<caf::reacts_to<probe_atom>, caf::reacts_to<probe_done_atom, probe_outcome>>;

// Spawns, monitors and restarts the other actors; stops them when it is told to exit.
using supervisor_actor =
    caf::typed_actor<caf::replies_to<children_atom>::with<std::vector<std::string>>,
                     caf::reacts_to<restart_atom, std::string>>;

}  // namespace kp::protocol
