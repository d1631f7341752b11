#include "core/disruption/planner.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "core/disruption/conservative.hpp"
#include "core/disruption/simulation.hpp"
#include "core/scheduling/static_capacity.hpp"

namespace kp::disruption {
namespace {

std::string money(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i == 5) return out + ", ... (" + std::to_string(names.size()) + " in all)";
    if (i) out += ", ";
    out += names[i];
  }
  return out;
}

const model::nodepool* pool_of(const cluster& c, const std::string& name) {
  for (const auto& np : c.state.nodepools)
    if (np.name == name) return &np;
  return nullptr;
}

std::string policy_of(const cluster& c, const std::string& pool) {
  const auto* np = pool_of(c, pool);
  return np ? np->disruption.consolidation_policy : std::string("WhenEmptyOrUnderutilized");
}

// The one replacement of a drifted node of static NodePool `np`, or nullopt with `why`: none
// while the pool is scaling down, limits.nodes leaves no room, or static capacity is off.
std::optional<scheduling::planned_nodeclaim> static_replacement(const cluster& c,
                                                                const model::nodepool& np,
                                                                const planner_options& opts,
                                                                std::string& why) {
  if (!opts.static_capacity) {
    why = "the StaticCapacity feature gate is off";
    return std::nullopt;
  }
  auto count = scheduling::count_static_pool(c.state, np.name);
  if (count.running + count.pending_disruption > *np.replicas) {
    why = "static NodePool " + np.name + " is scaling down to " + std::to_string(*np.replicas);
    return std::nullopt;
  }
  if (auto room = scheduling::node_limit_room(c.state, np); room && *room <= 0) {
    why = "limits.nodes of NodePool " + np.name + " leaves no room for a replacement";
    return std::nullopt;
  }
  return scheduling::static_nodeclaim(c.state, np.name, opts.scheduling, why);
}

double savings_ratio(const candidate& k) {
  return k.price / k.reschedule_cost;
}

// Highest savings ratio first; ties by name so that every pass sees the same order.
void sort_by_savings(std::vector<std::size_t>& idx, const candidate_set& cs) {
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    double ra = savings_ratio(cs.all[a]), rb = savings_ratio(cs.all[b]);
    if (ra != rb) return ra > rb;
    return cs.all[a].name < cs.all[b].name;
  });
}

command base_command(command_reason why, const cluster& c, const candidate_set& cs,
                     const std::vector<std::size_t>& batch) {
  command cmd;
  cmd.why = why;
  for (auto b : batch) {
    cmd.nodes.push_back(cs.all[b].name);
    cmd.nodeclaims.push_back(c.state.nodeclaims[cs.all[b].nodeclaim]->name);
  }
  return cmd;
}

std::string type_name(const cluster& c, const scheduling::planned_nodeclaim& nc) {
  auto options = scheduling::instance_type_options(nc, c.state);
  return options.empty() ? std::string("?") : options.front()->name;
}

// Per-pass facts the consolidation methods share.
struct pass {
  const cluster& c;
  const candidate_set& cs;
  const planner_options& opts;
  headroom_state headroom;
  std::size_t* simulations = nullptr;
};

// What scoring said about one move, per source NodePool.
struct evaluation {
  bool approved = true;
  std::vector<scored_move> per_pool;
};

// Balanced (balanced.go EvaluateBalancedMove): every source pool with that policy scores its
// share of the move against its own totals and must approve; other policies pass through. Net
// savings are split by each pool's share of the candidates' price when pools are mixed.
evaluation evaluate_move(const pass& p, const std::vector<std::size_t>& batch, double savings,
                         bool multi, std::string& why) {
  double total_price = 0;
  std::map<std::string, std::pair<double, double>> per_pool;  // price, disruption cost
  std::map<std::string, std::vector<std::string>> nodes;
  for (auto b : batch) {
    const auto& k = p.cs.all[b];
    total_price += k.price;
    auto& e = per_pool[k.nodepool];
    e.first += k.price;
    e.second += k.reschedule_cost;
    nodes[k.nodepool].push_back(k.name);
  }
  evaluation out;
  for (const auto& [pool, e] : per_pool) {
    scored_move m;
    m.nodepool = pool;
    m.policy = policy_of(p.c, pool);
    m.consolidation_type = multi ? "multi" : "single";
    m.nodes = nodes[pool];
    if (m.policy == "Balanced") {
      double pool_savings = savings;
      if (per_pool.size() > 1 && total_price > 0) pool_savings = savings * e.first / total_price;
      auto it = p.cs.totals.find(pool);
      m.score = score_move(pool_savings, e.second,
                           it == p.cs.totals.end() ? pool_totals{} : it->second, p.opts.balanced_k);
      if (!m.score->approved()) {
        out.approved = false;
        if (why.empty())
          why = "the Balanced policy of NodePool " + pool + " rejects the move (" +
                m.score->describe() + ")";
      }
    }
    out.per_pool.push_back(std::move(m));
  }
  for (auto& m : out.per_pool) m.approved = out.approved;
  return out;
}

