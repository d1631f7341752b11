// Family f1 in the simulation: right-sized VMs are never enumerated. A NodeClaim that may still
// be f1 carries the smallest f1 size holding its pods, recomputed in O(1) whenever a pod is
// tried on it; the plan lists that one size as an option beside the fixed types.
#include "core/scheduling/solver.hpp"

namespace kp::scheduling::detail {

namespace {

constexpr std::int64_t kMi = 1024 * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

// Milli-units (how resources count) to whole units, rounded up.
std::int64_t whole(std::int64_t milli) {
  return milli <= 0 ? 0 : (milli + 999) / 1000;
}

}  // namespace

void solver::build_right_sized() {
  const auto& offer = snap_.right_sized;
  std::vector<label_id> zones, regions;
  for (const auto& z : offer.zones) {
    if (!z.schedulable || z.free_cpus < 1 ||
        z.free_memory_bytes < instance_types::right_sized_memory_step_mib * kMi)
      continue;
    right_sized_zone rz{t_.intern(z.zone), t_.intern(z.region), z.free_cpus, z.free_memory_bytes};
    if (!zone_bit_.count(rz.zone) && zone_bit_.size() < 64)
      zone_bit_.emplace(rz.zone, static_cast<int>(zone_bit_.size()));
    if (auto b = zone_bit_.find(rz.zone); b != zone_bit_.end())
      rs_zone_mask_ |= std::uint64_t{1} << b->second;
    zones.push_back(rz.zone);
    regions.push_back(rz.region);
    // The largest size this host holds, for a quick rejection of pods no f1 type can take.
    instance_types::vm_size largest{
        std::min(z.free_cpus, instance_types::right_sized_max_vcpus),
        std::min(z.free_memory_bytes / kMi / instance_types::right_sized_memory_step_mib *
                     instance_types::right_sized_memory_step_mib,
                 instance_types::right_sized_max_memory_mib)};
    resources a;
    a.v[0] = instance_types::right_sized_allocatable_cpu_milli(largest.vcpus);
    a.v[1] = instance_types::right_sized_allocatable_memory_bytes(largest.memory_mib,
                                                                  offer.memory_overhead_percent) *
             1000;
    a.v[2] = instance_types::right_sized_pods(largest.memory_mib) * 1000;
    a.v[3] = 30 * kGi * 1000;
    for (std::size_t r = 0; r < 4; ++r) rs_max_alloc_.v[r] = std::max(rs_max_alloc_.v[r], a.v[r]);
    rs_zones_.push_back(rz);
  }
  if (rs_zones_.empty()) return;
  rs_family_ = t_.intern(instance_types::right_sized_family);
  rs_ct_ = t_.intern(L::capacity_type_on_demand);
  // What every f1 type offers, as vm_instance_type's requirements and its offerings say.
  rs_reqs_.add(make_in(k_family_, {rs_family_}), t_);
  rs_reqs_.add(make_in(k_arch_, {t_.intern("amd64")}), t_);
  rs_reqs_.add(make_in(k_os_, {t_.intern("linux")}), t_);
  rs_reqs_.add(make_in(k_region_, regions), t_);
  rs_reqs_.add(make_in(k_zone_, zones), t_);
  rs_reqs_.add(make_in(k_ct_, {rs_ct_}), t_);
}

std::optional<resources> solver::allocatable_by_name(std::string_view name) const {
  if (auto ty = type_by_name_.find(t_.find(name)); ty != type_by_name_.end())
    return types_[ty->second].alloc;
  auto size = instance_types::parse_right_sized_name(name);
  if (!size) return std::nullopt;
  return rt_.from(instance_types::right_sized_type(*size, snap_.right_sized.memory_overhead_percent)
                      .allocatable());
}

model::resource_list solver::capacity_by_name(std::string_view name) const {
  if (auto ty = type_by_name_.find(t_.find(name)); ty != type_by_name_.end())
    return types_[ty->second].src->capacity;
  if (auto size = instance_types::parse_right_sized_name(name))
    return instance_types::right_sized_type(*size, snap_.right_sized.memory_overhead_percent)
        .capacity;
  return {};
}

// Opt-in: only a pool whose requirements name f1 under `In` gets it. Pools that leave the family
// open keep the fixed catalogue; f1 would undercut every fixed type, so an upgrade would
// otherwise re-plan and consolidate their nodes into new shapes.
bool solver::right_sized_opt_in(const model::nodepool& np) {
  if (rs_zones_.empty()) return false;
  for (const auto& r : np.template_.requirements) {
    if (normalize_key(r.key) != k_family_ || r.op != selector_operator::in) continue;
    if (std::find(r.values.begin(), r.values.end(), instance_types::right_sized_family) !=
        r.values.end())
      return true;
  }
  return false;
}

void solver::offer_right_sized(tmpl& tp, const model::nodepool& np) {
  tp.right_sized = right_sized_opt_in(np) && right_sized_allowed(tp.reqs);
  if (!tp.right_sized) return;
  tp.right_sized_room = rs_max_alloc_;
  if (tp.kubelet_max_pods > 0)
    tp.right_sized_room.v[2] = std::min(tp.right_sized_room.v[2], tp.kubelet_max_pods * 1000);
  tp.right_sized_room -= tp.daemon;
}

bool solver::right_sized_allowed(const requirements& reqs) const {
  for (const auto& r : rs_reqs_.items()) {
    const requirement* q = reqs.get(r.key);
    if (q && !key_intersects(r, *q, t_)) return false;
  }
  // Names are made per NodeClaim: a list of allowed names admits only those, and a NotIn that
  // names f1 types is taken to mean the family.
  if (const requirement* q = reqs.get(k_type_)) {
    if (!q->complement) return false;
    for (label_id v : q->values)
      if (instance_types::is_right_sized_name(t_.str(v))) return false;
  }
  return true;
}

resources solver::right_sized_capacity(const instance_types::vm_size& size) const {
  auto mem = size.memory_mib * kMi;
  double pct = snap_.right_sized.memory_overhead_percent;
  if (pct > 0) mem -= static_cast<std::int64_t>(std::ceil(static_cast<double>(mem) * pct));
  resources c;
  c.v[0] = size.vcpus * 1000;
  c.v[1] = mem * 1000;
  c.v[2] = instance_types::right_sized_pods(size.memory_mib) * 1000;
  c.v[3] = 30 * kGi * 1000;
  return c;
}

resources solver::right_sized_room(const tmpl& tp, const instance_types::vm_size& size) const {
  resources r;
  r.v[0] = instance_types::right_sized_allocatable_cpu_milli(size.vcpus);
  r.v[1] = instance_types::right_sized_allocatable_memory_bytes(
               size.memory_mib, snap_.right_sized.memory_overhead_percent) *
           1000;
  std::int64_t pods = instance_types::right_sized_pods(size.memory_mib);
  if (tp.kubelet_max_pods > 0) pods = std::min(pods, tp.kubelet_max_pods);
  r.v[2] = pods * 1000;
  r.v[3] = 30 * kGi * 1000;
  r -= tp.daemon;
  return r;
}

std::optional<instance_types::vm_size> solver::smallest_size(const tmpl& tp,
                                                             const resources& total) const {
  resources need = total + tp.daemon;
  for (std::size_t r = 4; r < nres_; ++r)
    if (need.v[r] > 0) return std::nullopt;  // f1 types have no extended resources
  if (tp.kubelet_max_pods > 0 && whole(need.v[2]) > tp.kubelet_max_pods) return std::nullopt;
  return instance_types::smallest_right_size(
      {need.v[0], whole(need.v[1]), whole(need.v[2]), whole(need.v[3])},
      snap_.right_sized.memory_overhead_percent);
}

std::optional<instance_types::vm_size> solver::right_size(const slot& s, const tmpl& tp,
                                                          const resources& total,
                                                          const requirements& reqs,
                                                          failure& f) const {
  auto size = smallest_size(tp, total);
  if (!size) return std::nullopt;
  const requirement* z = reqs.get(k_zone_);
  const requirement* g = reqs.get(k_region_);
  const requirement* c = reqs.get(k_ct_);
  if (c && !c->has(rs_ct_, t_)) return std::nullopt;
  bool room = false;
  for (const auto& h : rs_zones_) {
    if ((z && !z->has(h.zone, t_)) || (g && !g->has(h.region, t_))) continue;
    if (h.free_cpus >= size->vcpus && h.free_memory_bytes >= size->memory_mib * kMi) {
      room = true;
      break;
    }
  }
  if (!room) return std::nullopt;
  if (tp.limited) {
    resources extra = right_sized_capacity(*size);
    for (std::size_t r = 0; r < max_resources; ++r)
      extra.v[r] = std::max<std::int64_t>(0, extra.v[r] - s.reserved.v[r]);
    if (!extra.fits(tp.limit_remaining, nres_)) {
      f = {why::limits, no_label, s.tmpl};
      return std::nullopt;
    }
  }
  return size;
}

const right_sized_costs& solver::right_sized_cost(pod_group& g, int ti) {
  auto t = static_cast<std::size_t>(ti);
  if (g.rs_cost.size() <= t) g.rs_cost.resize(tmpls_.size(), -1);
  if (g.rs_cost[t] >= 0) return rs_costs_[static_cast<std::size_t>(g.rs_cost[t])];
  // Only the requests and the template's daemon overhead and pod limit matter: groups of one
  // shape share the table (thousands of groups, a few dozen shapes).
  auto [it, fresh] = rs_cost_index_.try_emplace({g.req.v, ti}, static_cast<int>(rs_costs_.size()));
  g.rs_cost[t] = it->second;
  if (!fresh) return rs_costs_[static_cast<std::size_t>(it->second)];
  right_sized_costs& c = rs_costs_.emplace_back();
  const tmpl& tp = tmpls_[t];
  c.per_pod.push_back(std::numeric_limits<float>::max());  // k = 0
  resources total;
  for (std::int64_t k = 1; k <= 110; ++k) {
    total += g.req;
    // Limits and the claim's zones are the caller's business here: any host with room will do.
    auto size = smallest_size(tp, total);
    if (!size || !std::any_of(rs_zones_.begin(), rs_zones_.end(), [&](const right_sized_zone& h) {
          return h.free_cpus >= size->vcpus && h.free_memory_bytes >= size->memory_mib * kMi;
        }))
      break;
    float per_pod =
        static_cast<float>(instance_types::right_sized_price(*size) / static_cast<double>(k));
    c.per_pod.push_back(per_pod);
    c.best = std::min(c.best, per_pod);
  }
  c.suffix_min.assign(c.per_pod.size() + 1, std::numeric_limits<float>::max());
  for (std::size_t k = c.per_pod.size(); k-- > 1;)
    c.suffix_min[k] = std::min(c.per_pod[k], c.suffix_min[k + 1]);
  return c;
}

// The best per-pod price of an f1 size that still holds `total`: sizes for at least as many
// pods of g's shape as `total` amounts to in its largest dimension.
double solver::right_sized_reachable(pod_group& g, int ti, const resources& total) {
  const right_sized_costs& c = right_sized_cost(g, ti);
  std::int64_t k = 1;
  for (std::size_t r = 0; r < nres_; ++r)
    if (g.req.v[r] > 0) k = std::max(k, (total.v[r] + g.req.v[r] - 1) / g.req.v[r]);
  if (k >= static_cast<std::int64_t>(c.per_pod.size())) return std::numeric_limits<double>::max();
  return static_cast<double>(c.suffix_min[static_cast<std::size_t>(k)]);
}

void solver::reserve_limits(tmpl& tp, int ti, slot& s, const resources& capacity) {
  if (!tp.limited) return;
  for (std::size_t r = 0; r < max_resources; ++r) {
    std::int64_t extra = capacity.v[r] - s.reserved.v[r];
    if (extra <= 0) continue;
    s.reserved.v[r] = capacity.v[r];
    if (tp.limit_remaining.v[r] != kUnlimited) tp.limit_remaining.v[r] -= extra;
  }
  // Cached type lists change only once the limits exclude some type.
  if (!tp.max_capacity.fits(tp.limit_remaining, nres_))
    ++limits_epoch_[static_cast<std::size_t>(ti)];
}

void solver::add_right_sized_option(const slot& s, const tmpl& tp, planned_nodeclaim& nc,
                                    std::vector<std::pair<double, std::uint16_t>>& priced,
                                    std::vector<label_id>& cts) {
  (void)tp;
  if (!s.right_sized) return;
  // Built once per size and solve: many NodeClaims share a size.
  auto [built, fresh] = rs_types_.try_emplace({s.size.vcpus, s.size.memory_mib});
  if (fresh) {
    std::vector<instance_types::instance_type> one{
        instance_types::right_sized_type(s.size, snap_.right_sized.memory_overhead_percent)};
    instance_types::build_offerings(one, snap_.right_sized.zones);
    built->second = std::move(one.front());
  }
  const instance_types::instance_type& type = built->second;
  const requirement* z = s.reqs.get(k_zone_);
  const requirement* c = s.reqs.get(k_ct_);
  double best = std::numeric_limits<double>::max();
  for (const auto& o : type.offerings) {
    if (!o.available || (z && !z->has(t_.find(o.zone), t_)) ||
        (c && !c->has(t_.find(o.capacity_type), t_)))
      continue;
    best = std::min(best, o.price);
  }
  if (best == std::numeric_limits<double>::max()) return;  // cannot happen: checked when packing
  // Its place in price order; on equal prices by name, as the listed types are ordered.
  std::size_t rank = 0;
  while (rank < priced.size() &&
         (priced[rank].first < best ||
          (priced[rank].first == best && types_[priced[rank].second].src->name < type.name)))
    ++rank;
  if (rank >= opts_.max_instance_types) return;
  if (priced.size() + 1 > opts_.max_instance_types) priced.resize(opts_.max_instance_types - 1);
  if (std::find(cts.begin(), cts.end(), rs_ct_) == cts.end()) cts.push_back(rs_ct_);
  nc.right_sized = type;
  nc.right_sized_rank = rank;
}

}  // namespace kp::scheduling::detail
