#pragma once
// A gauge family with one series per object (karpenter_pods_state: a series per pod) whose
// series are made when the family is collected, from an immutable source its owner swaps in.
// Nothing is held per series between scrapes: with 100,000 pods a prometheus-cpp family would
// keep a label map per pod, and rebuild series on every change.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace kp::obs {

class object_gauges : public prometheus::Collectable {
 public:
  // What the series are made from. Implementations are immutable once handed over: collect()
  // runs on the scraping thread.
  struct source {
    virtual ~source() = default;
    virtual void collect(std::vector<prometheus::ClientMetric>& out) const = 0;
  };

  object_gauges(std::string name, std::string help);

  // The series from now on (none when null).
  void set(std::shared_ptr<const source> s);
  // One family, with the series of the current source.
  std::vector<prometheus::MetricFamily> Collect() const override;

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::string help_;
  mutable std::mutex mutex_;
  std::shared_ptr<const source> source_;
};

}  // namespace kp::obs
