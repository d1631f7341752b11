#pragma once
// Label selectors (the query-string syntax and the LabelSelector object) and field selectors
// with the per-kind field labels the API server registers.
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube/api_error.hpp"

namespace kp::sim::kube {

struct resource_type;

struct label_requirement {
  enum class op { equals, not_equals, in, not_in, exists, not_exists, gt, lt };
  std::string key;
  op operation = op::equals;
  std::vector<std::string> values;
};

class label_selector {
 public:
  // "a=b,c!=d,e in (x,y),f notin (z),g,!h"; errors are BadRequest.
  static api_result<label_selector> parse(const std::string& text);
  // metav1.LabelSelector {matchLabels, matchExpressions}; nullptr means "match nothing".
  static api_result<label_selector> from_object(const boost::json::object* selector);
  // A NodeSelectorRequirement list (key/operator/values, operators incl. Gt/Lt).
  static label_selector from_node_requirements(const boost::json::array& exprs);

  bool matches(const boost::json::object* labels) const;
  bool empty() const { return requirements_.empty() && !nothing_; }

 private:
  std::vector<label_requirement> requirements_;
  bool nothing_ = false;
};

struct field_requirement {
  std::string field;
  std::string value;
  bool negate = false;
};

class field_selector {
 public:
  // Validates field names against the kind's registered field labels (400 otherwise).
  static api_result<field_selector> parse(const std::string& text, const std::string& kind);
  bool matches(const boost::json::object& object) const;
  // metadata.name=X when present (lets get/list skip scans).
  std::optional<std::string> exact_name() const;

 private:
  std::vector<field_requirement> requirements_;
  std::string kind_;
};

// The value of a registered field label for an object ("" when unset).
std::string field_label_value(const boost::json::object& object, const std::string& kind,
                              const std::string& field);

}  // namespace kp::sim::kube