// The most cpu and memory an f1 type cheaper than `price` could offer (an upper bound: a size
// may have either the most vCPUs or the most memory the budget and some host allow).
void right_sized_bound(const instance_types::right_sized_offer& offer, double price,
                       std::int64_t& cpu_milli, std::int64_t& memory_milli) {
  constexpr std::int64_t step = instance_types::right_sized_memory_step_mib;
  using instance_types::right_sized_price;
  const double per_vcpu = right_sized_price({2, step}) - right_sized_price({1, step});
  const double per_step = right_sized_price({1, 2 * step}) - right_sized_price({1, step});
  const double spare_cpu = price - right_sized_price({0, step});
  const double spare_mem = price - right_sized_price({1, 0});
  if (spare_cpu <= 0 || spare_mem <= 0) return;
  for (const auto& z : offer.zones) {
    if (!z.schedulable) continue;
    std::int64_t vcpus = std::min({z.free_cpus, instance_types::right_sized_max_vcpus,
                                   static_cast<std::int64_t>(spare_cpu / per_vcpu) + 1});
    while (vcpus > 0 && right_sized_price({vcpus, step}) >= price) --vcpus;
    std::int64_t mib = std::min({z.free_memory_bytes / (1024 * 1024) / step * step,
                                 instance_types::right_sized_max_memory_mib,
                                 static_cast<std::int64_t>(spare_mem / per_step) * step});
    if (vcpus > 0)
      cpu_milli = std::max(cpu_milli, instance_types::right_sized_allocatable_cpu_milli(vcpus));
    if (mib >= step)
      memory_milli = std::max(memory_milli, instance_types::right_sized_allocatable_memory_bytes(
                                                mib, offer.memory_overhead_percent) *
                                                1000);
  }
}

// Quick necessary condition before a simulation: the batch's requests must fit into the free
// room of the other nodes plus the largest instance type cheaper than the batch. Well-packed
// clusters fail it at once, which keeps a pass over 1,000 stable nodes cheap.
bool could_consolidate(const pass& p, const std::vector<std::size_t>& batch) {
  std::int64_t cpu = 0, mem = 0;
  std::int64_t min_cpu = std::numeric_limits<std::int64_t>::max(), min_mem = min_cpu;
  std::int64_t max_cpu = 0, max_mem = 0;
  double price = 0;
  std::set<std::size_t> in_batch;
  for (auto b : batch) {
    const auto& k = p.cs.all[b];
    price += k.price;
    in_batch.insert(k.node);
    for (auto pi : k.pods) {
      auto r = model::pod_requests(*p.c.state.bound_pods[pi]);
      auto rc = r.milli(model::resource_names::cpu), rm = r.milli(model::resource_names::memory);
      cpu += rc;
      mem += rm;
      min_cpu = std::min(min_cpu, rc);
      min_mem = std::min(min_mem, rm);
      max_cpu = std::max(max_cpu, rc);
      max_mem = std::max(max_mem, rm);
    }
  }
  // Only room that can hold at least the smallest of the pods counts: a fragment too small for
  // every pod is no room at all (this is what makes well-packed clusters fail fast).
  std::int64_t free_cpu = 0, free_mem = 0, roomiest_cpu = 0, roomiest_mem = 0;
  for (std::size_t n = 0; n < p.headroom.node_free.size(); ++n) {
    auto [fc, fm] = p.headroom.node_free[n];
    if (fc < min_cpu || fm < min_mem || in_batch.contains(n)) continue;
    free_cpu += fc;
    free_mem += fm;
    roomiest_cpu = std::max(roomiest_cpu, fc);
    roomiest_mem = std::max(roomiest_mem, fm);
  }
  std::int64_t best_cpu = 0, best_mem = 0;
  right_sized_bound(p.c.state.right_sized, price, best_cpu, best_mem);
  for (const auto& t : p.c.state.instance_types) {
    double cheapest = std::numeric_limits<double>::max();
    for (const auto& o : t.offerings)
      if (o.available) cheapest = std::min(cheapest, o.price);
    if (cheapest >= price) continue;
    auto a = t.allocatable();
    best_cpu = std::max(best_cpu, a.milli(model::resource_names::cpu));
    best_mem = std::max(best_mem, a.milli(model::resource_names::memory));
  }
  // The largest pod must also fit somewhere on its own.
  if (max_cpu > std::max(roomiest_cpu, best_cpu) || max_mem > std::max(roomiest_mem, best_mem))
    return false;
  return cpu <= free_cpu + best_cpu && mem <= free_mem + best_mem;
}

