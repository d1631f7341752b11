// Placing one pod: candidate nodes, topology, instance-type filtering, commit.
#include "core/scheduling/solver.hpp"

namespace kp::scheduling::detail {

// ---------------------------------------------------------------------------------------------
// Solving.

namespace {

bool ports_conflict(const std::vector<model::host_port>& used,
                    const std::vector<model::host_port>& want) {
  for (const auto& w : want)
    for (const auto& u : used) {
      if (u.port != w.port || u.protocol != w.protocol) continue;
      bool any_u = u.host_ip.empty() || u.host_ip == "0.0.0.0";
      bool any_w = w.host_ip.empty() || w.host_ip == "0.0.0.0";
      if (any_u || any_w || u.host_ip == w.host_ip) return true;
    }
  return false;
}

// Karpenter's strict taint check: every taint, PreferNoSchedule included, must be tolerated,
// until the last relaxation step tolerates the PreferNoSchedule ones.
const model::taint* untolerated(const std::vector<model::toleration>& tols,
                                const std::vector<model::taint>& taints, bool tolerate_prefer) {
  for (const auto& t : taints) {
    if (tolerate_prefer && t.effect == model::taint_effects::prefer_no_schedule) continue;
    if (!model::tolerates_taint(tols, t)) return &t;
  }
  return nullptr;
}

}  // namespace

void solver::domains_of(const slot& s, const requirements& reqs, label_id key,
                        std::vector<label_id>& out) const {
  out.clear();
  const requirement* r = reqs.get(key);
  if (s.kind != slot_kind::fresh) {
    // A real (or in-flight) node is in the domain its label names, or in none.
    if (r && r->is_single()) out.push_back(r->values[0]);
    return;
  }
  if (r && !r->complement) {
    out = r->values;
  } else {
    auto it = universe_.find(key);
    if (it != universe_.end())
      for (label_id d : it->second)
        if (!r || r->has(d, t_)) out.push_back(d);
  }
  if (s.kind == slot_kind::fresh && key == k_zone_ && zone_bit_.size() < 64) {
    // Only zones where one of its candidate instance types has an available offering.
    std::uint64_t mask = lists_[static_cast<std::size_t>(s.list)].zone_mask;
    if (s.right_sized) mask |= rs_zone_mask_;
    std::erase_if(out, [&](label_id z) {
      auto it = zone_bit_.find(z);
      return it == zone_bit_.end() || !(mask & (std::uint64_t{1} << it->second));
    });
  }
}

bool solver::topology_fits(std::size_t si, slot& s, pod_group& g, variant& v, requirements*& reqs,
                           std::optional<requirements>& owned, failure& f) {
  // Only NodeClaims of this solve can still choose a domain; a real node cannot move.
  auto narrow = [&](label_id key, std::vector<label_id> values) {
    if (s.kind != slot_kind::fresh) return false;
    if (!owned) {
      owned = *reqs;
      reqs = &*owned;
    }
    owned->add(make_in(key, std::move(values)), t_);
    return true;
  };
  auto self_selects = [&](int gi) {
    return std::find(g.selected_by.begin(), g.selected_by.end(), gi) != g.selected_by.end();
  };
  for (int gi : v.topo) {
    topology_group& tg = topo_[static_cast<std::size_t>(gi)];
    bool self = self_selects(gi);
    if (tg.hostname) {
      std::int32_t c = tg.host_count(si);
      switch (tg.kind) {
        case topology_kind::spread:
          // A new node can always be made, so the global minimum for hostname is 0.
          if (c + (self ? 1 : 0) > tg.max_skew) {
            f = {why::spread, tg.key, gi};
            f.hard = true;  // counts only grow, and a new node is assumed possible
            return false;
          }
          break;
        case topology_kind::affinity:
          if (c == 0 && !(tg.total == 0 && self)) return f = {why::affinity, tg.key, gi}, false;
          break;
        case topology_kind::anti_affinity:
          if (c > 0) return f = {why::anti_affinity, tg.key, gi}, false;
          break;
      }
      continue;
    }
    domains_of(s, *reqs, tg.key, scratch_domains_);
    auto& doms = scratch_domains_;
    if (doms.empty()) {
      f = {tg.kind == topology_kind::spread     ? why::spread
           : tg.kind == topology_kind::affinity ? why::affinity
                                                : why::anti_affinity,
           tg.key, gi};
      return false;
    }
    switch (tg.kind) {
      case topology_kind::spread: {
        std::int32_t min = tg.global_min();
        label_id best = no_label;
        std::int32_t best_count = std::numeric_limits<std::int32_t>::max();
        for (label_id d : doms) {
          if (!std::binary_search(tg.eligible.begin(), tg.eligible.end(), d)) continue;
          std::int32_t c = tg.count(d);
          if (c + (self ? 1 : 0) - min > tg.max_skew) continue;
          if (c < best_count) best = d, best_count = c;
        }
        if (best == no_label) {
          f = {why::spread, tg.key, gi};
          if (doms.size() == 1) f.domain = doms[0];
          return false;
        }
        if ((doms.size() > 1 || doms[0] != best) && !narrow(tg.key, {best}))
          return f = {why::spread, tg.key, gi}, false;
        break;
      }
      case topology_kind::affinity: {
        std::vector<label_id>& ok = scratch_domains2_;
        ok.clear();
        for (label_id d : doms)
          if (tg.count(d) > 0) ok.push_back(d);
        if (ok.empty()) {
          if (!(tg.total == 0 && self)) {
            f = {why::affinity, tg.key, gi};
            if (doms.size() == 1) f.domain = doms[0];
            return false;
          }
          ok.push_back(doms[0]);  // bootstrap: the first pod of a self-affine set picks one
        }
        if ((ok.size() != doms.size() || doms.size() > 1) && !narrow(tg.key, {ok[0]}))
          return f = {why::affinity, tg.key, gi}, false;
        break;
      }
      case topology_kind::anti_affinity: {
        std::vector<label_id>& ok = scratch_domains2_;
        ok.clear();
        for (label_id d : doms)
          if (tg.count(d) == 0) ok.push_back(d);
        if (ok.empty()) return f = {why::anti_affinity, tg.key, gi}, false;
        // Pin one empty domain: left open, the pod would count against all of them.
        if (doms.size() > 1 && !narrow(tg.key, {ok[0]}))
          return f = {why::anti_affinity, tg.key, gi}, false;
        break;
      }
    }
  }
  // Inverse anti-affinity: stay out of the domains of pods whose anti-affinity selects us.
  for (int gi : g.inverse) {
    topology_group& tg = topo_[static_cast<std::size_t>(gi)];
    if (tg.hostname) {
      if (tg.owner_on_host(si)) return f = {why::anti_affinity, tg.key, gi}, false;
      continue;
    }
    if (tg.owner_domains.empty()) continue;
    domains_of(s, *reqs, tg.key, scratch_domains_);
    std::vector<label_id>& ok = scratch_domains2_;
    ok.clear();
    for (label_id d : scratch_domains_)
      if (!tg.owner_in(d)) ok.push_back(d);
    if (ok.empty()) return f = {why::anti_affinity, tg.key, gi}, false;
    if (ok.size() != scratch_domains_.size() && !narrow(tg.key, ok))
      return f = {why::anti_affinity, tg.key, gi}, false;
  }
  return true;
}

int solver::list_for(int ti, const requirements& reqs, bool ignore_limits) {
  tmpl& tp = tmpls_[static_cast<std::size_t>(ti)];
  std::string key = std::to_string(ti) + "#" +
                    (ignore_limits ? std::string("u")
                                   : std::to_string(limits_epoch_[static_cast<std::size_t>(ti)]));
  for (const auto& r : reqs.items())
    if (std::binary_search(type_keys_.begin(), type_keys_.end(), r.key)) {
      key += '|';
      key += describe(r, t_);
    }
  auto it = list_cache_.find(key);
  if (it != list_cache_.end()) return it->second;
  type_list l;
  l.tmpl = ti;
  for (std::size_t r = 0; r < max_resources; ++r)
    l.max_room.v[r] = std::numeric_limits<std::int64_t>::min();
  const requirement* z = reqs.get(k_zone_);
  const requirement* c = reqs.get(k_ct_);
  for (std::uint16_t t : tp.types) {
    if (!ignore_limits && tp.limited && !types_[t].capacity.fits(tp.limit_remaining, nres_))
      continue;
    if (!type_compatible(types_[t], reqs)) continue;
    l.types.push_back(t);
    for (std::size_t r = 0; r < max_resources; ++r) {
      l.max_room.v[r] = std::max(l.max_room.v[r], tp.room[t].v[r]);
      l.max_capacity.v[r] = std::max(l.max_capacity.v[r], types_[t].capacity.v[r]);
    }
    for (const auto& o : types_[t].offerings) {
      if (!o.available || (z && !z->has(o.zone, t_)) || (c && !c->has(o.capacity_type, t_)))
        continue;
      auto b = zone_bit_.find(o.zone);
      if (b != zone_bit_.end()) l.zone_mask |= std::uint64_t{1} << b->second;
    }
  }
  l.suffix_min_room.resize(l.types.size());
  for (std::size_t k = l.types.size(); k-- > 0;) {
    const itype& ty = types_[l.types[k]];
    resources m = tp.room[l.types[k]];
    if (k + 1 < l.types.size())
      for (std::size_t r = 0; r < max_resources; ++r)
        m.v[r] = std::min(m.v[r], l.suffix_min_room[k + 1].v[r]);
    l.suffix_min_room[k] = m;
    l.common_zone_mask &= ty.zone_mask;
    if (!ty.uniform || (l.uniform_ct != no_label && ty.uniform_ct != l.uniform_ct))
      l.uniform = false;
    l.uniform_ct = ty.uniform_ct;
  }
  int id = static_cast<int>(lists_.size());
  lists_.push_back(std::move(l));
  list_cache_.emplace(std::move(key), id);
  return id;
}

std::uint32_t solver::first_fit(const type_list& l, std::uint32_t from, const tmpl& tp,
                                const resources& total) const {
  auto n = static_cast<std::uint32_t>(l.types.size());
  while (from < n && !total.fits(tp.room[l.types[from]], nres_)) ++from;
  return from;
}

bool solver::hostname_blocked(const topology_group& tg, std::size_t si) const {
  std::int32_t c = tg.host_count(si);
  return tg.kind == topology_kind::anti_affinity ? c > 0 : c + 1 > tg.max_skew;
}

void solver::compute_per_pod_cost(pod_group& g) {
  auto [it, fresh] = cost_table_index_.emplace(g.req.v, static_cast<int>(cost_tables_.size()));
  g.cost_table = it->second;
  if (!fresh) return;
  cost_table t;
  t.per_pod.assign(types_.size(), std::numeric_limits<float>::max());
  t.best = std::numeric_limits<float>::max();
  std::size_t used[max_resources];
  std::size_t n = 0;
  for (std::size_t r = 0; r < nres_; ++r)
    if (g.req.v[r] > 0) used[n++] = r;
  for (std::size_t ti = 0; ti < types_.size(); ++ti) {
    std::int64_t fit = std::numeric_limits<std::int64_t>::max();
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t r = used[k];
      fit = std::min(fit, std::max<std::int64_t>(0, types_[ti].alloc.v[r]) / g.req.v[r]);
    }
    if (fit <= 0 || types_[ti].price == std::numeric_limits<double>::max()) continue;
    t.per_pod[ti] = static_cast<float>(types_[ti].price / static_cast<double>(fit));
    t.best = std::min(t.best, t.per_pod[ti]);
  }
  cost_tables_.push_back(std::move(t));
}

