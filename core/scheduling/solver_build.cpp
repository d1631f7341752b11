// Building a simulation: instance types, templates, existing nodes, pod groups, domains.
#include "core/instance_types/offering_override.hpp"
#include "core/scheduling/solver.hpp"

#include <unordered_set>

namespace kp::scheduling::detail {

// ---------------------------------------------------------------------------------------------
// Building.

label_id solver::normalize_key(std::string_view key) {
  if (key == L::beta_zone)
    key = L::zone;
  else if (key == L::beta_region)
    key = L::region;
  else if (key == L::beta_arch)
    key = L::arch;
  else if (key == L::beta_os)
    key = L::os;
  else if (key == L::beta_instance_type)
    key = L::instance_type;
  return t_.intern(key);
}

void solver::build_well_known() {
  k_zone_ = t_.intern(L::zone);
  k_region_ = t_.intern(L::region);
  k_ct_ = t_.intern(L::capacity_type);
  k_type_ = t_.intern(L::instance_type);
  k_family_ = t_.intern(L::instance_family);
  k_hostname_ = t_.intern(L::hostname);
  k_nodepool_ = t_.intern(L::nodepool);
  k_arch_ = t_.intern(L::arch);
  k_os_ = t_.intern(L::os);
  well_known_ = {k_nodepool_, k_zone_, k_region_, k_type_,
                 k_arch_,     k_os_,   k_ct_,     t_.intern(L::windows_build),
                 k_family_};
  std::sort(well_known_.begin(), well_known_.end());
}

requirements solver::labels_to_reqs(const model::label_map& labels) {
  requirements r;
  for (const auto& [k, v] : labels) r.add(make_in(normalize_key(k), {t_.intern(v)}), t_);
  return r;
}

void solver::build_resources() {
  // Resources that pods ask for get ids; then any named by NodePool limits.
  auto note = [&](const model::resource_list& l) {
    for (const auto& [name, q] : l.items())
      if (q.milli > 0) rt_.id(name);
  };
  for (const auto& p : snap_.pods) {
    for (const auto& c : p.containers) note(c.requests);
    for (const auto& c : p.init_containers) note(c.requests);
    note(p.overhead);
  }
  for (const auto& np : snap_.nodepools) note(np.limits);
}

void solver::build_types() {
  // Types are addressed by 16-bit indices; a larger catalogue is cut (none comes close).
  std::size_t n = std::min<std::size_t>(snap_.instance_types.size(), 65535);
  types_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& src = snap_.instance_types[i];
    itype t;
    t.src = &src;
    t.name = t_.intern(src.name);
    t.reqs.add(make_in(k_type_, {t.name}), t_);
    t.reqs.add(make_in(k_family_, {t_.intern(src.family)}), t_);
    for (const auto& r : src.requirements) {
      model::node_selector_requirement n = r;
      auto req = make_requirement(t_, n);
      if (req) {
        req->key = normalize_key(r.key);
        t.reqs.add(*req, t_);
      }
    }
    std::vector<label_id> zones, cts;
    for (const auto& o : src.offerings) {
      offering_ids ids{t_.intern(o.zone), t_.intern(o.capacity_type), t_.intern(o.region), o.price,
                       o.available};
      t.offerings.push_back(ids);
      if (o.available) {
        t.price = std::min(t.price, o.price);
        zones.push_back(ids.zone);
        cts.push_back(ids.capacity_type);
      }
    }
    t.reqs.add(make_in(k_zone_, zones), t_);
    t.reqs.add(make_in(k_ct_, cts), t_);
    // Per-host overrides: the largest over the hosts; host_fit narrows the plan afterwards.
    t.alloc = rt_.from(instance_types::largest_allocatable(src));
    t.capacity = rt_.from(src.capacity);
    for (const auto& r : t.reqs.items()) type_keys_.push_back(r.key);
    for (const auto& o : t.offerings)
      if (!zone_bit_.count(o.zone) && zone_bit_.size() < 64)
        zone_bit_.emplace(o.zone, static_cast<int>(zone_bit_.size()));
    type_by_name_.emplace(t.name, static_cast<std::uint16_t>(types_.size()));
    types_.push_back(std::move(t));
  }
  std::sort(type_keys_.begin(), type_keys_.end());
  type_keys_.erase(std::unique(type_keys_.begin(), type_keys_.end()), type_keys_.end());
  for (auto& t : types_) {
    bool first = true;
    for (const auto& o : t.offerings) {
      if (!o.available) continue;
      auto b = zone_bit_.find(o.zone);
      if (b == zone_bit_.end())
        t.uniform = false;
      else
        t.zone_mask |= std::uint64_t{1} << b->second;
      if (first)
        t.uniform_ct = o.capacity_type;
      else if (o.capacity_type != t.uniform_ct || o.price != t.price)
        t.uniform = false;
      first = false;
    }
  }
}

