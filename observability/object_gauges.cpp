#include "observability/object_gauges.hpp"

#include <utility>

namespace kp::obs {

object_gauges::object_gauges(std::string name, std::string help)
    : name_(std::move(name)), help_(std::move(help)) {}

void object_gauges::set(std::shared_ptr<const source> s) {
  std::lock_guard lock(mutex_);
  source_ = std::move(s);
}

std::vector<prometheus::MetricFamily> object_gauges::Collect() const {
  std::shared_ptr<const source> s;
  {
    std::lock_guard lock(mutex_);
    s = source_;
  }
  prometheus::MetricFamily family;
  family.name = name_;
  family.help = help_;
  family.type = prometheus::MetricType::Gauge;
  if (s) s->collect(family.metric);
  // Moved in, not listed in braces: an initializer list would copy the family (100,000 pod
  // series at scale, twice the transient memory of a scrape).
  std::vector<prometheus::MetricFamily> out;
  out.push_back(std::move(family));
  return out;
}

}  // namespace kp::obs