bool solver::growth_pays(const slot& s, const tmpl& tp, pod_group& g, const type_list& l,
                         std::uint32_t from, const std::optional<instance_types::vm_size>& size,
                         const resources& total, double cheapest, double before_price) {
  // Cost-aware growth: a NodeClaim that already holds pods grows into a pricier type only if
  // the extra price, spread over the pods like this one that the bigger type adds room for,
  // is close to the cheapest per-pod price of such pods (or the new type is itself efficient
  // for them). Otherwise a node filled to a small type's edge jumps to a large type the
  // remaining pods may not fill (e.g. its 110-pod limit binds first), which Karpenter would
  // only repair later by consolidation.
  if (g.cost_table < 0) compute_per_pod_cost(g);
  const cost_table& costs = cost_tables_[static_cast<std::size_t>(g.cost_table)];
  const bool f1_cheapest =
      size && (from >= l.types.size() || instance_types::right_sized_price(*size) <= cheapest);
  const resources room = f1_cheapest ? right_sized_room(tp, *size) : tp.room[l.types[from]];
  std::int64_t gained = std::numeric_limits<std::int64_t>::max();
  for (std::size_t r = 0; r < max_resources; ++r)
    if (g.req.v[r] > 0)
      gained = std::min(gained, std::max<std::int64_t>(0, room.v[r] - s.total.v[r]) / g.req.v[r]);
  double marginal =
      (cheapest - before_price) / static_cast<double>(std::max<std::int64_t>(1, gained));
  // f1 sizes grow in steps of one vCPU, so most steps are cheap; the step to judge is the one
  // where the pod limit binds before the new vCPU fills. The f1 bounds are tighter because its
  // best size is always on offer.
  double best = static_cast<double>(costs.best);
  double marginal_slack = 1.05, reachable_slack = 1.10;
  if (s.right_sized) {
    best = static_cast<double>(right_sized_cost(g, s.tmpl).best);
    reachable_slack = 1.02;
  }
  if (marginal <= best * marginal_slack) return true;
  // Small types lose whole pods to rounding, so a step is also fine when a type that can
  // still hold the grown claim holds such pods within 10% of the best per-pod price: the
  // claim keeps every such type and the cheapest that fits all its pods is chosen at the
  // end, so growing towards an efficient type is the cheap path (one claim of 60 small pods
  // instead of twenty claims of three).
  double reachable = std::numeric_limits<double>::max();
  for (std::uint32_t k = from; k < l.types.size(); ++k) {
    std::uint16_t ti = l.types[k];
    if (total.fits(tp.room[ti], nres_))
      reachable = std::min(reachable, static_cast<double>(costs.per_pod[ti]));
  }
  if (size) reachable = std::min(reachable, right_sized_reachable(g, s.tmpl, total));
  return reachable <= best * reachable_slack;
}

