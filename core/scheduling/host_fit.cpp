#include "core/scheduling/host_fit.hpp"

#include <algorithm>

#include "core/instance_types/offering_override.hpp"
#include "core/model/labels.hpp"

namespace kp::scheduling {
namespace {

namespace L = model::labels;
using model::node_selector_requirement;
using model::selector_operator;

// Hosts where an allowed, available offering of `t` holds `requests`, and hosts where it is
// offered at all.
struct fit {
  std::vector<std::string> fitting, offered;
};

fit fit_of(const instance_types::instance_type& t, const planned_nodeclaim& nc) {
  fit out;
  for (const auto& o : t.offerings) {
    if (!o.available || !model::allows_value(nc.requirements, L::zone, o.zone) ||
        !model::allows_value(nc.requirements, L::capacity_type, o.capacity_type))
      continue;
    out.offered.push_back(o.zone);
    if (nc.requests.fits_in(instance_types::offering_allocatable(t, o)))
      out.fitting.push_back(o.zone);
  }
  for (auto* v : {&out.fitting, &out.offered}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return out;
}

}  // namespace

void keep_to_fitting_hosts(plan& p, const snapshot& snap) {
  const auto& types = snap.instance_types;
  if (std::none_of(types.begin(), types.end(), instance_types::has_overrides)) return;
  std::vector<planned_nodeclaim> kept;
  kept.reserve(p.nodeclaims.size());
  for (auto& nc : p.nodeclaims) {
    bool overridden = std::any_of(nc.instance_types.begin(), nc.instance_types.end(),
                                  [&](std::uint16_t i) { return has_overrides(types[i]); });
    if (!overridden) {
      kept.push_back(std::move(nc));
      continue;
    }
    std::vector<std::uint16_t> options;
    std::vector<std::string> zones;
    for (std::uint16_t i : nc.instance_types) {
      auto f = fit_of(types[i], nc);
      if (f.fitting.empty()) continue;
      if (options.empty()) {
        zones = f.fitting;
      } else {
        // Kept only where it fits on every chosen host it is offered on.
        bool everywhere = std::all_of(zones.begin(), zones.end(), [&](const std::string& z) {
          return !std::binary_search(f.offered.begin(), f.offered.end(), z) ||
                 std::binary_search(f.fitting.begin(), f.fitting.end(), z);
        });
        if (!everywhere) continue;
      }
      options.push_back(i);
    }
    if (options.empty() && !nc.right_sized) {
      refuse_pods_of(p, nc,
                     "no host's offering of its instance types has the allocatable for its "
                     "NodeClaim once the hosts' capacity and overhead overrides are counted");
      continue;
    }
    if (!options.empty() && !nc.right_sized) {
      std::erase_if(nc.requirements,
                    [](const node_selector_requirement& r) { return r.key == L::zone; });
      nc.requirements.push_back(
          {std::string(L::zone), selector_operator::in, std::move(zones), std::nullopt});
    }
    nc.instance_types = std::move(options);
    if (nc.instance_type_min_values &&
        static_cast<std::size_t>(*nc.instance_type_min_values) > nc.instance_types.size())
      nc.instance_type_min_values = static_cast<int>(nc.instance_types.size());
    kept.push_back(std::move(nc));
  }
  p.nodeclaims = std::move(kept);
}

}  // namespace kp::scheduling
