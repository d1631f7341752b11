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

// The family without series is its HELP and TYPE lines: written once, and cut from the text of
// every batch, so the batches read as one family.
prometheus::MetricFamily empty_family(const std::string& name, const std::string& help) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = prometheus::MetricType::Gauge;
  return family;
}

// The series of `family` in the text format, without the family's header lines.
std::string series_text(const prometheus::MetricFamily& family, const std::string& header) {
  auto text = text_of(family);
  if (text.compare(0, header.size(), header) == 0) text.erase(0, header.size());
  return text;
}

class collect_all_cursor final : public object_gauges::source::cursor {
 public:
  explicit collect_all_cursor(std::shared_ptr<const object_gauges::source> s)
      : source_(std::move(s)) {}
  bool next(std::size_t, std::vector<prometheus::ClientMetric>& out) override {
    if (!source_) return false;
    source_->collect(std::numeric_limits<std::size_t>::max(), [&](auto& batch) {
      std::move(batch.begin(), batch.end(), std::back_inserter(out));
      batch.clear();
    });
    source_.reset();
    return true;
  }

 private:
  std::shared_ptr<const object_gauges::source> source_;
};

}  // namespace

std::unique_ptr<object_gauges::source::cursor> object_gauges::source::open(
    std::shared_ptr<const source> self) const {
  return std::make_unique<collect_all_cursor>(std::move(self));
}

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
  auto family = empty_family(name_, help_);
  const std::string header = text_of(family);
  out += header;
  auto s = current();
  if (!s) return;
  const std::size_t expected = s->size();
  std::size_t written = 0;
  s->collect(batch_size_, [&](std::vector<prometheus::ClientMetric>& batch) {
    const std::size_t series = batch.size();
    family.metric = std::move(batch);
    const auto text = series_text(family, header);
    if (written == 0 && series > 0 && expected > series) {
      // A tenth more than the first batch's length per series: names and nodes vary a little.
      const std::size_t per_series = text.size() / series + 1;
      out.reserve(out.size() + text.size() + per_series * (expected - series) * 11 / 10);
    }
    out += text;
    written += series;
    batch = std::move(family.metric);
    batch.clear();
  });
}

std::function<std::string()> object_gauges::text_pieces() const {
  struct pieces {
    prometheus::MetricFamily family;
    std::string header;
    bool header_given = false;
    std::unique_ptr<source::cursor> cursor;  // null without a source, or once exhausted
    std::size_t batch_size = 1;
  };
  auto p = std::make_shared<pieces>();
  p->family = empty_family(name_, help_);
  p->header = text_of(p->family);
  p->batch_size = batch_size_;
  if (auto s = current()) p->cursor = s->open(s);
  return [p]() -> std::string {
    if (!p->header_given) {
      p->header_given = true;
      return p->header;
    }
    while (p->cursor) {
      p->family.metric.clear();
      if (!p->cursor->next(p->batch_size, p->family.metric)) {
        p->cursor.reset();
        break;
      }
      if (!p->family.metric.empty()) return series_text(p->family, p->header);
    }
    return {};
  };
}

}  // namespace kp::obs