bool solver::filter_types(const slot& s, const tmpl& tp, pod_group& g, const requirements& reqs,
                          bool reqs_changed, const resources& total, tentative& out, failure& f) {
  int list = reqs_changed ? list_for(s.tmpl, reqs) : s.list;
  const type_list& l = lists_[static_cast<std::size_t>(list)];
  const auto n = static_cast<std::uint32_t>(l.types.size());
  std::uint32_t from = n;
  if (total.fits(l.max_room, nres_))
    from = first_fit(l, list == s.list ? s.fit_from : 0, tp, total);
  // Family f1: the smallest size that holds the grown claim, if a host has room for it.
  std::optional<instance_types::vm_size> size;
  failure f1_failure{why::no_type};
  if (s.right_sized && (!reqs_changed || right_sized_allowed(reqs)))
    size = right_size(s, tp, total, reqs, f1_failure);
  if (from == n && !size) {
    f = f1_failure.code == why::limits ? f1_failure : failure{why::no_type};
    return false;
  }
  constexpr double none = std::numeric_limits<double>::max();
  double cheapest = from < n ? types_[l.types[from]].price : none;
  if (size) cheapest = std::min(cheapest, instance_types::right_sized_price(*size));
  const type_list& before_list = lists_[static_cast<std::size_t>(s.list)];
  double before_price =
      s.fit_from < before_list.types.size() ? types_[before_list.types[s.fit_from]].price : none;
  if (s.right_sized && !s.pods.empty())
    before_price = std::min(before_price, instance_types::right_sized_price(s.size));
  if (!s.pods.empty() && cheapest > before_price * (1 + 1e-9) &&
      !growth_pays(s, tp, g, l, from, size, total, cheapest, before_price))
    return f = {why::costlier}, false;
  // minValues on the NodeClaim's requirements, over the types that still fit.
  for (const auto& r : reqs.items()) {
    if (!r.min_values || *r.min_values <= 1) continue;
    std::vector<label_id> seen;
    for (std::uint32_t k = from; k < l.types.size(); ++k) {
      std::uint16_t ti = l.types[k];
      if (!total.fits(tp.room[ti], nres_)) continue;
      if (r.key == k_type_) {
        seen.push_back(types_[ti].name);
        continue;
      }
      if (const requirement* q = types_[ti].reqs.get(r.key); q && !q->complement)
        for (label_id v : q->values)
          if (r.has(v, t_)) seen.push_back(v);
    }
    if (size) {
      // The f1 option counts as one more type, and offers its family's values.
      if (r.key == k_type_)
        seen.push_back(no_label);
      else if (const requirement* q = rs_reqs_.get(r.key); q && !q->complement)
        for (label_id v : q->values)
          if (r.has(v, t_)) seen.push_back(v);
    }
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    if (static_cast<int>(seen.size()) < *r.min_values) {
      if (opts_.min_values == min_values_policy::strict)
        return f = {why::min_values, r.key, -1, nullptr, static_cast<int>(seen.size())}, false;
      out.relaxed_min_values = true;
    }
  }
  out.list = list;
  out.fit_from = from;
  out.right_sized = size.has_value();
  if (size) out.size = *size;
  return true;
}