bool solver::type_compatible(const itype& t, const requirements& reqs) const {
  // Shared keys must overlap (instance-type, family, arch, os, region, zone, capacity type).
  for (const auto& r : t.reqs.items()) {
    const requirement* q = reqs.get(r.key);
    if (q && !key_intersects(r, *q, t_)) return false;
  }
  const requirement* z = reqs.get(k_zone_);
  const requirement* c = reqs.get(k_ct_);
  const requirement* g = reqs.get(k_region_);
  for (const auto& o : t.offerings) {
    if (!o.available) continue;
    if (z && !z->has(o.zone, t_)) continue;
    if (c && !c->has(o.capacity_type, t_)) continue;
    if (g && !g->has(o.region, t_)) continue;
    return true;
  }
  return false;
}

void solver::build_templates() {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < snap_.nodepools.size(); ++i) {
    const auto& np = snap_.nodepools[i];
    if (!np.ready || np.deleting || np.replicas) continue;
    order.push_back(i);
  }
  // Weight descending, then name descending (Karpenter's OrderByWeight).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = snap_.nodepools[a];
    const auto& y = snap_.nodepools[b];
    if (x.weight != y.weight) return x.weight > y.weight;
    return x.name > y.name;
  });
  label_id k_registered = t_.intern(L::registered), k_initialized = t_.intern(L::initialized);
  label_id v_true = t_.intern("true");
  for (std::size_t pi : order) {
    const auto& np = snap_.nodepools[pi];
    tmpl tp;
    tp.pool = pi;
    for (const auto& r : np.template_.requirements) {
      auto req = make_requirement(t_, r);
      if (!req) continue;  // validated by the API; an invalid one cannot constrain
      req->key = normalize_key(r.key);
      tp.reqs.add(*req, t_);
    }
    tp.reqs.add_all(labels_to_reqs(np.template_.labels), t_);
    tp.reqs.add(make_in(k_nodepool_, {t_.intern(np.name)}), t_);
    tp.reqs.add(make_in(k_registered, {v_true}), t_);
    tp.reqs.add(make_in(k_initialized, {v_true}), t_);
    tp.taints = np.template_.taints;
    tp.startup_taints = np.template_.startup_taints;
    for (const auto& tt : tp.taints)
      if (tt.effect == model::taint_effects::prefer_no_schedule) any_prefer_no_schedule_ = true;
    // Limits: remaining = limits - capacity of the pool's current nodes.
    for (std::size_t r = 0; r < max_resources; ++r) tp.limit_remaining.v[r] = kUnlimited;
    for (const auto& [name, q] : np.limits.items()) {
      if (name == model::resource_names::nodes) {
        tp.nodes_remaining = q.value();
        tp.nodes_limit = q.value();
        tp.limited = true;
        continue;
      }
      int id = rt_.find(name);
      if (id < 0) continue;
      tp.limit_remaining.v[static_cast<std::size_t>(id)] = q.milli;
      tp.limited = true;
    }
    if (tp.limited) {
      auto subtract = [&](const model::resource_list& cap) {
        resources c = rt_.from(cap);
        for (std::size_t r = 0; r < max_resources; ++r)
          if (tp.limit_remaining.v[r] != kUnlimited) tp.limit_remaining.v[r] -= c.v[r];
        if (tp.nodes_remaining != kUnlimited) --tp.nodes_remaining;
      };
      std::unordered_set<std::string_view> counted;
      for (const auto& shared : snap_.nodeclaims) {
        const auto& nc = *shared;
        if (nc.nodepool != np.name) continue;
        model::resource_list cap = nc.capacity;
        if (cap.empty()) {
          auto it = nc.labels.find(L::instance_type);
          if (it != nc.labels.end()) cap = capacity_by_name(it->second);
        }
        subtract(cap);
        if (!nc.node_name.empty()) counted.insert(nc.node_name);
      }
      for (const auto& shared : snap_.nodes) {
        const auto& n = *shared;
        auto it = n.labels.find(L::nodepool);
        if (it == n.labels.end() || it->second != np.name) continue;
        if (counted.count(n.name)) continue;
        subtract(n.capacity);
      }
    }
    // DaemonSet overhead: DaemonSets that tolerate the template's taints and whose node
    // requirements are compatible with the template.
    for (const auto& ds : snap_.daemonsets) {
      std::vector<model::toleration> tols = ds.tolerations;
      tols.push_back({"", "Exists", "", std::string(model::taint_effects::prefer_no_schedule), {}});
      if (model::first_untolerated(tols, tp.taints)) continue;
      requirements dr;
      std::string err;
      bool ok = false;
      std::size_t terms = std::max<std::size_t>(1, ds.affinity.required.size());
      for (std::size_t term = 0; term < terms && !ok; ++term) {
        dr = requirements{};
        if (!compile_pod_requirements(ds, term, 1 << 20, dr, err)) continue;
        ok = !tp.reqs.compatible(dr, well_known_, t_);
      }
      if (!ok) continue;
      tp.daemon += rt_.from(model::pod_requests(ds));
      tp.daemon.v[2] += 1000;
      auto ports = model::pod_host_ports(ds);
      tp.daemon_ports.insert(tp.daemon_ports.end(), ports.begin(), ports.end());
    }
    if (np.kubelet_max_pods) tp.kubelet_max_pods = *np.kubelet_max_pods;
    // Resources no pod asks for are not in the table and drop out here.
    const resources devices = rt_.from(np.device_capacity);
    offer_right_sized(tp, np);
    tp.right_sized_room += devices;
    tp.room.resize(types_.size());
    const int pods_index = rt_.find("pods");
    for (std::size_t i = 0; i < types_.size(); ++i) {
      tp.room[i] = types_[i].alloc + devices;
      if (np.kubelet_max_pods && pods_index >= 0) {
        auto& pods = tp.room[i].v[static_cast<std::size_t>(pods_index)];
        pods = std::min(pods, *np.kubelet_max_pods * 1000);
      }
      tp.room[i] -= tp.daemon;
      if (type_compatible(types_[i], tp.reqs)) tp.types.push_back(static_cast<std::uint16_t>(i));
    }
    std::stable_sort(tp.types.begin(), tp.types.end(), [&](std::uint16_t a, std::uint16_t b) {
      return types_[a].price < types_[b].price;
    });
    for (std::uint16_t t : tp.types)
      for (std::size_t r = 0; r < max_resources; ++r)
        tp.max_capacity.v[r] = std::max(tp.max_capacity.v[r], types_[t].capacity.v[r]);
    tmpls_.push_back(std::move(tp));
    limits_epoch_.push_back(0);
  }
}

