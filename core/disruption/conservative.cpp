#include "core/disruption/conservative.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/time/go_duration.hpp"

namespace kp::disruption {
namespace {

namespace rn = model::resource_names;

std::int64_t now_ms(const cluster& c) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(c.now.time_since_epoch()).count();
}

std::string go(std::chrono::seconds s) {
  return time::format_go_duration(s);
}

}  // namespace

planner_options conservative_mode(const conservative_settings& s, planner_options base) {
  base.conservative = s;
  base.multi_node_max = 0;
  base.empty_max = 1;
  return base;
}

headroom_state measure_headroom(const cluster& c, const candidate_set& cs) {
  const auto& st = c.state;
  headroom_state h;
  h.node_free.assign(st.nodes.size(), {0, 0});
  h.node_allocatable.assign(st.nodes.size(), {0, 0});
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    const auto& n = *st.nodes[i];
    if (!n.ready || n.terminating) continue;
    std::int64_t cpu = n.allocatable.milli(rn::cpu), mem = n.allocatable.milli(rn::memory);
    h.node_allocatable[i] = {cpu, mem};
    h.allocatable_cpu_milli += cpu;
    h.allocatable_memory_milli += mem;
    std::int64_t rc = 0, rm = 0;
    if (auto it = cs.pods_by_node.find(n.name); it != cs.pods_by_node.end())
      for (auto pi : it->second) {
        const auto& p = *st.bound_pods[pi];
        if (model::is_terminal(p)) continue;
        auto r = model::pod_requests(p);
        rc += r.milli(rn::cpu);
        rm += r.milli(rn::memory);
      }
    h.requested_cpu_milli += rc;
    h.requested_memory_milli += rm;
    if (n.unschedulable) continue;
    h.node_free[i] = {std::max<std::int64_t>(0, cpu - rc), std::max<std::int64_t>(0, mem - rm)};
    h.free_cpu_milli += h.node_free[i].first;
    h.free_memory_milli += h.node_free[i].second;
  }
  return h;
}

std::pair<std::int64_t, std::int64_t> node_free(const headroom_state& h, std::size_t node) {
  return node < h.node_free.size() ? h.node_free[node]
                                   : std::pair<std::int64_t, std::int64_t>{0, 0};
}

bool headroom_allows(const headroom_state& h, const cluster& c, const candidate_set& cs,
                     const std::vector<std::size_t>& batch, const command& cmd,
                     const conservative_settings& s, std::string& why) {
  std::int64_t cpu = h.allocatable_cpu_milli, mem = h.allocatable_memory_milli;
  for (auto b : batch) {
    const auto& a = h.node_allocatable[cs.all[b].node];
    cpu -= a.first;
    mem -= a.second;
  }
  for (const auto& r : cmd.replacements)
    if (auto options = scheduling::instance_type_options(r, c.state); !options.empty()) {
      auto a = options.front()->allocatable();
      cpu += a.milli(rn::cpu);
      mem += a.milli(rn::memory);
    }
  auto accept = [&](std::int64_t requested, std::int64_t after) {
    if (requested == 0) return true;
    return static_cast<double>(requested) * (1.0 + s.load_headroom) < static_cast<double>(after);
  };
  if (accept(h.requested_cpu_milli, cpu) && accept(h.requested_memory_milli, mem)) return true;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "load headroom: after removal requests (cpu %.2f, memory %.2fGi) x %.2f would not "
                "stay below allocatable (cpu %.2f, memory %.2fGi)",
                h.requested_cpu_milli / 1000.0, h.requested_memory_milli / 1000.0 / (1 << 30),
                1.0 + s.load_headroom, cpu / 1000.0, mem / 1000.0 / (1 << 30));
  why = buf;
  return false;
}

void remove_from_headroom(headroom_state& h, const cluster&, const candidate_set& cs,
                          std::size_t candidate) {
  const auto& a = h.node_allocatable[cs.all[candidate].node];
  h.allocatable_cpu_milli -= a.first;
  h.allocatable_memory_milli -= a.second;
}

std::string stabilization_block(const cluster& c, const candidate_set& cs,
                                const conservative_settings& s) {
  const auto window =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.stabilization).count();
  std::set<std::string> managed;
  for (const auto& nc : c.state.nodeclaims)
    if (!nc->node_name.empty()) managed.insert(nc->node_name);
  (void)cs;
  for (const auto& shared : c.state.nodes)
    if (const auto& n = *shared;
        n.ready && managed.contains(n.name) && now_ms(c) - n.creation_unix_ms < window)
      return "scale-down stabilization: node " + n.name + " was created less than " +
             go(s.stabilization) + " ago";
  return {};
}

std::string min_age_block(const cluster& c, const candidate& k, const conservative_settings& s) {
  const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(s.min_node_age).count();
  if (now_ms(c) - k.created_unix_ms < age)
    return "younger than the minimum node age " + go(s.min_node_age);
  return {};
}

}  // namespace kp::disruption