// computeConsolidation (5.5) for one batch; nullopt with `why` when it is not a valid move.
// `scored` receives the scoring of a move that got that far (approved or not).
std::optional<command> consolidate(const pass& p, const std::vector<std::size_t>& batch, bool multi,
                                   std::string& why, std::optional<evaluation>& scored) {
  if (!could_consolidate(p, batch)) {
    why = "its pods do not fit on other nodes and no cheaper instance type could hold them";
    return std::nullopt;
  }
  ++*p.simulations;
  auto sim = simulate(p.c, p.cs, batch, p.opts.scheduling);
  if (!sim.ok) {
    why = sim.failure;
    return std::nullopt;
  }
  if (sim.new_nodeclaims.size() > 1) {
    why = "its pods would need " + std::to_string(sim.new_nodeclaims.size()) +
          " new nodes (only many-to-one replacements are made)";
    return std::nullopt;
  }
  auto cmd = base_command(command_reason::underutilized, p.c, p.cs, batch);
  double total = 0;
  for (auto b : batch) total += p.cs.all[b].price;
  if (sim.new_nodeclaims.empty()) {
    cmd.savings = total;
  } else {
    auto nc = std::move(sim.new_nodeclaims.front());
    // Strictly cheaper than the sum priced at the worst offering; and, when a candidate already
    // has a type the replacement could be, cheaper than that candidate (else deleting the
    // others is the better move: filterOutSameInstanceType).
    double limit = total;
    for (auto b : batch)
      for (const auto* t : scheduling::instance_type_options(nc, p.c.state))
        if (t->name == p.cs.all[b].instance_type) limit = std::min(limit, p.cs.all[b].price);
    std::vector<std::uint16_t> cheaper;
    std::size_t rank = 0;  // the right-sized option's place among those kept
    for (std::size_t k = 0; k < nc.instance_types.size(); ++k) {
      auto t = nc.instance_types[k];
      double worst = worst_launch_price(p.c.state.instance_types[t], nc);
      if (worst >= 0 && worst < limit) {
        cheaper.push_back(t);
        if (k < nc.right_sized_rank) ++rank;
      }
    }
    // A right-sized (f1) replacement is one more option, sized to the pods it takes.
    if (nc.right_sized) {
      double worst = worst_launch_price(*nc.right_sized, nc);
      if (worst >= 0 && worst < limit)
        nc.right_sized_rank = rank;
      else
        nc.right_sized.reset();
    }
    if (cheaper.empty() && !nc.right_sized) {
      why = "no replacement is cheaper than " + money(limit) + " at its worst-case offering";
      return std::nullopt;
    }
    nc.instance_types = std::move(cheaper);
    double best = std::numeric_limits<double>::max();
    for (const auto* t : scheduling::instance_type_options(nc, p.c.state))
      best = std::min(best, worst_launch_price(*t, nc));
    nc.price = best;
    cmd.savings = total - best;
    cmd.replacements.push_back(std::move(nc));
  }
  scored = evaluate_move(p, batch, cmd.savings, multi, why);
  if (!scored->approved) return std::nullopt;
  if (p.opts.conservative &&
      !headroom_allows(p.headroom, p.c, p.cs, batch, cmd, *p.opts.conservative, why))
    return std::nullopt;
  if (cmd.replacements.empty())
    cmd.decision = "delete " + std::to_string(batch.size()) + " underutilized node(s) (" +
                   join_names(cmd.nodes) + "): their pods fit on other nodes; saving " +
                   money(cmd.savings) + "/h";
  else
    cmd.decision = std::string(multi ? "merge " : "replace ") + std::to_string(batch.size()) +
                   " underutilized node(s) (" + join_names(cmd.nodes) + ", " + money(total) +
                   "/h) into one " + type_name(p.c, cmd.replacements.front()) + " (" +
                   money(cmd.replacements.front().price) + "/h at worst); saving " +
                   money(cmd.savings) + "/h";
  return cmd;
}

}  // namespace