// model::pod_requests without building maps: running pods are many, and only the resources
// this solve tracks matter for them.
resources solver::requests_of(const model::pod& p) const {
  auto add = [&](resources& r, const model::resource_list& l) {
    for (const auto& [name, q] : l.items())
      if (int id = rt_.find(name); id >= 0) {
        auto& slot = r.v[static_cast<std::size_t>(id)];
        slot = model::saturating_add(slot, q.milli);
      }
  };
  auto max_into = [](resources& a, const resources& b) {
    for (std::size_t i = 0; i < max_resources; ++i) a.v[i] = std::max(a.v[i], b.v[i]);
  };
  resources containers, sidecars, init_peak;
  for (const auto& c : p.containers) add(containers, c.requests);
  for (const auto& c : p.init_containers) {
    if (c.restartable) {
      add(sidecars, c.requests);
      max_into(init_peak, sidecars);
    } else {
      resources step = sidecars;
      add(step, c.requests);
      max_into(init_peak, step);
    }
  }
  containers += sidecars;
  max_into(containers, init_peak);
  add(containers, p.overhead);
  return containers;
}

void solver::build_existing() {
  std::unordered_map<std::string_view, const model::nodeclaim*> claim_of_node;
  for (const auto& c : snap_.nodeclaims)
    if (!c->node_name.empty()) claim_of_node[c->node_name] = c.get();
  std::unordered_set<std::string_view> node_names;
  for (const auto& n : snap_.nodes) node_names.insert(n->name);
  // Bound pods per node name, for used resources and ports.
  std::unordered_map<std::string_view, std::vector<const model::pod*>> bound;
  for (const auto& shared : snap_.bound_pods)
    if (const auto& p = *shared; !p.node_name.empty() && !model::is_terminal(p))
      bound[p.node_name].push_back(&p);
  auto daemon_missing = [&](slot& s, const std::vector<const model::pod*>& on) {
    for (const auto& ds : snap_.daemonsets) {
      bool running = false;
      for (const auto* p : on)
        for (const auto& o : p->owners)
          for (const auto& d : ds.owners)
            if (o.kind == "DaemonSet" && o.name == d.name) running = true;
      if (running) continue;
      if (model::first_untolerated(ds.tolerations, s.taints)) continue;
      requirements dr;
      std::string err;
      if (!compile_pod_requirements(ds, 0, 1 << 20, dr, err)) continue;
      if (s.reqs.compatible(dr, {}, t_)) continue;
      resources r = rt_.from(model::pod_requests(ds));
      r.v[2] += 1000;
      s.remaining -= r;
      auto ports = model::pod_host_ports(ds);
      s.ports.insert(s.ports.end(), ports.begin(), ports.end());
    }
  };
  auto use = [&](slot& s, const std::vector<const model::pod*>& on) {
    for (const auto* p : on) {
      resources r = requests_of(*p);
      r.v[2] += 1000;
      s.remaining -= r;
      auto ports = model::pod_host_ports(*p);
      s.ports.insert(s.ports.end(), ports.begin(), ports.end());
    }
    daemon_missing(s, on);
  };
  auto ephemeral = [](const model::taint& t) {
    return t.key == model::taint_keys::not_ready || t.key == model::taint_keys::unreachable ||
           t.key == model::taint_keys::uninitialized || t.key == model::taint_keys::unregistered ||
           std::string_view(t.key).starts_with(model::taint_keys::readiness_prefix);
  };
  std::vector<slot> initialized, others;
  static const std::vector<const model::pod*> none;
  for (const auto& shared : snap_.nodes) {
    const auto& n = *shared;
    if (n.unschedulable || n.terminating) continue;
    auto claim = claim_of_node.find(n.name);
    const model::nodeclaim* nc = claim == claim_of_node.end() ? nullptr : claim->second;
    if (nc && nc->terminating) continue;
    bool managed = nc != nullptr || n.labels.count(L::nodepool) > 0;
    auto init_it = n.labels.find(L::initialized);
    bool is_init = !managed || (init_it != n.labels.end() && init_it->second == "true");
    slot s;
    s.kind = slot_kind::existing;
    s.name = n.name;
    s.reqs = labels_to_reqs(n.labels);
    s.reqs.add(make_in(k_hostname_, {t_.intern(n.name)}), t_);
    for (const auto& tt : n.taints) {
      if (!is_init) {
        // Until initialization, the known ephemeral taints and the startup taints are expected
        // to go away, so pods need not tolerate them.
        if (ephemeral(tt)) continue;
        if (nc && std::find(nc->startup_taints.begin(), nc->startup_taints.end(), tt) !=
                      nc->startup_taints.end())
          continue;
      }
      s.taints.push_back(tt);
    }
    s.remaining = rt_.from(n.allocatable);
    auto it = bound.find(n.name);
    use(s, it == bound.end() ? none : it->second);
    for (const auto& [driver, limit] : n.volume_limits) {
      std::vector<std::string_view> claims;  // a claim used by several pods attaches once
      if (it != bound.end())
        for (const auto* p : it->second)
          for (const auto& v : p->volumes)
            if (v.csi_driver == driver && !v.claim_name.empty() &&
                std::find(claims.begin(), claims.end(), v.claim_name) == claims.end())
              claims.push_back(v.claim_name);
      s.volumes_left.emplace_back(driver, limit - static_cast<std::int32_t>(claims.size()));
    }
    for (const auto& tt : s.taints)
      if (tt.effect == model::taint_effects::prefer_no_schedule) any_prefer_no_schedule_ = true;
    (is_init ? initialized : others).push_back(std::move(s));
  }
  for (const auto& shared : snap_.nodeclaims) {
    const auto& nc = *shared;
    if (nc.terminating) continue;
    if (!nc.node_name.empty() && node_names.count(nc.node_name)) continue;  // judged as its node
    slot s;
    s.kind = slot_kind::in_flight;
    s.name = nc.name;
    // Like Karpenter, judge it by what will surely be its labels: its labels and its
    // single-valued requirements. A zone still open (In [a b]) is not known yet, so pods that
    // need a zone do not count on it.
    for (const auto& r : nc.requirements) {
      if (r.op != selector_operator::in || r.values.size() != 1) continue;
      auto req = make_requirement(t_, r);
      if (!req) continue;
      req->key = normalize_key(r.key);
      s.reqs.add(*req, t_);
    }
    s.reqs.add_all(labels_to_reqs(nc.labels), t_);
    if (!nc.nodepool.empty()) s.reqs.add(make_in(k_nodepool_, {t_.intern(nc.nodepool)}), t_);
    s.taints = nc.taints;  // startup taints are not applied yet, or will be removed
    s.remaining = nc.allocatable.empty() ? unlaunched_room(nc, s.reqs) : rt_.from(nc.allocatable);
    auto it = bound.find(nc.name);
    use(s, it == bound.end() ? none : it->second);
    others.push_back(std::move(s));
  }
  auto by_name = [](const slot& a, const slot& b) { return a.name < b.name; };
  std::sort(initialized.begin(), initialized.end(), by_name);
  std::sort(others.begin(), others.end(), by_name);
  for (auto& s : initialized) slots_.push_back(std::move(s));
  for (auto& s : others) slots_.push_back(std::move(s));
  first_fresh_ = slots_.size();
}

