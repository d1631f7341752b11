#include "actors/status_refusals.hpp"

namespace kp::actors {

namespace {
// Bodies remembered per object and generation; a writer that keeps changing its mind within one
// generation starts over rather than growing without bound.
constexpr std::size_t max_bodies = 16;
}  // namespace

bool status_refusals::is_refusal(const kp::error& e) {
  return e.code == "invalid" || e.code == "bad_request" || e.code == "forbidden";
}

bool status_refusals::refused(const std::string& name, std::int64_t generation,
                              const std::string& body) const {
  auto it = by_name_.find(name);
  return it != by_name_.end() && it->second.generation == generation &&
         it->second.bodies.count(body) > 0;
}

bool status_refusals::record(const std::string& name, std::int64_t generation,
                             const std::string& body) {
  auto [it, inserted] = by_name_.try_emplace(name);
  auto& e = it->second;
  const bool first = inserted || e.generation != generation;
  if (first || e.bodies.size() >= max_bodies) e.bodies.clear();
  e.generation = generation;
  e.bodies.insert(body);
  return first;
}

void status_refusals::forget(const std::string& name) {
  by_name_.erase(name);
}

void status_refusals::report(const kp::error& e, const std::string& kind, const std::string& name,
                             std::int64_t generation, const std::string& body,
                             obs::karpenter_metrics* metrics, const obs::logger& log) {
  if (metrics) metrics->status_write_refusals.Add({{"kind", kind}}).Increment();
  if (!record(name, generation, body)) return;
  log.error("the API server refused a status write; not retried until the object changes",
            {{"kind", kind},
             {"name", name},
             {"generation", std::to_string(generation)},
             {"error", e.code + ": " + e.message}});
}

std::string conditions_digest(const std::vector<kube::condition>& conditions) {
  std::string out;
  for (const auto& c : conditions) {
    out += c.type + '\x1f' + c.status + '\x1f' + c.reason + '\x1f' + c.message + '\x1e' +
           std::to_string(c.observed_generation) + '\x1d';
  }
  return out;
}

}  // namespace kp::actors
