#pragma once
// The churn phase of bench-controller-scale: merge-patches a label of random pods at a fixed rate
// through kube-sim's API (many requests in flight, on its own io thread) and keeps, for every
// acknowledged update, its resourceVersion and the time it was acknowledged. The controller's
// lag is then the time from an update's acknowledgement to the first moment the controller's
// published snapshot holds a resourceVersion at least as new (`observe`).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kp::bench {

struct churn_target {
  std::string namespace_;
  std::string name;
};

struct churn_figures {
  long sent = 0;
  long acknowledged = 0;
  long failed = 0;
  long observed = 0;     // updates the controller's snapshots caught up with
  double max_lag_s = 0;  // over observed updates, plus unobserved ones counted up to the end
  double p99_lag_s = 0;
  double p50_lag_s = 0;
};

class churn_driver {
 public:
  // `server`, `ca_pem`, `token`: kube-sim's admin access (the lab's kubeconfig).
  churn_driver(std::string server, std::string ca_pem, std::string token);
  ~churn_driver();
  churn_driver(const churn_driver&) = delete;
  churn_driver& operator=(const churn_driver&) = delete;

  // Sends `rate` patches per second for `duration` over `targets` (chosen at random), calling
  // `poll` about every `poll_every` meanwhile (the caller reads the controller's progress there
  // and reports it through observe()). Returns once every patch was answered.
  void run(const std::vector<churn_target>& targets, int rate, std::chrono::seconds duration,
           std::chrono::milliseconds poll_every, const std::function<void()>& poll);

  // The controller's snapshot holds resourceVersion `rv` (or newer) as of `at`.
  void observe(std::uint64_t rv, std::chrono::steady_clock::time_point at);
  // Updates still not observed.
  long unobserved() const;
  // The figures; unobserved updates count as lagging until `end`.
  churn_figures figures(std::chrono::steady_clock::time_point end) const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kp::bench