// Before launch a NodeClaim's allocatable is unknown, but it will be one of the instance types
// its requirements name, and each of those was chosen to hold what was planned onto it: the
// smallest of them, resource by resource, is what it surely offers (capped by its pool's kubelet
// maxPods). Counting that room is what lets a pending pod wait for a claim still launching after
// its nomination was lost (a controller restart) instead of getting a second claim.
resources solver::unlaunched_room(const model::nodeclaim& nc, const requirements& reqs) {
  std::vector<std::string_view> names;
  if (const requirement* single = reqs.get(k_type_); single && single->is_single()) {
    names.push_back(t_.str(single->values[0]));
  } else {
    for (const auto& r : nc.requirements)
      if (r.op == selector_operator::in && normalize_key(r.key) == k_type_) {
        names.assign(r.values.begin(), r.values.end());
        break;
      }
  }
  resources room;
  bool any = false;
  for (std::string_view name : names) {
    auto known = allocatable_by_name(name);
    if (!known) continue;
    const resources& alloc = *known;
    for (std::size_t r = 0; r < max_resources; ++r)
      room.v[r] = any ? std::min(room.v[r], alloc.v[r]) : alloc.v[r];
    any = true;
  }
  if (!any) return {};
  const int pods_index = rt_.find("pods");
  for (const auto& np : snap_.nodepools) {
    if (np.name != nc.nodepool) continue;
    room += rt_.from(np.device_capacity);
    if (pods_index >= 0 && np.kubelet_max_pods) {
      auto& pods = room.v[static_cast<std::size_t>(pods_index)];
      pods = std::min(pods, *np.kubelet_max_pods * 1000);
    }
  }
  return room;
}

