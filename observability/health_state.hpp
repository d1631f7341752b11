#pragma once
// What /healthz and /readyz answer. The readiness actor writes conditions (one per component:
// "kubernetes api", "proxmox region r1", ...); the HTTP handlers read them from any thread.
#include <map>
#include <mutex>
#include <string>

namespace prometheus {
class Registry;
template <class T>
class Family;
class Gauge;
}  // namespace prometheus

namespace kp::obs {

struct probe_report {
  bool ok = false;
  std::string body;  // "ok", or what is missing: "kubernetes api: not connected; ..."
};

class health_state {
 public:
  // With a registry, each condition is also exported as
  // karpenter_proxmox_readiness{component} (1 ready, 0 not).
  explicit health_state(prometheus::Registry* registry = nullptr);

  void set_condition(const std::string& component, bool ready, const std::string& detail);
  void remove_condition(const std::string& component);
  // Liveness turns false only when the process can no longer make progress.
  void set_live(bool live, const std::string& detail = "");

  probe_report readiness() const;
  probe_report liveness() const;

 private:
  struct condition {
    bool ready = false;
    std::string detail;
  };
  mutable std::mutex mutex_;
  std::map<std::string, condition> conditions_;
  bool live_ = true;
  std::string live_detail_;
  prometheus::Family<prometheus::Gauge>* gauges_ = nullptr;
};

}  // namespace kp::obs