bool solver::try_slot(std::size_t si, pod_group& g, variant& v, tentative& out, failure& f) {
  slot& s = slots_[si];
  if (const model::taint* bad =
          untolerated(g.rep->tolerations, s.taints, v.tolerate_prefer_no_schedule))
    return f = {why::taint, no_label, -1, bad}, false;
  if (!g.ports.empty() && ports_conflict(s.ports, g.ports)) return f = {why::ports}, false;
  for (const auto& [driver, count] : g.volumes)
    for (const auto& [d, left] : s.volumes_left)
      if (d == driver && left < count) return f = {why::volumes}, false;
  bool fresh = s.kind == slot_kind::fresh;
  resources total;
  if (fresh) {
    total = s.total + g.req;
    if (!total.fits(lists_[static_cast<std::size_t>(s.list)].max_room, nres_) &&
        !(s.right_sized &&
          total.fits(tmpls_[static_cast<std::size_t>(s.tmpl)].right_sized_room, nres_)))
      return f = {why::no_type}, false;
  } else if (!g.req.fits(s.remaining, nres_)) {
    return f = {why::resources}, false;
  }
  // Requirements: new NodeClaims may leave well-known labels undefined; real nodes may not.
  static const std::vector<label_id> strict;
  if (auto c = s.reqs.compatible(v.reqs, fresh ? well_known_ : strict, t_))
    return f = {c->undefined ? why::undefined_label : why::requirements, c->key}, false;
  requirements* reqs = &s.reqs;
  std::optional<requirements> owned;
  for (const auto& r : v.reqs.items()) {
    const requirement* have = s.reqs.get(r.key);
    if (have && implies(*have, r, t_)) continue;
    if (!owned) owned = s.reqs;
    owned->add(r, t_);
  }
  if (owned) reqs = &*owned;
  if (!v.topo.empty() || !g.inverse.empty())
    if (!topology_fits(si, s, g, v, reqs, owned, f)) return false;
  if (fresh) {
    const tmpl& tp = tmpls_[static_cast<std::size_t>(s.tmpl)];
    if (!filter_types(s, tp, g, *reqs, owned.has_value(), total, out, f)) return false;
  }
  out.reqs = std::move(owned);
  return true;
}

