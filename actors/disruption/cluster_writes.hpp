#pragma once
// The Kubernetes writes the disruption actor makes, behind a small interface so that its
// decision flow can be tested on virtual time with a fake. Callbacks may run on any thread
// (the actor turns them into messages with resume_in).
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "actors/condition_reasons.hpp"
#include "core/result.hpp"
#include "protocol/kube/karpenter_v1.hpp"

namespace kp::kube {
class client;
}

namespace kp::actors::disruption {

class cluster_writes {
 public:
  using done = std::function<void(status)>;
  virtual ~cluster_writes() = default;

  // Adds (or removes) the karpenter.sh/disrupted:NoSchedule taint on a Node.
  virtual void taint_disrupted(const std::string& node, bool on, done d) = 0;
  virtual void create_nodeclaim(const kube::node_claim& claim, done d) = 0;
  // Deletes a NodeClaim (the termination actor drains and removes the VM); gone is success.
  virtual void delete_nodeclaim(const std::string& name, done d) = 0;
  virtual void annotate_nodeclaim(const std::string& name,
                                  const std::map<std::string, std::string>& set, done d) = 0;
  // Sets the NodeClaim status condition DisruptionReason (True, reason, message).
  virtual void mark_disruption_reason(const std::string& name, condition_reason reason,
                                      const std::string& message, done d) = 0;
};

// The real writes, through the Kubernetes client.
std::shared_ptr<cluster_writes> kube_cluster_writes(std::shared_ptr<kube::client> client,
                                                    std::function<std::int64_t()> wall_clock_ms);

}  // namespace kp::actors::disruption
