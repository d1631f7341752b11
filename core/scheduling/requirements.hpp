#pragma once
// Karpenter's requirement algebra over interned labels (karpenter-core.md 1.5).
// A requirement is a key with a value set that is either listed (In) or excluded (NotIn), plus
// optional integer bounds (Gt/Lt/Gte/Lte) and a minValues count. Requirements are kept sorted
// by key; adding one for a key already present intersects the two.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/node_selector.hpp"
#include "core/result.hpp"
#include "core/scheduling/label_table.hpp"

namespace kp::scheduling {

struct requirement {
  label_id key = no_label;
  bool complement = false;       // true: every value except `values`
  std::vector<label_id> values;  // sorted, unique
  std::optional<std::int64_t> gte;
  std::optional<std::int64_t> lte;
  std::optional<int> min_values;

  // The operator this requirement reads as: In, NotIn, Exists, DoesNotExist (bounds read as
  // Exists-with-bounds and report Gte).
  model::selector_operator op() const;
  bool has(label_id value, const label_table& t) const;
  // No value can satisfy it (DoesNotExist, or an empty intersection).
  bool is_empty() const { return !complement && values.empty(); }
  // Exactly one listed value.
  bool is_single() const { return !complement && values.size() == 1; }
  friend bool operator==(const requirement&, const requirement&) = default;
};

// Builds a requirement from its API form. Gt N becomes gte N+1, Lt N lte N-1; a numeric
// operator with a non-integer value is an "invalid_requirement" error.
result<requirement> make_requirement(label_table& t, const model::node_selector_requirement& r);
requirement make_in(label_id key, std::vector<label_id> values);
requirement make_exists(label_id key);
requirement make_does_not_exist(label_id key);

requirement intersect(const requirement& a, const requirement& b, const label_table& t);

// Why two requirement sets are incompatible.
struct conflict {
  label_id key = no_label;
  bool undefined = false;  // the key is not defined on the node side at all
};

class requirements {
 public:
  requirements() = default;

  void add(const requirement& r, const label_table& t);
  void add_all(const requirements& other, const label_table& t);
  const requirement* get(label_id key) const;
  bool has(label_id key) const { return get(key) != nullptr; }
  void erase(label_id key);
  const std::vector<requirement>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

  // Every shared key has some common value, except that NotIn/DoesNotExist on both sides never
  // conflict. Returns the first conflicting key.
  std::optional<conflict> intersects(const requirements& incoming, const label_table& t) const;
  // Karpenter's Compatible: intersects, and every key of `incoming` is defined here unless it is
  // in `allow_undefined` (sorted) or its operator is NotIn/DoesNotExist.
  std::optional<conflict> compatible(const requirements& incoming,
                                     const std::vector<label_id>& allow_undefined,
                                     const label_table& t) const;

  // A person-readable form, e.g. `topology.kubernetes.io/zone In [a b]`.
  std::string describe(const label_table& t) const;
  friend bool operator==(const requirements&, const requirements&) = default;

 private:
  std::vector<requirement> items_;  // sorted by key
};

std::string describe(const requirement& r, const label_table& t);

}  // namespace kp::scheduling
