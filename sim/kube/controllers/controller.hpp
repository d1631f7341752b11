#pragma once
// A simulated Kubernetes controller: a level-triggered reconcile pass over the store, run on the
// cluster's single thread after changes and periodically. Running a pass twice in a row with no
// change in between writes nothing.
#include <chrono>
#include <memory>
#include <string>

#include "protocol/transport/tls_certificates.hpp"
#include "sim/kube/operations.hpp"

namespace kp::sim::kube {

struct controller_settings {
  std::chrono::seconds node_monitor_grace{40};     // lease silence before Ready=Unknown
  std::chrono::milliseconds pod_termination{500};  // kubelet: longest a graceful stop takes
  std::chrono::hours client_certificate_lifetime{24 * 365};
  std::size_t replicaset_burst = 500;  // pods created per pass per ReplicaSet
  // kubelet: how long a Job's pod runs when no run-duration annotation says (see kubelet.cpp).
  std::chrono::milliseconds job_pod_run_time{2000};
};

struct controller_context {
  operations& ops;
  const controller_settings& settings;
  const transport::certificate_authority& ca;
  std::chrono::system_clock::time_point now;
};

class controller {
 public:
  virtual ~controller() = default;
  virtual const char* name() const = 0;
  virtual void reconcile(controller_context& ctx) = 0;
};

std::unique_ptr<controller> make_scheduler();
std::unique_ptr<controller> make_kubelet();
std::unique_ptr<controller> make_replicaset_controller();
std::unique_ptr<controller> make_deployment_controller();
std::unique_ptr<controller> make_daemonset_controller();
std::unique_ptr<controller> make_statefulset_controller();
std::unique_ptr<controller> make_job_controller();
std::unique_ptr<controller> make_node_lifecycle();
std::unique_ptr<controller> make_token_cleaner();
std::unique_ptr<controller> make_garbage_collector();
std::unique_ptr<controller> make_disruption_controller();
std::unique_ptr<controller> make_csr_signer();
std::unique_ptr<controller> make_namespace_controller(std::string ca_pem);

// Shared by several controllers.
const resource_type& builtin_type(operations& ops, const char* group, const char* plural);
std::string condition_status(const boost::json::object& object, std::string_view type);
// Sets or updates a condition; lastTransitionTime changes only when the status changes.
void set_condition(boost::json::object& object, std::string_view type, std::string_view status,
                   std::string_view reason, std::string_view message, const std::string& now);
bool tolerates(const boost::json::object& pod, const boost::json::object& taint);
// A pod's nodeSelector and required node affinity (matchExpressions on labels, matchFields on
// metadata.name) against a node.
bool node_affinity_matches(const boost::json::object& pod, const boost::json::object& node);

}  // namespace kp::sim::kube