bool solver::compile_pod_requirements(const model::pod& p, std::size_t term, int pref_node_drop,
                                      requirements& out, std::string& error) {
  auto add = [&](const model::node_selector_requirement& r) {
    auto req = make_requirement(t_, r);
    if (!req) {
      error = req.error().message;
      return false;
    }
    req->key = normalize_key(r.key);
    req->min_values.reset();
    out.add(*req, t_);
    return true;
  };
  for (const auto& [k, v] : p.node_selector) out.add(make_in(normalize_key(k), {t_.intern(v)}), t_);
  if (!p.affinity.required.empty()) {
    const auto& tm = p.affinity.required[std::min(term, p.affinity.required.size() - 1)];
    for (const auto& r : tm.match_expressions)
      if (!add(r)) return false;
  }
  if (pref_node_drop < static_cast<int>(p.affinity.preferred.size())) {
    // The heaviest remaining preferred term is treated as required (stable by position).
    std::vector<const model::preferred_scheduling_term*> prefs;
    for (const auto& pt : p.affinity.preferred) prefs.push_back(&pt);
    std::stable_sort(prefs.begin(), prefs.end(),
                     [](auto* a, auto* b) { return a->weight > b->weight; });
    for (const auto& r :
         prefs[static_cast<std::size_t>(pref_node_drop)]->preference.match_expressions)
      if (!add(r)) return false;
  }
  for (const auto& vol : p.volumes) {
    if (vol.zones.empty()) continue;
    std::vector<label_id> z;
    for (const auto& s : vol.zones) z.push_back(t_.intern(s));
    out.add(make_in(k_zone_, z), t_);
  }
  return true;
}

int solver::topology_for(topology_group g) {
  std::string sig = signature(g, t_);
  auto it = topo_index_.find(sig);
  if (it != topo_index_.end()) return it->second;
  int idx = static_cast<int>(topo_.size());
  g.description = sig;
  topo_.push_back(std::move(g));
  topo_index_.emplace(std::move(sig), idx);
  return idx;
}

namespace {

bool is_restricted(std::string_view key) {
  if (key == L::hostname) return true;
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view domain = key.substr(0, slash);
  bool karpenter = domain == "karpenter.sh" || domain.ends_with(".karpenter.sh");
  return karpenter && key != L::capacity_type && key != L::nodepool;
}

model::label_selector with_match_label_keys(std::optional<model::label_selector> s,
                                            const std::vector<std::string>& keys,
                                            const model::pod& p) {
  model::label_selector out = s ? *s : model::label_selector{};
  for (const auto& k : keys) {
    auto it = p.labels.find(k);
    if (it != p.labels.end()) out.match_labels[k] = it->second;
  }
  return out;
}

}  // namespace

