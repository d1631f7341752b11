#include "observability/object_gauges.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <utility>

#include <prometheus/text_serializer.h>

namespace kp::obs {
namespace {

std::string text_of(const prometheus::MetricFamily& family) {
  std::ostringstream out;
  prometheus::TextSerializer{}.Serialize(out, {family});
  return std::move(out).str();
}

}  // namespace

object_gauges::object_gauges(std::string name, std::string help, std::size_t batch_size)
    : name_(std::move(name)),
      help_(std::move(help)),
      batch_size_(std::max<std::size_t>(1, batch_size)) {}

void object_gauges::set(std::shared_ptr<const source> s) {
  std::lock_guard lock(mutex_);
  source_ = std::move(s);
}

std::shared_ptr<const object_gauges::source> object_gauges::current() const {
  std::lock_guard lock(mutex_);
  return source_;
}

std::vector<prometheus::MetricFamily> object_gauges::Collect() const {
  prometheus::MetricFamily family;
  family.name = name_;
  family.help = help_;
  family.type = prometheus::MetricType::Gauge;
  if (auto s = current()) {
    s->collect(std::numeric_limits<std::size_t>::max(), [&](auto& batch) {
      std::move(batch.begin(), batch.end(), std::back_inserter(family.metric));
      batch.clear();
    });
  }
  // Moved in, not listed in braces: an initializer list would copy the family (100,000 pod
  // series at scale, twice the transient memory of a scrape).
  std::vector<prometheus::MetricFamily> out;
  out.push_back(std::move(family));
  return out;
}

void object_gauges::serialize(std::string& out) const {
  prometheus::MetricFamily family;
  family.name = name_;
  family.help = help_;
  family.type = prometheus::MetricType::Gauge;
  // The family without series is its HELP and TYPE lines: written once, and cut from the text
  // of every batch, so the batches read as one family.
  const std::string header = text_of(family);
  out += header;
  auto s = current();
  if (!s) return;
  const std::size_t expected = s->size();
  std::size_t written = 0;
  s->collect(batch_size_, [&](std::vector<prometheus::ClientMetric>& batch) {
    const std::size_t series = batch.size();
    family.metric = std::move(batch);
    auto text = text_of(family);
    const std::size_t skip = text.compare(0, header.size(), header) == 0 ? header.size() : 0;
    if (written == 0 && series > 0 && expected > series) {
      // A tenth more than the first batch's length per series: names and nodes vary a little.
      const std::size_t per_series = (text.size() - skip) / series + 1;
      out.reserve(out.size() + (text.size() - skip) + per_series * (expected - series) * 11 / 10);
    }
    out.append(text, skip);
    written += series;
    batch = std::move(family.metric);
    batch.clear();
  });
}

}  // namespace kp::obs
