#pragma once
// What every end-to-end test shares: a lab world (kube-sim, pve-sim, controller replicas) with
// short timeouts, pods as ReplicaSets, a view of the cluster (pods, NodeClaims, Nodes, VMs) and
// waiting with a deadline. Failure messages carry the controller's last log lines.
#include <gtest/gtest.h>

#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/lab/lab_world.hpp"

namespace kp::e2e {

using namespace std::chrono_literals;

struct pod_view {
  std::string name, ns, phase, node;
  bool terminating = false;
  std::string scheduled;  // the PodScheduled condition "status/reason", and any nominated node
};
struct nodeclaim_view {
  std::string name, node_name, provider_id;
  bool terminating = false;
};
struct node_view {
  std::string name, provider_id;
  std::vector<std::string> taints;  // "key:Effect"
  bool ready = false;
};

struct cluster_view {
  std::vector<pod_view> pods;
  std::map<std::string, nodeclaim_view> nodeclaims;
  std::map<std::string, node_view> nodes;
  std::vector<lab::vm_entry> vms;  // made by the controller (not present at start)

  long running() const;
  std::set<std::string> vm_names() const;
  std::set<std::string> nodeclaim_names() const;
  std::string text() const;  // for failure messages
};

// $KP_BIN_DIR/karpenter-proxmox, run as a command by the tests of its subcommands.
std::string controller_binary();

struct command_result {
  int code = -1;
  std::string out;
  std::string err;
};
// Runs a shell command with stdout (a pipe, so not a terminal) and stderr (through the file
// `err_path`) kept apart.
command_result run_command(const std::string& command, const std::string& err_path);

// The lab options of the tests: binaries from $KP_BIN_DIR, pve-sim 4x faster than real time,
// no consolidation, registration and launch timeouts of 20 s.
lab::lab_options e2e_options();

// What each pod of a test's ReplicaSet asks for.
struct pod_shape {
  std::string cpu = "250m";
  std::string memory = "512Mi";
  // Required anti-affinity on the hostname: each pod needs a node of its own.
  bool own_node = false;
  // Extended resources ("nvidia.com/gpu": "1"), requested and limited alike.
  std::map<std::string, std::string> extended;
};

class e2e_test : public ::testing::Test {
 protected:
  // Starts the world; skips the test when the binaries are not built.
  void start_world(lab::lab_options options = e2e_options());
  std::size_t start_controller(const std::map<std::string, std::string>& extra = {});

  // A ReplicaSet `name` of `replicas` pods with these requests in `default`.
  void scale(const std::string& name, int replicas, const std::string& cpu = "250m",
             const std::string& memory = "512Mi");
  void scale(const std::string& name, int replicas, const pod_shape& shape);
  void apply(const std::string& yaml);

  cluster_view view();
  // Polls `check` on fresh views until it holds or `within` passes.
  bool wait_for(const std::function<bool(const cluster_view&)>& check,
                std::chrono::milliseconds within);
  // The message of the controller's newest Event with `reason` about an object in `default`
  // whose name starts with `name_prefix`; "" when none yet.
  std::string controller_event(const std::string& reason, const std::string& name_prefix);
  // Last lines of each controller's log and the current view.
  std::string diagnose();

  // Every controller-made VM belongs to a live NodeClaim of the same name and each NodeClaim
  // has at most one VM: no orphan, no duplicate.
  static std::string leaks(const cluster_view& v);
  // leaks() once the world has settled: a VM or NodeClaim still being made or removed when the
  // test's condition first held gets `within` to finish; what remains then is a leak.
  std::string settled_leaks(std::chrono::milliseconds within = std::chrono::seconds(15));

  // Proxmox as a person would use it, behind the controller's back: a VM made (and started) by
  // hand, any call that starts a task waited for, a VM's config digest ("gone" when unreadable).
  void pve_create_vm(const std::string& node, int vmid, const std::string& name,
                     const std::string& description, bool start);
  void pve_task(const std::string& method, const std::string& node, const std::string& path,
                const std::string& templated_path, const std::string& body = "");
  void pve_wait_task(const std::string& node, const std::string& upid);
  std::string pve_config_digest(const std::string& node, int vmid);
  // A VM's config as Proxmox returns it (the reply's `data`); an error saying why when it cannot
  // be read.
  result<boost::json::object> pve_vm_config(const std::string& node, int vmid);
  // Requests pve-sim answered by "METHOD templated-path", the lab's own subtracted.
  long pve_requests(const std::string& key);
  // Requests each simulator answered since it started, GETs or all the others (the writes);
  // -1 when its statistics cannot be read.
  long kube_requests_by_method(bool gets);
  long pve_requests_by_method(bool gets);

  std::unique_ptr<lab::lab_world> world;
};

}  // namespace kp::e2e

// Starts the world in a TEST_F body and leaves the test when it was skipped or failed.
#define KP_E2E_START(...)                         \
  do {                                            \
    start_world(__VA_ARGS__);                     \
    if (IsSkipped() || HasFatalFailure()) return; \
  } while (false)
