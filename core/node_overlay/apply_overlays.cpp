#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "core/model/labels.hpp"
#include "core/node_overlay/node_overlay.hpp"
#include "core/node_overlay/price_change.hpp"
#include "core/parse_number.hpp"
#include "core/scheduling/requirements.hpp"

namespace kp::overlays {
namespace {

namespace L = model::labels;
using model::selector_operator;
using scheduling::label_table;
using scheduling::requirements;

constexpr std::size_t max_requirements = 100;
constexpr std::array<std::string_view, 4> restricted_resources = {"cpu", "memory",
                                                                  "ephemeral-storage", "pods"};

std::string requirement_error(const model::node_selector_requirement& r, std::size_t i) {
  std::string field = "spec.requirements[" + std::to_string(i) + "]";
  if (r.key.empty()) return field + ".key: must not be empty";
  auto domain = std::string_view(r.key).substr(0, r.key.find('/'));
  bool karpenter_domain = r.key.find('/') != std::string::npos && domain.ends_with("karpenter.sh");
  if (karpenter_domain && r.key != L::capacity_type && r.key != L::nodepool)
    return field + ".key: label domain \"karpenter.sh\" is restricted (\"" + r.key + "\")";
  if (r.key == L::hostname) return field + ".key: label \"kubernetes.io/hostname\" is restricted";
  switch (r.op) {
    case selector_operator::in:
    case selector_operator::not_in:
      if (r.values.empty())
        return field + ": operator " + model::to_string(r.op) + " must have a value defined";
      break;
    case selector_operator::gt:
    case selector_operator::lt:
    case selector_operator::gte:
    case selector_operator::lte:
      if (r.values.size() != 1 || !parse_integer<std::int64_t>(r.values[0]) ||
          *parse_integer<std::int64_t>(r.values[0]) < 0)
        return field + ": operator " + model::to_string(r.op) +
               " must have a single positive integer value";
      break;
    case selector_operator::exists:
    case selector_operator::does_not_exist:
      break;
  }
  return "";
}

// What the overlay's requirements are compared with: the type's labels and, for every label
// the offerings carry, the values of all its offerings.
requirements type_requirements(const instance_types::instance_type& it, label_table& t) {
  requirements out;
  out.add(scheduling::make_in(t.intern(L::instance_type), {t.intern(it.name)}), t);
  if (!it.family.empty())
    out.add(scheduling::make_in(t.intern(L::instance_family), {t.intern(it.family)}), t);
  for (const auto& r : it.requirements)
    if (auto req = scheduling::make_requirement(t, r)) out.add(*req, t);
  std::vector<scheduling::label_id> zones, regions, capacity_types;
  for (const auto& o : it.offerings) {
    zones.push_back(t.intern(o.zone));
    regions.push_back(t.intern(o.region));
    capacity_types.push_back(t.intern(o.capacity_type));
  }
  out.add(scheduling::make_in(t.intern(L::zone), std::move(zones)), t);
  out.add(scheduling::make_in(t.intern(L::capacity_type), std::move(capacity_types)), t);
  if (!out.has(t.find(L::region)))
    out.add(scheduling::make_in(t.intern(L::region), std::move(regions)), t);
  return out;
}

requirements offering_requirements(const instance_types::offering& o, label_table& t) {
  requirements out;
  out.add(scheduling::make_in(t.intern(L::zone), {t.intern(o.zone)}), t);
  out.add(scheduling::make_in(t.intern(L::region), {t.intern(o.region)}), t);
  out.add(scheduling::make_in(t.intern(L::capacity_type), {t.intern(o.capacity_type)}), t);
  return out;
}

// One overlay made ready for matching.
struct compiled {
  std::size_t index = 0;  // into the input overlays
  requirements reqs;
  std::optional<price_change> price;
};

// What has been decided for one offering's price / one type's capacity so far. `weight` and
// `by` are those of the last overlay that selected it (the lowest weight so far, since
// overlays come in descending weight): an equal weight after that is a conflict.
struct price_slot {
  bool touched = false;
  price_change change;
  std::int32_t weight = 0;
  std::string by;
};

struct capacity_slot {
  bool touched = false;
  model::resource_list merged;
  model::resource_list last;  // the resources of the last overlay that added any
  std::int32_t weight = 0;
  std::string by;
};

struct type_slot {
  std::vector<price_slot> offerings;
  capacity_slot capacity;
};

// The offerings of `it` the overlay selects; empty when it does not select the type at all.
std::vector<std::size_t> selected_offerings(const instance_types::instance_type& it,
                                            const requirements& type_reqs,
                                            const requirements& overlay_reqs, label_table& t) {
  std::vector<std::size_t> out;
  if (type_reqs.compatible(overlay_reqs, {}, t)) return out;
  for (std::size_t i = 0; i < it.offerings.size(); ++i)
    if (!overlay_reqs.intersects(offering_requirements(it.offerings[i], t), t)) out.push_back(i);
  return out;
}

}  // namespace

std::string validation_error(const overlay& o) {
  if (!o.unreadable.empty()) return o.unreadable;
  if (o.requirements.size() > max_requirements)
    return "spec.requirements: at most " + std::to_string(max_requirements) + " are allowed";
  for (std::size_t i = 0; i < o.requirements.size(); ++i)
    if (auto e = requirement_error(o.requirements[i], i); !e.empty()) return e;
  if (!o.price.empty() && !o.price_adjustment.empty())
    return "spec: cannot set both 'price' and 'priceAdjustment'";
  if (!o.price.empty())
    if (auto p = parse_price(o.price); !p) return p.error().message;
  if (!o.price_adjustment.empty())
    if (auto p = parse_price_adjustment(o.price_adjustment); !p) return p.error().message;
  for (const auto& [name, q] : o.capacity.items())
    if (std::find(restricted_resources.begin(), restricted_resources.end(), name) !=
        restricted_resources.end())
      return "spec.capacity: \"" + name +
             "\" is restricted (an overlay adds extended resources only)";
  return "";
}

const char* condition_reason(verdict_kind kind) {
  switch (kind) {
    case verdict_kind::applied:
      return "ValidationSucceeded";
    case verdict_kind::conflict:
      return "Conflict";
    case verdict_kind::invalid:
      return "RuntimeValidation";
  }
  return "RuntimeValidation";
}

overlaid_types apply_overlays(const std::vector<instance_types::instance_type>& types,
                              const std::vector<overlay>& overlays) {
  overlaid_types out;
  out.verdicts.resize(overlays.size());
  label_table t;
  std::vector<requirements> type_reqs;
  type_reqs.reserve(types.size());
  for (const auto& it : types) type_reqs.push_back(type_requirements(it, t));

  std::vector<std::size_t> order(overlays.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (overlays[a].weight != overlays[b].weight) return overlays[a].weight > overlays[b].weight;
    return overlays[a].name > overlays[b].name;
  });