std::string_view to_string(command_reason r) {
  switch (r) {
    case command_reason::empty:
      return "Empty";
    case command_reason::drifted:
      return "Drifted";
    case command_reason::underutilized:
      return "Underutilized";
    case command_reason::expired:
      return "Expired";
  }
  return "Unknown";
}

plan plan_disruption(const cluster& c, const planner_options& opts) {
  return plan_disruption(c, find_candidates(c), opts);
}

plan plan_disruption(const cluster& c, const candidate_set& cs, const planner_options& opts) {
  plan out;
  out.restamps = cs.restamps;
  out.not_disrupted = cs.not_disrupted;
  out.warnings = cs.warnings;
  auto say = [&](const candidate& k, std::string why) {
    out.not_disrupted.push_back({k.name, std::move(why)});
  };

  // Expiration (4.3): forceful, neither budgets nor do-not-disrupt hold it back; the pods'
  // new home is simulated so that the replacement can be launched at once.
  std::set<std::size_t> expired;
  for (std::size_t i = 0; i < cs.all.size(); ++i) {
    if (!cs.all[i].expired) continue;
    expired.insert(i);
    auto cmd = base_command(command_reason::expired, c, cs, {i});
    ++out.simulations;
    auto sim = simulate(c, cs, {i}, opts.scheduling);
    cmd.replacements = std::move(sim.new_nodeclaims);
    cmd.decision =
        "delete expired node " + cs.all[i].name + " (expireAfter elapsed)" +
        (cmd.replacements.empty()
             ? std::string(", its pods fit on other nodes")
             : ", replaced by " + std::to_string(cmd.replacements.size()) +
                   " new node(s) starting with " + type_name(c, cmd.replacements.front()));
    if (!sim.ok) cmd.decision += " (" + sim.failure + ")";
    out.expirations.push_back(std::move(cmd));
  }

  pass p{c, cs, opts, headroom_state{}, &out.simulations};
  p.headroom = measure_headroom(c, cs);
  std::string stabilizing;
  if (opts.conservative) stabilizing = stabilization_block(c, cs, *opts.conservative);

  // Graceful candidates: not blocked, not expiring, old enough in conservative mode.
  auto graceful = [&](std::size_t i, bool scale_down) {
    const auto& k = cs.all[i];
    if (!k.blocked.empty() || expired.contains(i)) return false;
    if (scale_down && opts.conservative) {
      if (!stabilizing.empty()) return false;
      if (auto why = min_age_block(c, k, *opts.conservative); !why.empty()) {
        say(k, why);
        return false;
      }
    }
    return true;
  };
  if (!stabilizing.empty())
    for (const auto& k : cs.all)
      if (k.blocked.empty()) say(k, stabilizing);

  std::map<std::string, int, std::less<>> left;
  auto budget_left = [&](const std::string& pool, reason r) {
    return cs.pools.at(pool).allowed(r, c.now);
  };
  // " (budget: 3 of 10 nodes, 3 being disrupted)": the figures behind a budget refusal.
  auto budget_figures = [&](const std::string& pool, reason r) {
    const auto& ps = cs.pools.at(pool);
    const int total_allowed =
        std::min(allowed_disruptions(ps.budgets, r, ps.total, 0, c.now), ps.total);
    return " (budget: " + std::to_string(total_allowed) + " of " + std::to_string(ps.total) +
           " nodes, " + std::to_string(ps.disrupting) + " being disrupted)";
  };

  // 1. Emptiness (5.3).
  {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < cs.all.size(); ++i)
      if (cs.all[i].empty && cs.all[i].consolidatable && graceful(i, true)) idx.push_back(i);
    sort_by_savings(idx, cs);
    std::vector<std::size_t> take;
    std::map<std::string, int, std::less<>> allowed;
    double saved = 0;
    auto room = p.headroom;
    for (auto i : idx) {
      if (take.size() >= opts.empty_max) break;
      const auto& k = cs.all[i];
      auto it = allowed.find(k.nodepool);
      if (it == allowed.end())
        it = allowed.emplace(k.nodepool, budget_left(k.nodepool, reason::empty)).first;
      if (it->second <= 0) {
        say(k, "the disruption budget of NodePool " + k.nodepool +
                   " allows no more Empty disruptions now" +
                   budget_figures(k.nodepool, reason::empty));
        continue;
      }
      if (opts.conservative) {
        std::string why;
        command probe;
        if (!headroom_allows(room, c, cs, {i}, probe, *opts.conservative, why)) {
          say(k, why);
          continue;
        }
        remove_from_headroom(room, c, cs, i);
      }
      --it->second;
      take.push_back(i);
      saved += k.price;
    }
    if (!take.empty()) {
      auto cmd = base_command(command_reason::empty, c, cs, take);
      cmd.savings = saved;
      cmd.decision = "delete " + std::to_string(take.size()) + " empty node(s) (" +
                     join_names(cmd.nodes) + "); saving " + money(saved) + "/h";
      out.method = "emptiness";
      out.commands.push_back(std::move(cmd));
      return out;
    }
  }

  // 2. Drift (5.4): one command per pass, empty nodes first, then oldest.
  {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < cs.all.size(); ++i)
      if (!cs.all[i].drift.empty() && graceful(i, false)) idx.push_back(i);
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const auto &x = cs.all[a], &y = cs.all[b];
      if (x.empty != y.empty) return x.empty;
      if (x.created_unix_ms != y.created_unix_ms) return x.created_unix_ms < y.created_unix_ms;
      return x.name < y.name;
    });
    for (auto i : idx) {
      const auto& k = cs.all[i];
      if (budget_left(k.nodepool, reason::drifted) <= 0) {
        say(k, "drifted (" + k.drift + ") but the disruption budget of NodePool " + k.nodepool +
                   " allows no more Drifted disruptions now" +
                   budget_figures(k.nodepool, reason::drifted));
        continue;
      }
      if (const auto* np = pool_of(c, k.nodepool); np && np->replicas) {
        // Karpenter's StaticDrift: one-for-one from the pool's template, pods not simulated.
        std::string why;
        auto replacement = static_replacement(c, *np, opts, why);
        if (!replacement) {
          say(k, "drifted (" + k.drift + ") but " + why);
          continue;
        }
        auto cmd = base_command(command_reason::drifted, c, cs, {i});
        cmd.replacements.push_back(std::move(*replacement));
        cmd.decision = "replace drifted node " + k.name + " (" + k.drift + ") of static NodePool " +
                       k.nodepool + " with one new node";
        out.method = "drift";
        out.commands.push_back(std::move(cmd));
        return out;
      }
      ++out.simulations;
      auto sim = simulate(c, cs, {i}, opts.scheduling);
      if (!sim.ok) {
        say(k, "drifted (" + k.drift + ") but " + sim.failure);
        continue;
      }
      auto cmd = base_command(command_reason::drifted, c, cs, {i});
      cmd.replacements = std::move(sim.new_nodeclaims);
      cmd.decision =
          "replace drifted node " + k.name + " (" + k.drift + ")" +
          (cmd.replacements.empty()
               ? std::string(": its pods fit on other nodes")
               : " with " + std::to_string(cmd.replacements.size()) +
                     " new node(s) starting with " + type_name(c, cmd.replacements.front()));
      out.method = "drift";
      out.commands.push_back(std::move(cmd));
      return out;
    }
  }

  // Consolidation candidates (5.5): not empty (emptiness owns those), consolidatable, policy
  // not WhenEmpty, known price.
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < cs.all.size(); ++i) {
    const auto& k = cs.all[i];
    if (k.empty || !k.consolidatable || k.price <= 0) continue;
    if (policy_of(c, k.nodepool) == "WhenEmpty") continue;
    if (graceful(i, true)) idx.push_back(i);
  }
  sort_by_savings(idx, cs);

  // 3. Multi-node consolidation (5.6): budget pre-filter, then binary search over the prefix.
  {
    std::vector<std::size_t> batchable;
    std::map<std::string, int, std::less<>> allowed;
    for (auto i : idx) {
      const auto& k = cs.all[i];
      auto it = allowed.find(k.nodepool);
      if (it == allowed.end())
        it = allowed.emplace(k.nodepool, budget_left(k.nodepool, reason::underutilized)).first;
      if (it->second <= 0) continue;
      --it->second;
      batchable.push_back(i);
    }
    if (batchable.size() >= 2) {
      std::size_t lo = 1, hi = std::min(batchable.size() - 1, opts.multi_node_max);
      std::optional<command> best;
      std::optional<evaluation> best_scored, last_rejected;
      while (lo <= hi) {
        std::size_t mid = (lo + hi) / 2;
        std::vector<std::size_t> batch(batchable.begin(), batchable.begin() + mid + 1);
        std::string why;
        std::optional<evaluation> scored;
        if (auto cmd = consolidate(p, batch, true, why, scored)) {
          best = std::move(cmd);
          best_scored = std::move(scored);
          lo = mid + 1;
        } else {
          if (scored && !scored->approved) last_rejected = std::move(scored);
          if (mid == 0) break;
          hi = mid - 1;
        }
      }
      // Counted once per search, as Karpenter does: the move made, or else the last rejection.
      if (best && best_scored)
        for (auto& m : best_scored->per_pool) out.scored.push_back(std::move(m));
      else if (!best && last_rejected)
        for (auto& m : last_rejected->per_pool) out.scored.push_back(std::move(m));
      if (best) {
        out.method = "multi-node";
        out.commands.push_back(std::move(*best));
        return out;
      }
    }
  }

  // 4. Single-node consolidation (5.7): round-robin across NodePools, first valid move wins.
  {
    std::map<std::string, std::vector<std::size_t>, std::less<>> by_pool;
    std::vector<std::string> pool_order;
    for (auto i : idx) {
      auto& v = by_pool[cs.all[i].nodepool];
      if (v.empty()) pool_order.push_back(cs.all[i].nodepool);
      v.push_back(i);
    }
    std::vector<std::size_t> order;
    for (std::size_t round = 0; order.size() < idx.size(); ++round)
      for (const auto& pool : pool_order)
        if (round < by_pool[pool].size()) order.push_back(by_pool[pool][round]);
    if (!order.empty())
      std::rotate(
          order.begin(),
          order.begin() + static_cast<std::ptrdiff_t>(opts.single_node_start % order.size()),
          order.end());
    const std::size_t sims_before = out.simulations;
    for (auto i : order) {
      const auto& k = cs.all[i];
      if (out.simulations - sims_before >= opts.single_node_max_simulations) break;
      ++out.single_node_evaluated;
      if (budget_left(k.nodepool, reason::underutilized) <= 0) {
        say(k, "the disruption budget of NodePool " + k.nodepool +
                   " allows no more Underutilized disruptions now" +
                   budget_figures(k.nodepool, reason::underutilized));
        continue;
      }
      // Deleting the node outright is the best score any move of it can reach: when even that
      // fails the Balanced threshold, no simulation is spent (CanPassThreshold).
      if (policy_of(c, k.nodepool) == "Balanced") {
        auto it = cs.totals.find(k.nodepool);
        if (it != cs.totals.end() && it->second.cost > 0) {
          auto best = score_move(k.price, k.reschedule_cost, it->second, opts.balanced_k);
          if (!best.approved()) {
            say(k, "not consolidated: even deleting it fails the Balanced policy of NodePool " +
                       k.nodepool + " (" + best.describe() + ")");
            continue;
          }
        }
      }
      std::string why;
      std::optional<evaluation> scored;
      auto cmd = consolidate(p, {i}, false, why, scored);
      if (scored)
        for (auto& m : scored->per_pool) out.scored.push_back(std::move(m));
      if (cmd) {
        out.method = "single-node";
        out.commands.push_back(std::move(*cmd));
        return out;
      }
      say(k, "not consolidated: " + why);
    }
  }
  return out;
}

