#pragma once
// NodeOverlay (karpenter.sh/v1alpha1) applied to instance types, as Karpenter v1.14 does:
// - an overlay selects instance types whose labels (instance type, family, arch, os, region,
//   zones and capacity types of their offerings) are compatible with its requirements, and
//   within each such type the offerings whose zone, region and capacity type match;
// - `price` or `priceAdjustment` changes the price of those offerings; per offering only the
//   first overlay in order counts (higher weight first, equal weights by name, later in the
//   alphabet first);
// - `capacity` adds extended resources to the type; a resource keeps the value of the first
//   overlay in order that names it, and resources from different overlays merge;
// - two overlays of equal weight that both set the price of one offering, or both name one
//   extended resource of one type, conflict: the later one in order is refused whole
//   (applied nowhere) and its verdict names the overlays it collides with.
// Overlays that are not valid (requirements, price texts, restricted resources) are refused
// with the reason and never applied. The function is total: any input gives an answer.
#include <cstdint>
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/model/node_selector.hpp"
#include "core/model/resource_list.hpp"

namespace kp::overlays {

struct overlay {
  std::string name;
  std::vector<model::node_selector_requirement> requirements;
  std::string price;             // "" when unset
  std::string price_adjustment;  // "" when unset
  model::resource_list capacity;
  std::int32_t weight = 0;  // an unset weight counts as 0
  // Set when the API object could not be read into this form (an unknown operator, a bad
  // quantity): the overlay is refused with this message.
  std::string unreadable;
  friend bool operator==(const overlay&, const overlay&) = default;
};

enum class verdict_kind : unsigned char { applied, conflict, invalid };

struct verdict {
  std::string overlay;
  verdict_kind kind = verdict_kind::applied;
  // invalid: what is wrong, naming the field. conflict: names the overlays it collides with.
  std::string message;
  std::vector<std::string> conflicts_with;  // conflict only, sorted
  friend bool operator==(const verdict&, const verdict&) = default;
};

struct overlaid_types {
  std::vector<instance_types::instance_type> types;  // same order as the input
  std::vector<verdict> verdicts;                     // one per overlay, in input order
};

// The CRD's rules the API server may not have enforced (kube-sim leaves some CEL to us), plus
// Karpenter's runtime validation. Empty when the overlay is valid.
std::string validation_error(const overlay& o);

overlaid_types apply_overlays(const std::vector<instance_types::instance_type>& types,
                              const std::vector<overlay>& overlays);

// Condition texts, as Karpenter words them: reason "Conflict" or "RuntimeValidation".
const char* condition_reason(verdict_kind kind);

}  // namespace kp::overlays
