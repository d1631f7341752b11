#include "core/scheduling/reservation_pinning.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/model/labels.hpp"

namespace kp::scheduling {
namespace {

namespace L = model::labels;
using model::node_selector_requirement;
using model::selector_operator;

void set_requirement(std::vector<node_selector_requirement>& requirements, std::string_view key,
                     std::vector<std::string> values) {
  std::erase_if(requirements, [&](const node_selector_requirement& r) { return r.key == key; });
  requirements.push_back(
      {std::string(key), selector_operator::in, std::move(values), std::nullopt});
}

bool reserved(const instance_types::instance_type& t) {
  return t.capacity_type == L::capacity_type_reserved;
}

// Takes `value` out of an `In` requirement on `key` that still has other values.
void drop_value(std::vector<node_selector_requirement>& requirements, std::string_view key,
                const std::string& value) {
  for (auto& r : requirements)
    if (r.key == key && r.op == selector_operator::in && r.values.size() > 1)
      std::erase(r.values, value);
}

// The price of a NodeClaim's cheapest option, as the plan reports it.
double cheapest_price(const planned_nodeclaim& nc, const snapshot& snap) {
  double best = std::numeric_limits<double>::max();
  for (const auto* t : instance_type_options(nc, snap))
    for (const auto& o : t->offerings)
      if (o.available && model::allows_value(nc.requirements, L::zone, o.zone) &&
          model::allows_value(nc.requirements, L::capacity_type, o.capacity_type))
        best = std::min(best, o.price);
  return best == std::numeric_limits<double>::max() ? nc.price : best;
}

}  // namespace

void pin_reservations(plan& p, const snapshot& snap) {
  const auto& types = snap.instance_types;
  // Capacity left per reservation id: the offerings carry it with the existing holds counted.
  std::map<std::string, std::int64_t> left;
  for (const auto& t : types)
    if (reserved(t))
      for (const auto& o : t.offerings)
        if (!o.reservation_id.empty()) left.try_emplace(o.reservation_id, o.reservation_capacity);

  std::vector<planned_nodeclaim> kept;
  kept.reserve(p.nodeclaims.size());
  for (auto& nc : p.nodeclaims) {
    bool had_reserved = false;
    bool pinned = false;
    if (model::allows_value(nc.requirements, L::capacity_type,
                            std::string(L::capacity_type_reserved))) {
      for (std::uint16_t index : nc.instance_types) {
        const auto& t = types[index];
        if (!reserved(t)) continue;
        had_reserved = true;
        std::string id;
        std::vector<std::string> zones;
        double price = 0;
        for (const auto& o : t.offerings) {
          if (!o.available || o.reservation_id.empty() || left[o.reservation_id] <= 0) continue;
          if (!model::allows_value(nc.requirements, L::zone, o.zone)) continue;
          if (!id.empty() && o.reservation_id != id) continue;  // one reservation per NodeClaim
          if (id.empty()) price = o.price;
          id = o.reservation_id;
          price = std::min(price, o.price);
          if (std::find(zones.begin(), zones.end(), o.zone) == zones.end()) zones.push_back(o.zone);
        }
        if (id.empty()) continue;
        --left[id];
        nc.instance_types = {index};
        nc.instance_type_min_values.reset();
        nc.right_sized.reset();
        nc.right_sized_rank = 0;
        nc.price = price;
        std::sort(zones.begin(), zones.end());
        set_requirement(nc.requirements, L::capacity_type,
                        {std::string(L::capacity_type_reserved)});
        set_requirement(nc.requirements, L::reservation_id, {id});
        set_requirement(nc.requirements, L::zone, std::move(zones));
        pinned = true;
        break;
      }
    } else {
      had_reserved = std::any_of(nc.instance_types.begin(), nc.instance_types.end(),
                                 [&](std::uint16_t i) { return reserved(types[i]); });
    }
    if (!pinned && had_reserved) {
      std::erase_if(nc.instance_types, [&](std::uint16_t i) { return reserved(types[i]); });
      if (nc.instance_types.empty() && !nc.right_sized) {
        refuse_pods_of(p, nc,
                       "the reserved capacity of its instance types is used up (every "
                       "reservation's count is held by NodeClaims); it is planned again when a "
                       "reservation is released");
        continue;
      }
      drop_value(nc.requirements, L::capacity_type, std::string(L::capacity_type_reserved));
      nc.price = cheapest_price(nc, snap);
    }
    kept.push_back(std::move(nc));
  }
  p.nodeclaims = std::move(kept);
}

}  // namespace kp::scheduling