void solver::build_variants(pod_group& g) {
  const model::pod& p = *g.rep;
  bool respect = opts_.preferences == preference_policy::respect;
  // Validation (Provisioner.Validate): restricted labels and matchFields are refused.
  auto check_key = [&](const std::string& k) {
    if (is_restricted(k) && g.invalid.empty())
      g.invalid = "the pod requires the restricted label \"" + k +
                  "\", which Karpenter cannot provide; remove it from its node selector or "
                  "required node affinity";
  };
  for (const auto& [k, v] : p.node_selector) check_key(k);
  for (const auto& term : p.affinity.required) {
    for (const auto& r : term.match_expressions) {
      check_key(r.key);
      if (r.key == L::nodepool && r.op == selector_operator::does_not_exist && g.invalid.empty())
        g.invalid =
            "the pod requires karpenter.sh/nodepool DoesNotExist, so it opts out of "
            "Karpenter-managed nodes";
    }
    if (!term.match_fields.empty() && g.invalid.empty())
      g.invalid =
          "the pod's required node affinity uses matchFields, which Karpenter does not "
          "support; use matchExpressions";
  }
  if (!g.invalid.empty()) return;

  // Topology constraints, required and preferred.
  std::vector<int> required_topo;
  std::vector<std::pair<std::int32_t, int>> pref_aff, pref_anti;  // weight, group
  std::vector<int> schedule_anyway;
  auto own_filter = [&](label_id key) -> std::optional<requirement> {
    requirements r;
    std::string err;
    if (!compile_pod_requirements(p, 0, 1 << 20, r, err)) return std::nullopt;
    const requirement* q = r.get(key);
    return q ? std::optional<requirement>(*q) : std::nullopt;
  };
  for (const auto& c : p.topology_spread) {
    topology_group tg;
    tg.kind = topology_kind::spread;
    tg.key = normalize_key(c.topology_key);
    tg.hostname = tg.key == k_hostname_;
    tg.namespaces = {p.namespace_};
    tg.selector = with_match_label_keys(c.selector, c.match_label_keys, p);
    if (!c.selector) tg.selector.reset();
    tg.max_skew = std::max(1, c.max_skew);
    tg.min_domains = c.min_domains.value_or(0);
    tg.honor_taints = c.node_taints_policy == model::inclusion_policy::honor;
    if (c.node_affinity_policy == model::inclusion_policy::honor)
      tg.node_filter = own_filter(tg.key);
    if (tg.honor_taints) tg.tolerations = p.tolerations;
    int idx = topology_for(std::move(tg));
    if (c.when == model::when_unsatisfiable::do_not_schedule)
      required_topo.push_back(idx);
    else if (respect)
      schedule_anyway.push_back(idx);
  }
  auto affinity_group = [&](const model::pod_affinity_term& term, topology_kind kind,
                            bool required) {
    topology_group tg;
    tg.kind = kind;
    tg.required = required;
    tg.key = normalize_key(term.topology_key);
    tg.hostname = tg.key == k_hostname_;
    if (term.namespace_selector) {
      tg.all_namespaces = true;  // namespace labels are not in the snapshot: count them all
    } else if (term.namespaces.empty()) {
      tg.namespaces = {p.namespace_};
    } else {
      tg.namespaces = term.namespaces;
      std::sort(tg.namespaces.begin(), tg.namespaces.end());
    }
    if (term.selector) tg.selector = with_match_label_keys(term.selector, term.match_label_keys, p);
    return topology_for(std::move(tg));
  };
  for (const auto& term : p.pod_affinity.required)
    required_topo.push_back(affinity_group(term, topology_kind::affinity, true));
  for (const auto& term : p.pod_anti_affinity.required)
    required_topo.push_back(affinity_group(term, topology_kind::anti_affinity, true));
  if (respect) {
    for (const auto& w : p.pod_affinity.preferred)
      pref_aff.emplace_back(w.weight, affinity_group(w.term, topology_kind::affinity, false));
    for (const auto& w : p.pod_anti_affinity.preferred)
      pref_anti.emplace_back(w.weight, affinity_group(w.term, topology_kind::anti_affinity, false));
  }
  auto heaviest_first = [](auto& v) {
    std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first > b.first; });
  };
  heaviest_first(pref_aff);
  heaviest_first(pref_anti);

  // The relaxation ladder (karpenter-core.md 3.4), one step per variant.
  std::size_t terms = p.affinity.required.size();
  std::size_t term = 0, aff_drop = 0, anti_drop = 0, sa_drop = 0;
  int node_drop = respect ? 0 : 1 << 20;
  int node_prefs = static_cast<int>(p.affinity.preferred.size());
  bool tolerate = false;
  while (true) {
    variant v;
    std::string err;
    if (!compile_pod_requirements(p, term, node_drop, v.reqs, err)) {
      g.invalid = "the pod's node affinity is invalid: " + err;
      return;
    }
    v.topo = required_topo;
    for (std::size_t i = aff_drop; i < pref_aff.size(); ++i) v.topo.push_back(pref_aff[i].second);
    for (std::size_t i = anti_drop; i < pref_anti.size(); ++i)
      v.topo.push_back(pref_anti[i].second);
    for (std::size_t i = sa_drop; i < schedule_anyway.size(); ++i)
      v.topo.push_back(schedule_anyway[i]);
    v.tolerate_prefer_no_schedule = tolerate;
    g.variants.push_back(std::move(v));
    if (terms > 1 && term + 1 < terms)
      ++term;
    else if (aff_drop < pref_aff.size())
      ++aff_drop;
    else if (anti_drop < pref_anti.size())
      ++anti_drop;
    else if (respect && node_drop < node_prefs)
      ++node_drop;
    else if (sa_drop < schedule_anyway.size())
      ++sa_drop;
    else if (!tolerate && any_prefer_no_schedule_)
      tolerate = true;
    else
      break;
  }
}

