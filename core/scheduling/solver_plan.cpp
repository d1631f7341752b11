// Running the queue and turning the simulation into a plan with reasons.
#include "core/scheduling/solver.hpp"

namespace kp::scheduling::detail {

std::string solver::describe_failure(const failure& f, const pod_group& g) const {
  auto key = [&] { return f.key == no_label ? std::string() : t_.str(f.key); };
  switch (f.code) {
    case why::taint:
      return "did not tolerate taint " + f.taint->key +
             (f.taint->value.empty() ? "" : "=" + f.taint->value) + ":" + f.taint->effect;
    case why::ports:
      return "a host port it needs is already used";
    case why::volumes:
      return "the node's CSI volume attach limit is reached";
    case why::resources:
      return "not enough free resources for " + rt_.describe(g.req);
    case why::requirements:
      return "its node requirements on \"" + key() + "\" do not match (" + [&] {
        const requirement* r = g.variants.back().reqs.get(f.key);
        return r ? describe(*r, t_) : std::string("absent");
      }() + ")";
    case why::undefined_label:
      return "label \"" + key() +
             "\" has no known values; add it to the NodePool's labels or requirements";
    case why::spread:
      return "topology spread on \"" + key() + "\" would exceed maxSkew " +
             std::to_string(topo_[static_cast<std::size_t>(f.group)].max_skew) +
             " in every domain it can use";
    case why::affinity:
      return "pod affinity on \"" + key() + "\" has no domain with a matching pod";
    case why::anti_affinity:
      return "pod anti-affinity on \"" + key() +
             "\": every possible domain already has a conflicting pod";
    case why::no_type: {
      std::string out =
          "no instance type has room for " + rt_.describe(g.req) + " plus DaemonSet overhead";
      const requirements& r = g.variants.back().reqs;
      if (!r.empty()) out += " and offers " + r.describe(t_);
      return out;
    }
    case why::min_values:
      return "minValues requirement is not met for \"" + key() + "\" (only " +
             std::to_string(f.extra) + " values left)";
    case why::limits: {
      std::string left;
      if (f.group >= 0) {
        const tmpl& tp = tmpls_[static_cast<std::size_t>(f.group)];
        for (std::size_t r = 0; r < nres_; ++r) {
          if (tp.limit_remaining.v[r] == kUnlimited) continue;
          model::quantity q{std::max<std::int64_t>(0, tp.limit_remaining.v[r]),
                            r == 1 || r == 3 ? model::quantity_format::binary_si
                                             : model::quantity_format::decimal_si};
          left += (left.empty() ? "" : ", ") + rt_.name(r) + " " + model::to_string(q);
        }
      }
      return "NodePool limits leave no instance type that fits (remaining: " + left +
             "); raise spec.limits";
    }
    case why::limits_nodes: {
      // Karpenter's wording, with the figure: its nodes and in-flight NodeClaims count.
      std::string limit;
      if (f.group >= 0)
        limit = " (limits.nodes: " +
                std::to_string(tmpls_[static_cast<std::size_t>(f.group)].nodes_limit) + ")";
      return "node limits have been exhausted for nodepool" + limit + "; raise spec.limits.nodes";
    }
    case why::no_types_at_all:
      return "no instance type is compatible with the NodePool's requirements or has an "
             "available offering";
    case why::costlier:
      return "growing an existing NodeClaim would make it too costly";
    case why::none:
      break;
  }
  return "unknown";
}

std::string solver::explain(const pod_group& g, const std::vector<failure>& per_template,
                            const failure& existing) const {
  if (tmpls_.empty())
    return "no ready NodePool can create nodes, and no existing node fits" +
           (existing.code == why::none ? std::string()
                                       : " (" + describe_failure(existing, g) + ")");
  std::string out = "cannot schedule: ";
  for (std::size_t i = 0; i < per_template.size(); ++i) {
    if (i) out += "; ";
    out += "NodePool \"" + snap_.nodepools[tmpls_[i].pool].name +
           "\": " + describe_failure(per_template[i], g);
  }
  return out;
}

void solver::finish(plan& out) {
  for (std::size_t si = 0; si < slots_.size(); ++si) {
    slot& s = slots_[si];
    if (s.pods.empty()) continue;
    if (s.kind != slot_kind::fresh) {
      for (std::uint32_t p : s.pods)
        out.bindings.push_back({p, s.name, s.kind == slot_kind::in_flight});
      continue;
    }
    const tmpl& tp = tmpls_[static_cast<std::size_t>(s.tmpl)];
    const model::nodepool& np = snap_.nodepools[tp.pool];
    planned_nodeclaim nc;
    nc.nodepool = np.name;
    nc.hostname = "hostname-placeholder-" + std::to_string(si - first_fresh_);
    nc.taints = np.template_.taints;
    nc.startup_taints = np.template_.startup_taints;
    nc.node_class = np.template_.node_class;
    nc.labels = np.template_.labels;
    nc.labels[std::string(L::nodepool)] = np.name;
    // Cheapest compatible available offering per type, then price order.
    const requirement* z = s.reqs.get(k_zone_);
    const requirement* c = s.reqs.get(k_ct_);
    std::vector<std::pair<double, std::uint16_t>> priced;
    std::vector<label_id> cts;
    const type_list& l = lists_[static_cast<std::size_t>(s.list)];
    std::uint64_t allowed_zones = ~std::uint64_t{0};
    if (z) {
      allowed_zones = 0;
      for (const auto& [zone, bit] : zone_bit_)
        if (z->has(zone, t_)) allowed_zones |= std::uint64_t{1} << bit;
    }
    priced.reserve(l.types.size() - s.fit_from);
    std::uint32_t k = s.fit_from;
    if (l.uniform && (l.common_zone_mask & allowed_zones) && (!c || c->has(l.uniform_ct, t_))) {
      // Every type is offered in an allowed zone at one price: from the first position where
      // all remaining types fit, take them as they are (already in price order).
      std::uint32_t n = static_cast<std::uint32_t>(l.types.size());
      std::uint32_t all_fit = k;
      while (all_fit < n && !s.total.fits(l.suffix_min_room[all_fit], nres_)) ++all_fit;
      for (; k < all_fit; ++k)
        if (s.total.fits(tp.room[l.types[k]], nres_))
          priced.emplace_back(types_[l.types[k]].price, l.types[k]);
      for (; k < n; ++k) priced.emplace_back(types_[l.types[k]].price, l.types[k]);
      if (!priced.empty()) cts.push_back(l.uniform_ct);
    }
    for (; k < l.types.size(); ++k) {
      std::uint16_t ti = l.types[k];
      if (!s.total.fits(tp.room[ti], nres_)) continue;
      const itype& ty = types_[ti];
      if (ty.uniform && (!c || c->has(ty.uniform_ct, t_))) {
        if (!(ty.zone_mask & allowed_zones)) continue;
        if (std::find(cts.begin(), cts.end(), ty.uniform_ct) == cts.end())
          cts.push_back(ty.uniform_ct);
        priced.emplace_back(ty.price, ti);
        continue;
      }
      double best = std::numeric_limits<double>::max();
      for (const auto& o : types_[ti].offerings) {
        if (!o.available || (z && !z->has(o.zone, t_)) || (c && !c->has(o.capacity_type, t_)))
          continue;
        best = std::min(best, o.price);
        if (std::find(cts.begin(), cts.end(), o.capacity_type) == cts.end())
          cts.push_back(o.capacity_type);
      }
      priced.emplace_back(best, ti);
    }
    auto cheaper = [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return types_[a.second].src->name < types_[b.second].src->name;
    };
    // Lists are already in price order unless zone or capacity type changed a price.
    if (!std::is_sorted(priced.begin(), priced.end(),
                        [](const auto& a, const auto& b) { return a.first < b.first; }))
      std::stable_sort(priced.begin(), priced.end(), cheaper);
    if (priced.size() > opts_.max_instance_types) priced.resize(opts_.max_instance_types);
    add_right_sized_option(s, tp, nc, priced, cts);
    bool relaxed = false;
    nc.instance_types.reserve(priced.size());
    for (const auto& [price, ti] : priced) nc.instance_types.push_back(ti);
    nc.price = priced.empty() ? 0 : priced.front().first;
    if (nc.right_sized && nc.right_sized_rank == 0)
      nc.price = instance_types::right_sized_price(s.size);
    // Requirements: the merged set minus simulation-only keys.
    label_id k_registered = t_.find(L::registered), k_initialized = t_.find(L::initialized);
    for (const auto& r : s.reqs.items()) {
      if (r.key == k_registered || r.key == k_initialized || r.key == k_type_) continue;
      model::node_selector_requirement m;
      m.key = t_.str(r.key);
      m.op = r.op();
      if (m.op == selector_operator::gte)
        m.values = {std::to_string(*r.gte)};
      else if (m.op == selector_operator::lte)
        m.values = {std::to_string(*r.lte)};
      for (label_id v : r.values) m.values.push_back(t_.str(v));
      m.min_values = r.min_values;
      // Single-valued custom requirements become labels.
      if (r.is_single() && !std::binary_search(well_known_.begin(), well_known_.end(), r.key))
        nc.labels[m.key] = m.values[0];
      nc.requirements.push_back(std::move(m));
    }
    if (const requirement* tr = s.reqs.get(k_type_); tr && tr->min_values) {
      nc.instance_type_min_values = tr->min_values;
      if (static_cast<int>(nc.instance_types.size() + (nc.right_sized ? 1 : 0)) < *tr->min_values)
        relaxed = true;
    }
    if (!s.reqs.has(k_ct_)) {
      std::sort(cts.begin(), cts.end());
      model::node_selector_requirement ct{
          std::string(L::capacity_type), selector_operator::in, {}, std::nullopt};
      for (label_id v : cts) ct.values.push_back(t_.str(v));
      nc.requirements.push_back(std::move(ct));
    }
    for (const auto& r : s.reqs.items())
      if (r.min_values && r.key != k_type_) {
        std::vector<label_id> seen;
        for (const auto& [price, ti] : priced)
          if (const requirement* q = types_[ti].reqs.get(r.key); q && !q->complement)
            seen.insert(seen.end(), q->values.begin(), q->values.end());
        if (nc.right_sized)
          if (const requirement* q = rs_reqs_.get(r.key); q && !q->complement)
            seen.insert(seen.end(), q->values.begin(), q->values.end());
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        if (static_cast<int>(seen.size()) < *r.min_values) relaxed = true;
      }
    nc.min_values_relaxed = relaxed;
    resources req = s.total;
    req += tp.daemon;
    nc.requests = rt_.to_list(req);
    nc.pods.assign(s.pods.begin(), s.pods.end());
    std::sort(nc.pods.begin(), nc.pods.end());
    out.nodeclaims.push_back(std::move(nc));
  }
  std::sort(out.bindings.begin(), out.bindings.end(),
            [](const binding& a, const binding& b) { return a.pod < b.pod; });
  for (std::size_t p = 0; p < pod_errors_.size(); ++p)
    if (pod_slot_[p] < 0)
      out.errors.push_back({p, pod_errors_[p].empty() ? "not scheduled" : pod_errors_[p]});
}

plan solver::run() {
  build_well_known();
  build_resources();
  nres_ = rt_.size();
  build_types();
  build_right_sized();
  build_templates();
  build_existing();
  build_groups();
  build_domains();
  seed_counts();
  pod_errors_.assign(snap_.pods.size(), {});
  pod_slot_.assign(snap_.pods.size(), -1);

  // Queue order: CPU desc, memory desc, creation asc, UID asc (of each group's first pod).
  std::vector<std::uint32_t> order;
  for (std::uint32_t gi = 0; gi < groups_.size(); ++gi) {
    if (!groups_[gi].invalid.empty()) {
      for (std::uint32_t p : groups_[gi].members) pod_errors_[p] = groups_[gi].invalid;
      continue;
    }
    order.push_back(gi);
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = groups_[a];
    const auto& y = groups_[b];
    if (x.req.v[0] != y.req.v[0]) return x.req.v[0] > y.req.v[0];
    if (x.req.v[1] != y.req.v[1]) return x.req.v[1] > y.req.v[1];
    if (x.rep->creation_unix_ms != y.rep->creation_unix_ms)
      return x.rep->creation_unix_ms < y.rep->creation_unix_ms;
    return x.rep->uid < y.rep->uid;
  });
  struct entry {
    std::uint32_t group;
    std::uint32_t next;
    std::uint64_t progress_at_push;
    bool requeued;
  };
  std::deque<entry> queue;
  for (std::uint32_t gi : order) queue.push_back({gi, 0, 0, false});
  std::uint64_t progress = 0;
  while (!queue.empty()) {
    entry e = queue.front();
    queue.pop_front();
    if (e.requeued && e.progress_at_push == progress) {
      // A full cycle without progress: everything left stays unschedulable.
      queue.push_front(e);
      break;
    }
    pod_group& g = groups_[e.group];
    bool failed = false;
    for (; e.next < g.members.size(); ++e.next) {
      std::uint32_t pod = g.members[e.next];
      failure existing;
      if (place(g, pod, existing)) {
        ++progress;
        continue;
      }
      // Explain with the most relaxed variant: what still blocks it.
      std::vector<failure> per_template;
      variant& v = g.variants.back();
      for (std::size_t ti = 0; ti < tmpls_.size(); ++ti) {
        failure f;
        if (try_fresh(static_cast<int>(ti), g, v, f, pod, false)) f = {why::none};
        per_template.push_back(f);
      }
      std::string reason = explain(g, per_template, existing);
      for (std::size_t k = e.next; k < g.members.size(); ++k) pod_errors_[g.members[k]] = reason;
      failed = true;
      break;
    }
    if (failed) queue.push_back({e.group, e.next, progress, true});
  }
  plan out;
  finish(out);
  return out;
}

}  // namespace kp::scheduling::detail
