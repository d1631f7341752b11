#pragma once
// A gauge family with one series per object (karpenter_pods_state: a series per pod) whose
// series are made when the family is collected, from an immutable source its owner swaps in.
// Nothing is held per series between scrapes: with 100,000 pods a prometheus-cpp family would
// keep a label map per pod, and rebuild series on every change. A scrape writes the series a
// batch at a time (serialize), so it never holds them all at once either.
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace kp::obs {

class object_gauges : public prometheus::Collectable {
 public:
  using batch_sink = std::function<void(std::vector<prometheus::ClientMetric>&)>;

  // What the series are made from. Implementations are immutable once handed over: collect()
  // runs on the scraping thread.
  struct source {
    virtual ~source() = default;
    // Hands every series to `flush`, at most `batch_size` at a time; `flush` may take the
    // series out of the vector, which the source then empties and fills again.
    virtual void collect(std::size_t batch_size, const batch_sink& flush) const = 0;
  };

  // `batch_size`: how many series a scrape makes before writing them out.
  object_gauges(std::string name, std::string help, std::size_t batch_size = 1024);

  // The series from now on (none when null).
  void set(std::shared_ptr<const source> s);
  // One family, with every series of the current source (held at once: tests, tools).
  std::vector<prometheus::MetricFamily> Collect() const override;
  // The family in the text format, as prometheus-cpp's TextSerializer writes it, made and
  // written a batch of series at a time.
  void serialize(std::ostream& out) const;

  const std::string& name() const { return name_; }

 private:
  std::shared_ptr<const source> current() const;

  std::string name_;
  std::string help_;
  std::size_t batch_size_;
  mutable std::mutex mutex_;
  std::shared_ptr<const source> source_;
};

}  // namespace kp::obs
