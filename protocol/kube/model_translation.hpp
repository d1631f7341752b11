#pragma once
// Translation of API objects into the core/model types the scheduler and the disruption logic
// use, and of model NodeClaims back into API objects for creation. Quantities go through
// core/model's parser; a malformed one is an "invalid_quantity" error naming the object and the
// field path, as is an unknown selector operator ("invalid_object").
#include <optional>
#include <string>
#include <vector>

#include "core/model/node.hpp"
#include "core/model/nodeclaim.hpp"
#include "core/model/nodepool.hpp"
#include "core/model/pod.hpp"
#include "core/result.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/nodeclaim_part_models.hpp"
#include "protocol/kube/pod_part_models.hpp"
#include "protocol/kube/storage_v1.hpp"

namespace kp::kube {

// RFC 3339 ("2025-01-02T03:04:05Z", fractions and offsets allowed) to Unix milliseconds.
std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text);
// Unix milliseconds to "2025-01-02T03:04:05Z" (seconds precision, as metav1.Time).
std::string format_rfc3339(std::int64_t unix_ms);

// With `parts`, the model shares each part with every pod translated through it whose object
// shares that part (pod_part_models.hpp); without, every part is the model's own.
result<model::pod> to_model(const pod& p, pod_part_models* parts = nullptr);
// As to_model, but always a pod: when a part cannot be translated, `invalid` says why and the
// pod lacks requirements (resources, affinity, spread) from that part on. Identity, labels,
// ownership, tolerations, volumes, priority and state are always read.
model::pod to_model(const pod& p, pod_part_models* parts, std::optional<kp::error>& invalid);
// csi (optional) adds the node's CSI attach limits.
result<model::node> to_model(const node& n, const csi_node* csi = nullptr);
result<model::nodepool> to_model(const node_pool& p);
// `parts` (optional) shares the model's labels, annotations and requirements with the other
// NodeClaims translated through it that carry equal ones.
result<model::nodeclaim> to_model(const node_claim& c, nodeclaim_part_models* parts = nullptr);
// A requirement list; `where` names the field in errors ("spec.requirements[2].operator: ...").
result<std::vector<model::node_selector_requirement>> to_model(
    const std::vector<node_selector_requirement>& in, const std::string& where);

// A NodeClaim to create from the model (metadata.name or generateName, labels, annotations,
// spec); status is left for the controller to write through the status subresource.
node_claim from_model(const model::nodeclaim& c);

}  // namespace kp::kube