result<command> validate(const command& cmd, const cluster& newer, const planner_options& opts) {
  auto cs = find_candidates(newer);
  std::map<std::string, std::size_t, std::less<>> by_name;
  for (std::size_t i = 0; i < cs.all.size(); ++i) by_name[cs.all[i].name] = i;

  std::vector<std::size_t> batch;
  for (const auto& n : cmd.nodes) {
    auto it = by_name.find(n);
    bool still = it != by_name.end();
    if (still) {
      const auto& k = cs.all[it->second];
      switch (cmd.why) {
        case command_reason::expired:
          still = k.expired;
          break;
        case command_reason::empty:
          still = k.blocked.empty() && k.empty && k.consolidatable;
          break;
        case command_reason::drifted:
          still = k.blocked.empty() && !k.drift.empty();
          break;
        case command_reason::underutilized:
          still = k.blocked.empty() && !k.empty && k.consolidatable;
          break;
      }
    }
    if (still) {
      batch.push_back(it->second);
    } else if (cmd.why != command_reason::empty) {
      return make_error("churn", "node " + n + " is no longer a candidate for " +
                                     std::string(to_string(cmd.why)));
    }
  }
  if (batch.empty()) return make_error("churn", "none of the nodes is still a candidate");
  if (cmd.why == command_reason::expired) return cmd;

  // Budgets again: the command's nodes are not counted as disrupting yet.
  reason r = cmd.why == command_reason::empty     ? reason::empty
             : cmd.why == command_reason::drifted ? reason::drifted
                                                  : reason::underutilized;
  std::map<std::string, int, std::less<>> allowed;
  std::vector<std::size_t> kept;
  for (auto b : batch) {
    const auto& pool = cs.all[b].nodepool;
    auto it = allowed.find(pool);
    if (it == allowed.end())
      it = allowed.emplace(pool, cs.pools.at(pool).allowed(r, newer.now)).first;
    if (it->second <= 0) {
      if (cmd.why != command_reason::empty)
        return make_error("budget", "the disruption budget of NodePool " + pool +
                                        " no longer allows " + std::string(to_string(cmd.why)) +
                                        " disruptions");
      continue;
    }
    --it->second;
    kept.push_back(b);
  }
  if (kept.empty())
    return make_error("budget", "the disruption budgets no longer allow any of the nodes");
  auto out = base_command(cmd.why, newer, cs, kept);
  out.savings = cmd.savings;
  out.decision = cmd.decision;
  out.replacements = cmd.replacements;
  if (cmd.why == command_reason::empty) {
    if (kept.size() != cmd.nodes.size())
      out.decision +=
          " (" + std::to_string(cmd.nodes.size() - kept.size()) + " dropped at validation)";
    return out;
  }

  if (const auto* np = pool_of(newer, cs.all[kept.front()].nodepool);
      cmd.why == command_reason::drifted && np && np->replicas) {
    std::string why;
    if (!static_replacement(newer, *np, opts, why)) return make_error("scheduling", why);
    return out;
  }
  auto sim = simulate(newer, cs, kept, opts.scheduling);
  if (!sim.ok) return make_error("scheduling", sim.failure);
  if (cmd.why == command_reason::drifted) {
    out.replacements = std::move(sim.new_nodeclaims);
    return out;
  }
  if (cmd.replacements.empty()) {
    if (!sim.new_nodeclaims.empty())
      return make_error("scheduling", "deleting the nodes would now need a new node");
    return out;
  }
  if (sim.new_nodeclaims.size() != 1)
    return make_error("scheduling", "the move would now need " +
                                        std::to_string(sim.new_nodeclaims.size()) + " new nodes");
  // The command's instance types must still all be possible (no price filtering here).
  const auto& now = sim.new_nodeclaims.front();
  std::set<std::string> now_possible;
  for (auto t : now.instance_types) now_possible.insert(newer.state.instance_types[t].name);
  const std::string no_longer = "the replacement's instance types no longer fit the pods";
  for (const auto& rep : cmd.replacements) {
    for (auto t : rep.instance_types)
      if (t >= newer.state.instance_types.size() ||
          !now_possible.contains(newer.state.instance_types[t].name))
        return make_error("scheduling", no_longer);
    // A right-sized replacement still fits when the pods now need no larger a size.
    if (rep.right_sized) {
      auto planned = instance_types::parse_right_sized_name(rep.right_sized->name);
      auto needed = now.right_sized
                        ? instance_types::parse_right_sized_name(now.right_sized->name)
                        : result<instance_types::vm_size>(make_error("scheduling", no_longer));
      if (!planned || !needed || needed->vcpus > planned->vcpus ||
          needed->memory_mib > planned->memory_mib)
        return make_error("scheduling", no_longer);
    }
  }
  return out;
}

}  // namespace kp::disruption