namespace {

// Hash of everything that decides where a pod may go, so identical pods form one group.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
std::uint64_t hs(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}

std::uint64_t shape_hash(const model::pod& p) {
  std::uint64_t h = hs(p.namespace_);
  for (const auto& [k, v] : p.labels) h = mix(mix(h, hs(k)), hs(v));
  for (const auto* list : {&p.containers, &p.init_containers})
    for (const auto& c : *list) {
      for (const auto& [k, q] : c.requests.items()) h = mix(mix(h, hs(k)), q.milli);
      h = mix(h, c.host_ports.size() + (c.restartable ? 1000 : 0));
    }
  for (const auto& [k, v] : p.node_selector) h = mix(mix(h, hs(k)), hs(v));
  h = mix(h, p.affinity.required.size() * 7 + p.affinity.preferred.size());
  h = mix(h, p.tolerations.size() * 31 + p.topology_spread.size() * 17 + p.volumes.size());
  h = mix(h, p.pod_affinity.required.size() + p.pod_anti_affinity.required.size() * 3 +
                 p.pod_affinity.preferred.size() * 5 + p.pod_anti_affinity.preferred.size() * 11);
  for (const auto& c : p.topology_spread) h = mix(mix(h, hs(c.topology_key)), c.max_skew);
  return h;
}

bool same_shape(const model::pod& a, const model::pod& b) {
  if (a.namespace_ != b.namespace_ || a.labels != b.labels || a.overhead != b.overhead ||
      a.node_selector != b.node_selector || !(a.affinity == b.affinity) ||
      !(a.pod_affinity == b.pod_affinity) || !(a.pod_anti_affinity == b.pod_anti_affinity) ||
      a.tolerations != b.tolerations || a.topology_spread != b.topology_spread ||
      a.volumes != b.volumes || a.containers.size() != b.containers.size() ||
      a.init_containers.size() != b.init_containers.size())
    return false;
  auto same_c = [](const model::container& x, const model::container& y) {
    return x.requests == y.requests && x.host_ports == y.host_ports &&
           x.restartable == y.restartable;
  };
  for (std::size_t i = 0; i < a.containers.size(); ++i)
    if (!same_c(a.containers[i], b.containers[i])) return false;
  for (std::size_t i = 0; i < a.init_containers.size(); ++i)
    if (!same_c(a.init_containers[i], b.init_containers[i])) return false;
  // Owner DaemonSet-ness and annotations do not change placement.
  return true;
}

}  // namespace

void solver::build_groups() {
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_hash;
  by_hash.reserve(snap_.pods.size());
  for (std::uint32_t i = 0; i < snap_.pods.size(); ++i) {
    const model::pod& p = snap_.pods[i];
    auto& candidates = by_hash[shape_hash(p)];
    bool found = false;
    for (std::uint32_t gi : candidates) {
      if (same_shape(*groups_[gi].rep, p)) {
        groups_[gi].members.push_back(i);
        found = true;
        break;
      }
    }
    if (found) continue;
    candidates.push_back(static_cast<std::uint32_t>(groups_.size()));
    pod_group g;
    g.rep = &p;
    g.members.push_back(i);
    bool unknown = false;
    g.req = rt_.from(model::pod_requests(p), &unknown);
    g.req.v[2] += 1000;  // each pod takes one pod slot
    if (unknown)
      g.invalid = "the pod requests more distinct extended resources than one simulation tracks (" +
                  std::to_string(max_resources) + ")";
    g.ports = model::pod_host_ports(p);
    for (const auto& v : p.volumes) {
      if (v.csi_driver.empty() || v.claim_name.empty()) continue;
      auto vit = std::find_if(g.volumes.begin(), g.volumes.end(),
                              [&](const auto& e) { return e.first == v.csi_driver; });
      if (vit == g.volumes.end())
        g.volumes.emplace_back(v.csi_driver, 1);
      else
        ++vit->second;
    }
    groups_.push_back(std::move(g));
  }
  for (auto& g : groups_) {
    std::sort(g.members.begin(), g.members.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto& x = snap_.pods[a];
      const auto& y = snap_.pods[b];
      if (x.creation_unix_ms != y.creation_unix_ms) return x.creation_unix_ms < y.creation_unix_ms;
      return x.uid < y.uid;
    });
    g.rep = &snap_.pods[g.members.front()];
    if (g.invalid.empty()) build_variants(g);
  }
  // Existing pods with required anti-affinity keep matching pods out of their domains.
  for (const auto& shared : snap_.bound_pods)
    for (const auto& bp = *shared; const auto& term : bp.pod_anti_affinity.required) {
      topology_group tg;
      tg.kind = topology_kind::anti_affinity;
      tg.key = normalize_key(term.topology_key);
      tg.hostname = tg.key == k_hostname_;
      if (term.namespace_selector)
        tg.all_namespaces = true;
      else if (term.namespaces.empty())
        tg.namespaces = {bp.namespace_};
      else {
        tg.namespaces = term.namespaces;
        std::sort(tg.namespaces.begin(), tg.namespaces.end());
      }
      if (term.selector)
        tg.selector = with_match_label_keys(term.selector, term.match_label_keys, bp);
      bound_anti_owner_[&bp].push_back(topology_for(std::move(tg)));
    }
  for (auto& g : groups_)
    for (std::size_t ti = 0; ti < topo_.size(); ++ti)
      if (topo_[ti].selects(*g.rep)) {
        g.selected_by.push_back(static_cast<int>(ti));
        if (topo_[ti].kind == topology_kind::anti_affinity && topo_[ti].required)
          g.inverse.push_back(static_cast<int>(ti));
      }
}