  std::vector<type_slot> slots(types.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    slots[i].offerings.resize(types[i].offerings.size());

  for (std::size_t idx : order) {
    const overlay& o = overlays[idx];
    verdict& v = out.verdicts[idx];
    v.overlay = o.name;
    if (auto e = validation_error(o); !e.empty()) {
      v.kind = verdict_kind::invalid;
      v.message = e;
      continue;
    }
    compiled c{idx, {}, std::nullopt};
    for (const auto& r : o.requirements)
      if (auto req = scheduling::make_requirement(t, r)) c.reqs.add(*req, t);
    if (!o.price.empty()) c.price = parse_price(o.price).value();
    if (!o.price_adjustment.empty()) c.price = parse_price_adjustment(o.price_adjustment).value();

    // Validate against everything decided so far before changing anything, so a conflicting
    // overlay is applied nowhere.
    std::vector<std::pair<std::size_t, std::vector<std::size_t>>> selected;
    std::set<std::string> conflicts;
    for (std::size_t ti = 0; ti < types.size(); ++ti) {
      auto offs = selected_offerings(types[ti], type_reqs[ti], c.reqs, t);
      if (offs.empty()) continue;
      const auto& slot = slots[ti];
      if (c.price)
        for (auto oi : offs)
          if (slot.offerings[oi].touched && slot.offerings[oi].weight == o.weight)
            conflicts.insert(slot.offerings[oi].by);
      if (!o.capacity.empty() && slot.capacity.touched && slot.capacity.weight == o.weight)
        for (const auto& [name, q] : o.capacity.items())
          if (slot.capacity.last.has(name)) conflicts.insert(slot.capacity.by);
      selected.emplace_back(ti, std::move(offs));
    }
    if (!conflicts.empty()) {
      v.kind = verdict_kind::conflict;
      v.conflicts_with.assign(conflicts.begin(), conflicts.end());
      v.message = "conflict with another overlay:";
      for (const auto& n : v.conflicts_with) v.message += " " + n;
      continue;
    }
    for (auto& [ti, offs] : selected) {
      auto& slot = slots[ti];
      if (c.price)
        for (auto oi : offs) {
          auto& p = slot.offerings[oi];
          if (!p.touched) p.change = *c.price;
          p.touched = true;
          p.weight = o.weight;
          p.by = o.name;
        }
      if (!o.capacity.empty()) {
        auto& cap = slot.capacity;
        for (const auto& [name, q] : o.capacity.items())
          if (!cap.merged.has(name)) cap.merged.set(name, q);
        cap.touched = true;
        cap.last = o.capacity;
        cap.weight = o.weight;
        cap.by = o.name;
      }
    }
  }

  out.types = types;
  for (std::size_t ti = 0; ti < out.types.size(); ++ti) {
    auto& it = out.types[ti];
    for (std::size_t oi = 0; oi < it.offerings.size(); ++oi)
      if (slots[ti].offerings[oi].touched)
        it.offerings[oi].price =
            adjusted_price(it.offerings[oi].price, slots[ti].offerings[oi].change);
    for (const auto& [name, q] : slots[ti].capacity.merged.items()) it.capacity.set(name, q);
  }
  return out;
}

}  // namespace kp::overlays
