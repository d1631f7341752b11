#pragma once
// Informers: one actor per watched kind. Each runs a list-then-watch loop through the kube
// client's reflector (resume from the last resourceVersion, bookmarks, re-list on 410 Expired),
// holds the kind's current objects and reports them to cluster_state: the whole set after every
// (re)list and every resync period (objects_replaced), and each change (object_changed). The pod
// informer holds none: cluster_state keeps pods only as their models, so it gets the list a page
// at a time and no resync (it would repeat what cluster_state holds).
// Exiting the actor (or dropping every handle to it) stops its watch.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "observability/karpenter_metrics.hpp"
#include "protocol/controller_messages.hpp"
#include "protocol/kube/client.hpp"

namespace kp::actors::cluster_state {

struct informer_options {
  // SYSTEM_NAMESPACE: bootstrap token Secrets are watched only there (never cluster-wide).
  std::string system_namespace = "kube-system";
  // Every informer re-sends its whole map this often (client-go's resync), so a reader that
  // missed or mishandled a change converges. Timers come from the actor clock.
  std::chrono::milliseconds resync_period{std::chrono::minutes(10)};
  // Backoff, page size and watch lengths for every reflector (selectors are set per kind).
  kube::reflector_options reflector;
  // Counts failures at the informers' boundaries (may be null).
  std::shared_ptr<obs::karpenter_metrics> metrics;
  // CapacityBuffer gate: also watch CapacityBuffers and PodTemplates (all namespaces).
  bool capacity_buffers = false;
  // FEATURE_GATES NodeOverlay: watch NodeOverlays too (their CRD must be installed).
  bool watch_node_overlays = false;
};

// One informer for kind T in `namespace_` ("" = all namespaces, or a cluster-scoped kind).
// Instantiated in informer.cpp for the kinds of protocol::cluster_snapshot.
template <class T>
caf::actor spawn_informer(caf::actor_system& system, std::shared_ptr<kube::client> client,
                          protocol::informer_sink<T> sink, std::string namespace_,
                          kube::reflector_options reflector,
                          std::chrono::milliseconds resync_period,
                          std::shared_ptr<obs::karpenter_metrics> metrics = {});

// The informers cluster_state needs (eleven, two more with capacity_buffers, and NodeOverlays
// when watched), all reporting to
// `sink`. Keep the handles: the informers live while someone holds them (or until they are sent an
// exit message).
std::vector<caf::actor> spawn_informers(caf::actor_system& system,
                                        std::shared_ptr<kube::client> client,
                                        protocol::cluster_state_actor sink,
                                        const informer_options& options);

}  // namespace kp::actors::cluster_state