void solver::build_domains() {
  // Keys used by any topology group other than hostname.
  std::vector<label_id> keys;
  for (const auto& g : topo_)
    if (!g.hostname && std::find(keys.begin(), keys.end(), g.key) == keys.end())
      keys.push_back(g.key);
  for (label_id key : keys) {
    std::vector<label_id> d;
    auto add = [&](label_id v, const std::vector<model::taint>* taints) {
      d.push_back(v);
      domain_taints_[(static_cast<std::uint64_t>(key) << 32) | v].push_back(taints);
    };
    for (const auto& tp : tmpls_) {
      const requirement* r = tp.reqs.get(key);
      if (r && !r->complement) {
        for (label_id v : r->values) add(v, &tp.taints);
        continue;
      }
      if (tp.right_sized) {
        if (key == k_zone_) {
          for (const auto& h : rs_zones_)
            if (!r || r->has(h.zone, t_)) add(h.zone, &tp.taints);
        } else if (const requirement* q = rs_reqs_.get(key); q && !q->complement) {
          for (label_id v : q->values)
            if (!r || r->has(v, t_)) add(v, &tp.taints);
        }
      }
      for (std::uint16_t ti : tp.types) {
        const itype& ty = types_[ti];
        if (key == k_zone_ || key == k_ct_) {
          for (const auto& o : ty.offerings)
            if (o.available && (!r || r->has(key == k_zone_ ? o.zone : o.capacity_type, t_)))
              add(key == k_zone_ ? o.zone : o.capacity_type, &tp.taints);
        } else if (const requirement* q = ty.reqs.get(key); q && !q->complement) {
          for (label_id v : q->values)
            if (!r || r->has(v, t_)) add(v, &tp.taints);
        }
      }
    }
    for (std::size_t si = 0; si < first_fresh_; ++si) {
      const requirement* r = slots_[si].reqs.get(key);
      if (r && r->is_single()) add(r->values[0], &slots_[si].taints);
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    for (auto& [k, v] : domain_taints_) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    universe_[key] = std::move(d);
  }
  for (auto& g : topo_) {
    if (g.hostname || g.kind != topology_kind::spread) continue;
    for (label_id d : universe_[g.key]) {
      if (g.node_filter && !g.node_filter->has(d, t_)) continue;
      if (g.honor_taints) {
        bool ok = false;
        for (const auto* taints : domain_taints_[(static_cast<std::uint64_t>(g.key) << 32) | d])
          if (!model::first_untolerated(g.tolerations, *taints)) ok = true;
        if (!ok) continue;
      }
      g.eligible.push_back(d);
    }
  }
}

void solver::seed_counts() {
  if (topo_.empty()) return;
  std::unordered_map<std::string_view, std::size_t> slot_of;
  for (std::size_t si = 0; si < first_fresh_; ++si) slot_of[slots_[si].name] = si;
  // Running pods repeat a few label sets: match each set against the groups once.
  std::unordered_map<std::string, std::vector<int>> selected_by;
  std::string key;
  for (const auto& shared : snap_.bound_pods) {
    const auto& bp = *shared;
    if (bp.node_name.empty() || model::is_terminal(bp) || bp.terminating) continue;
    auto it = slot_of.find(bp.node_name);
    if (it == slot_of.end()) continue;
    std::size_t si = it->second;
    key = bp.namespace_;
    for (const auto& [k, v] : bp.labels) {
      key += '\0';
      key += k;
      key += '=';
      key += v;
    }
    auto [sel, fresh] = selected_by.try_emplace(key);
    if (fresh)
      for (std::size_t gi = 0; gi < topo_.size(); ++gi)
        if (topo_[gi].selects(bp)) sel->second.push_back(static_cast<int>(gi));
    auto domain = [&](const topology_group& g) -> label_id {
      const requirement* r = slots_[si].reqs.get(g.key);
      return r && r->is_single() ? r->values[0] : no_label;
    };
    for (int gi : sel->second) {
      topology_group& g = topo_[static_cast<std::size_t>(gi)];
      if (g.hostname)
        g.record_host(si);
      else if (label_id d = domain(g); d != no_label)
        g.record(d);
    }
    if (auto owned = bound_anti_owner_.find(&bp); owned != bound_anti_owner_.end())
      for (int gi : owned->second) {
        topology_group& g = topo_[static_cast<std::size_t>(gi)];
        if (g.hostname)
          g.record_owner_host(si);
        else if (label_id d = domain(g); d != no_label)
          g.record_owner(d);
      }
  }
}

}  // namespace kp::scheduling::detail
