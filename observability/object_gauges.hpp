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
    // How many series collect() will hand out (0 when unknown): a scrape sizes its text by it.
    virtual std::size_t size() const { return 0; }

    // Collection that resumes where it stopped, for a scrape whose text is sent a batch at a
    // time as the client takes it: each next() fills `out` with at most `batch_size` series
    // and says whether any were left to give. A cursor keeps alive what it reads.
    struct cursor {
      virtual ~cursor() = default;
      virtual bool next(std::size_t batch_size, std::vector<prometheus::ClientMetric>& out) = 0;
    };
    // A cursor over `self` (this source). The default hands every series in its first batch:
    // sources whose collect() cannot resume.
    virtual std::unique_ptr<cursor> open(std::shared_ptr<const source> self) const;
  };

  // `batch_size`: how many series a scrape makes before writing them out.
  object_gauges(std::string name, std::string help, std::size_t batch_size = 1024);

  // The series from now on (none when null).
  void set(std::shared_ptr<const source> s);
  // One family, with every series of the current source (held at once: tests, tools).
  std::vector<prometheus::MetricFamily> Collect() const override;
  // The family in the text format, as prometheus-cpp's TextSerializer writes it, made and
  // appended to `out` a batch of series at a time. Once the first batch is written, `out` is
  // sized for every series at that batch's length per series, so the text of 100,000 series
  // is not grown by doubling (which holds 1.5 to 3 times the text while it copies).
  void serialize(std::string& out) const;
  // The same text in pieces, for a reply sent as the client takes it: the first call returns
  // the HELP and TYPE lines, each later one the text of the next batch of series, and an empty
  // string once all were returned. The series are those of the source current when this was
  // called; pieces may be taken on any one thread.
  std::function<std::string()> text_pieces() const;

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
