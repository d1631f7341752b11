#include "core/instance_types/reservation.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/model/labels.hpp"

namespace kp::instance_types {
namespace {

namespace L = model::labels;

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A Kubernetes label value: at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends.
bool label_value(const std::string& v) {
  if (v.empty() || v.size() > 63 || !alnum(v.front()) || !alnum(v.back())) return false;
  return std::all_of(v.begin(), v.end(),
                     [](char c) { return alnum(c) || c == '.' || c == '-' || c == '_'; });
}

error invalid(const std::string& message) {
  return make_error("invalid_instance_types", message);
}

}  // namespace

result<std::vector<reservation>> validate_reservations(const std::string& type,
                                                       const std::string& capacity_type,
                                                       std::vector<reservation> items) {
  const std::string where = "instance type " + type;
  const bool reserved = capacity_type == L::capacity_type_reserved;
  if (!reserved && !items.empty())
    return invalid(where + " reservations need capacitytype \"reserved\", not \"" + capacity_type +
                   "\"");
  if (reserved && items.empty())
    return invalid(where +
                   " capacitytype \"reserved\" needs reservations (a count per region "
                   "or host)");
  std::set<std::string> ids;
  std::set<std::pair<std::string, std::string>> places;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto& r = items[i];
    const std::string at = where + " reservations[" + std::to_string(i) + "]";
    if (r.count <= 0)
      return invalid(at + ".count must be a positive number of VMs, not " +
                     std::to_string(r.count));
    if (r.id.empty()) {
      r.id = type;
      if (!r.region.empty()) r.id += "-" + r.region;
      if (!r.host.empty()) r.id += "-" + r.host;
    }
    if (!label_value(r.id))
      return invalid(at + ".id \"" + r.id +
                     "\" is not a label value (at most 63 letters, digits, '.', '-' or '_')");
    if (!ids.insert(r.id).second) return invalid(at + ".id \"" + r.id + "\" is listed twice");
    if (!places.insert({r.region, r.host}).second)
      return invalid(at + " repeats region \"" + r.region + "\" host \"" + r.host + "\"");
  }
  return items;
}

const reservation* reservation_for(const instance_type& type, const std::string& region,
                                   const std::string& host) {
  const reservation* best = nullptr;
  int best_rank = -1;
  for (const auto& r : type.reservations) {
    if (!r.region.empty() && r.region != region) continue;
    if (!r.host.empty() && r.host != host) continue;
    int rank = (r.host.empty() ? 0 : 2) + (r.region.empty() ? 0 : 1);
    if (rank > best_rank) {
      best = &r;
      best_rank = rank;
    }
  }
  return best;
}

std::string reservation_of(const model::nodeclaim& claim) {
  if (auto it = claim.labels.find(std::string(L::reservation_id)); it != claim.labels.end())
    return it->second;
  for (const auto& r : claim.requirements)
    if (r.key == L::reservation_id && r.op == model::selector_operator::in && r.values.size() == 1)
      return r.values.front();
  return {};
}

reservation_holds reservations_held(const std::vector<model::shared_nodeclaim>& claims) {
  reservation_holds out;
  for (const auto& c : claims)
    if (auto id = reservation_of(*c); !id.empty()) ++out[id];
  return out;
}

void apply_reservations(std::vector<instance_type>& types, const reservation_holds& held) {
  for (auto& t : types) {
    if (t.capacity_type != L::capacity_type_reserved) continue;
    for (auto& o : t.offerings) {
      const auto* r = reservation_for(t, o.region, o.zone);
      if (r == nullptr) {
        o.available = false;
        o.reservation_id.clear();
        o.reservation_capacity = 0;
        continue;
      }
      auto it = held.find(r->id);
      std::int64_t used = it == held.end() ? 0 : it->second;
      o.reservation_id = r->id;
      o.reservation_capacity = std::max<std::int64_t>(0, r->count - used);
      if (o.reservation_capacity == 0) o.available = false;
    }
  }
}

void withhold_reserved_offerings(std::vector<instance_type>& types) {
  for (auto& t : types)
    if (t.capacity_type == L::capacity_type_reserved)
      for (auto& o : t.offerings) o.available = false;
}

}  // namespace kp::instance_types
