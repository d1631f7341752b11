#pragma once
// kube-sim's store, write semantics and simulated controllers in one process, on a clock the
// test moves: a pass runs every enabled controller in kube-sim's order, settle() repeats passes
// until nothing changes, run_for() lets virtual time pass. Objects go in and come out as JSON.
#include <boost/json/object.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "protocol/transport/tls_certificates.hpp"
#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube::testing {

class workload_world {
 public:
  workload_world();

  void pass();
  // Passes until the store stops changing; false when it never does within max_passes.
  bool settle(int max_passes = 100);
  // Moves the clock in steps, settling after each.
  void run_for(std::chrono::milliseconds total,
               std::chrono::milliseconds step = std::chrono::milliseconds(100));

  // Creates an object from JSON text; the test fails on a refusal.
  boost::json::object create(const char* group, const char* plural, const std::string& json_text,
                             const std::string& ns = "default");
  // A merge patch of an object's main resource.
  boost::json::object merge(const char* group, const char* plural, const std::string& name,
                            const std::string& patch_json, const std::string& ns = "default");
  void remove(const char* group, const char* plural, const std::string& name,
              const std::string& ns = "default");
  // The object, or an empty object when missing.
  boost::json::object get(const char* group, const char* plural, const std::string& name,
                          const std::string& ns = "default") const;
  std::vector<boost::json::object> list(const char* group, const char* plural,
                                        const std::string& ns = "default") const;

  // A Ready node with this allocatable, labels and taints (JSON arrays/objects as text).
  void add_node(const std::string& name, const std::string& cpu = "4",
                const std::string& memory = "8Gi", const std::string& labels_json = "{}",
                const std::string& taints_json = "[]");
  // Pods of the namespace whose name starts with `prefix`, excluding those being deleted unless
  // asked.
  std::vector<boost::json::object> pods(const std::string& prefix,
                                        bool with_deleting = false) const;

  std::map<std::string, bool> enabled;  // controllers by name; missing means on
  controller_settings settings;
  std::chrono::system_clock::time_point now;

 private:
  resource_registry registry_;
  watch_hub hub_;
  object_store store_;
  operations ops_;
  std::vector<std::unique_ptr<controller>> controllers_;
};

// Small readers for assertions.
std::string text_at(const boost::json::object& o, std::initializer_list<std::string_view> path);
std::int64_t number_at(const boost::json::object& o, std::initializer_list<std::string_view> path);
std::string condition_reason(const boost::json::object& o, std::string_view type);
std::string label(const boost::json::object& o, std::string_view key);

}  // namespace kp::sim::kube::testing