void solver::commit(std::size_t si, pod_group& g, variant& v, tentative& t, std::uint32_t pod) {
  slot& s = slots_[si];
  if (t.reqs) s.reqs = std::move(*t.reqs);
  if (s.kind == slot_kind::fresh) {
    s.total += g.req;
    s.list = t.list;
    s.fit_from = t.fit_from;
    s.right_sized = t.right_sized;
    if (t.right_sized) {
      s.size = t.size;
      auto ti = static_cast<std::size_t>(s.tmpl);
      reserve_limits(tmpls_[ti], s.tmpl, s, right_sized_capacity(s.size));
    }
  } else {
    s.remaining -= g.req;
  }
  s.ports.insert(s.ports.end(), g.ports.begin(), g.ports.end());
  for (const auto& [driver, count] : g.volumes)
    for (auto& [d, left] : s.volumes_left)
      if (d == driver) left -= count;
  s.pods.push_back(pod);
  pod_slot_[pod] = static_cast<int>(si);
  // Count this pod in every group that selects it.
  for (int gi : g.selected_by) {
    topology_group& tg = topo_[static_cast<std::size_t>(gi)];
    if (tg.hostname) {
      tg.record_host(si);
      continue;
    }
    const requirement* r = s.reqs.get(tg.key);
    if (r && r->is_single()) {
      tg.record(r->values[0]);
    } else if (tg.kind == topology_kind::anti_affinity) {
      // Not collapsed yet: anti-affinity counts every domain it might end up in.
      domains_of(s, s.reqs, tg.key, scratch_domains_);
      for (label_id d : scratch_domains_) tg.record(d);
    }
  }
  for (int gi : v.topo) {
    topology_group& tg = topo_[static_cast<std::size_t>(gi)];
    if (tg.kind != topology_kind::anti_affinity) continue;
    if (tg.hostname) {
      tg.record_owner_host(si);
      continue;
    }
    domains_of(s, s.reqs, tg.key, scratch_domains_);
    for (label_id d : scratch_domains_) tg.record_owner(d);
  }
}

