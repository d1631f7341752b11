#include "core/scheduling/topology.hpp"

#include <algorithm>
#include <limits>

namespace kp::scheduling {

bool topology_group::selects(const model::pod& p) const {
  if (!selector) return false;
  if (!all_namespaces && !std::binary_search(namespaces.begin(), namespaces.end(), p.namespace_))
    return false;
  return model::matches(*selector, p.labels);
}

std::int32_t topology_group::count(label_id domain) const {
  auto it = std::lower_bound(counts.begin(), counts.end(), domain,
                             [](const auto& c, label_id d) { return c.first < d; });
  return it != counts.end() && it->first == domain ? it->second : 0;
}

void topology_group::record(label_id domain) {
  auto it = std::lower_bound(counts.begin(), counts.end(), domain,
                             [](const auto& c, label_id d) { return c.first < d; });
  if (it != counts.end() && it->first == domain)
    ++it->second;
  else
    counts.insert(it, {domain, 1});
  ++total;
}

void topology_group::record_host(std::size_t slot) {
  if (host_counts.size() <= slot) host_counts.resize(slot + 1, 0);
  ++host_counts[slot];
  ++total;
}

void topology_group::record_owner(label_id domain) {
  auto it = std::lower_bound(owner_domains.begin(), owner_domains.end(), domain);
  if (it == owner_domains.end() || *it != domain) owner_domains.insert(it, domain);
}

void topology_group::record_owner_host(std::size_t slot) {
  if (owner_hosts.size() <= slot) owner_hosts.resize(slot + 1, 0);
  owner_hosts[slot] = 1;
}

bool topology_group::owner_in(label_id domain) const {
  return std::binary_search(owner_domains.begin(), owner_domains.end(), domain);
}

std::int32_t topology_group::global_min() const {
  if (static_cast<std::int32_t>(eligible.size()) < min_domains) return 0;
  std::int32_t m = std::numeric_limits<std::int32_t>::max();
  for (label_id d : eligible) m = std::min(m, count(d));
  return eligible.empty() ? 0 : m;
}

namespace {
void append_selector(std::string& out, const model::label_selector& s) {
  for (const auto& [k, v] : s.match_labels) out += k + "=" + v + ",";
  for (const auto& e : s.match_expressions) {
    out += e.key + " " + model::to_string(e.op) + " (";
    for (const auto& v : e.values) out += v + " ";
    out += "),";
  }
}
}  // namespace

std::string signature(const topology_group& g, const label_table& t) {
  std::string out = std::to_string(static_cast<int>(g.kind)) + "|" + t.str(g.key) + "|";
  if (g.all_namespaces) out += "*";
  for (const auto& n : g.namespaces) out += n + ",";
  out += "|";
  if (g.selector)
    append_selector(out, *g.selector);
  else
    out += "<none>";
  out += "|" + std::to_string(g.max_skew) + "|" + std::to_string(g.min_domains) + "|" +
         (g.honor_taints ? "T" : "t") + (g.required ? "R" : "p") + "|";
  if (g.node_filter) out += describe(*g.node_filter, t);
  if (g.honor_taints)
    for (const auto& tol : g.tolerations)
      out += tol.key + "/" + tol.op + "/" + tol.value + "/" + tol.effect + ";";
  return out;
}

}  // namespace kp::scheduling