bool solver::try_fresh(int ti, pod_group& g, variant& v, failure& f, std::uint32_t pod,
                       bool apply) {
  tmpl& tp = tmpls_[static_cast<std::size_t>(ti)];
  if (const model::taint* bad =
          untolerated(g.rep->tolerations, tp.taints, v.tolerate_prefer_no_schedule))
    return f = {why::taint, no_label, -1, bad}, false;
  if (auto c = tp.reqs.compatible(v.reqs, well_known_, t_))
    return f = {c->undefined ? why::undefined_label : why::requirements, c->key}, false;
  if (ports_conflict(tp.daemon_ports, g.ports)) return f = {why::ports}, false;
  if (tp.nodes_remaining <= 0) return f = {why::limits_nodes, no_label, ti}, false;
  slot s;
  s.kind = slot_kind::fresh;
  s.tmpl = ti;
  s.reqs = tp.reqs;
  s.taints = tp.taints;
  s.ports = tp.daemon_ports;
  s.list = list_for(ti, tp.reqs);
  s.right_sized = tp.right_sized;
  if (lists_[static_cast<std::size_t>(s.list)].types.empty() && !tp.right_sized) {
    if (tp.types.empty()) return f = {why::no_types_at_all}, false;
    if (apply) return f = {why::limits, no_label, ti}, false;
    // Explaining: if the pod would not fit even without limits, that is the better reason.
    s.list = list_for(ti, tp.reqs, true);
    std::size_t si = slots_.size();
    slots_.push_back(std::move(s));
    tentative t;
    bool fits = try_slot(si, g, v, t, f);
    slots_.pop_back();
    if (fits) f = {why::limits, no_label, ti};
    return false;
  }
  std::size_t si = slots_.size();
  slots_.push_back(std::move(s));
  tentative t;
  if (!try_slot(si, g, v, t, f)) {
    slots_.pop_back();
    return false;
  }
  if (!apply) {
    slots_.pop_back();
    return true;
  }
  commit(si, g, v, t, pod);
  slot& made = slots_[si];
  if (tp.limited) {
    // Pessimistic: the largest capacity this NodeClaim might still launch (the list's maximum:
    // the types too small for this pod are not the largest anyway). An f1 claim has counted
    // its size already and counts each step as it grows.
    reserve_limits(tp, ti, made, lists_[static_cast<std::size_t>(made.list)].max_capacity);
    if (tp.nodes_remaining != kUnlimited) --tp.nodes_remaining;
  }
  return true;
}

bool solver::in_blocked_domain(const slot& s) const {
  for (const auto& [key, domain] : blocked_domains_) {
    const requirement* r = s.reqs.get(key);
    if (r && r->is_single() && r->values[0] == domain) return true;
  }
  return false;
}

bool solver::place(pod_group& g, std::uint32_t pod, failure& last) {
  for (variant& v : g.variants) {
    // (a) existing and in-flight nodes, then (b) NodeClaims opened earlier in this solve.
    tentative t;
    failure f;
    bool advancing = true;
    std::size_t start = v.cursor;
    for (int gi : v.topo) {
      // Hostname spread and anti-affinity only ever fill up: skip the slots already full for
      // this constraint, remembered per constraint so that every pod sharing it profits.
      topology_group& tg = topo_[static_cast<std::size_t>(gi)];
      if (!tg.hostname) continue;
      bool self = std::find(g.selected_by.begin(), g.selected_by.end(), gi) != g.selected_by.end();
      if (tg.kind == topology_kind::affinity || (tg.kind == topology_kind::spread && !self))
        continue;
      while (tg.host_cursor < slots_.size() && hostname_blocked(tg, tg.host_cursor))
        ++tg.host_cursor;
      start = std::max<std::size_t>(start, tg.host_cursor);
    }
    blocked_domains_.clear();
    for (std::size_t si = start; si < slots_.size(); ++si) {
      if (!blocked_domains_.empty() && in_blocked_domain(slots_[si])) {
        advancing = false;
        continue;
      }
      if (try_slot(si, g, v, t, f)) {
        commit(si, g, v, t, pod);
        return true;
      }
      if (advancing && f.monotone())
        v.cursor = static_cast<std::uint32_t>(si + 1);
      else
        advancing = false;
      if (si < first_fresh_) last = f;
      if (f.domain != no_label) blocked_domains_.emplace_back(f.key, f.domain);
    }
    // (c) a new NodeClaim from each NodePool in weight order.
    for (std::size_t ti = 0; ti < tmpls_.size(); ++ti) {
      failure tf;
      if (try_fresh(static_cast<int>(ti), g, v, tf, pod, true)) return true;
    }
  }
  return false;
}

}  // namespace kp::scheduling::detail
