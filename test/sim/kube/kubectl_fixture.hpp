#pragma once
// The fixture of the kubectl tests: a kube-sim process whose nodes stay Ready without a kubelet,
// kubectl runs with a private cache, and polling with a deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kube_sim_process.hpp"
#include "test/support/eventually.hpp"

namespace kp::sim::kube::testing {

using namespace std::chrono_literals;

inline const char* kNode = R"(apiVersion: v1
kind: Node
metadata:
  name: NAME
  labels: {kubernetes.io/hostname: NAME, topology.kubernetes.io/zone: z1}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady}]
)";

inline std::string node_yaml(const std::string& name) {
  std::string s = kNode;
  for (std::size_t p; (p = s.find("NAME")) != std::string::npos;) s.replace(p, 4, name);
  return s;
}

class KubectlAgainstKubeSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_kubectl())
      GTEST_SKIP() << "kubectl is not installed (needed to prove kube-sim with a real client)";
    // Nodes in these tests have no kubelet renewing a Lease; keep them Ready for the test.
    sim_ = std::make_unique<kube_sim_process>(
        std::vector<std::string>{"--node-monitor-grace", "3600"});
    ASSERT_TRUE(sim_->ok()) << sim_->error();
  }

  // A kubectl run that outlives its timeout fails the test here, naming the command, whatever
  // the caller then does with the (cut short) result.
  command_result kubectl(const std::vector<std::string>& args, const std::string& input = "",
                         std::chrono::milliseconds timeout = 30s) {
    auto r = sim_->kubectl(args, input, timeout);
    if (r.timed_out)
      ADD_FAILURE() << "kubectl " << command_line(args) << " timed out after " << timeout.count()
                    << " ms\nstdout: " << r.out << "\nstderr: " << r.err;
    return r;
  }
  void must(const std::vector<std::string>& args, const std::string& input = "") {
    auto r = kubectl(args, input);
    ASSERT_EQ(r.exit_code, 0) << "kubectl " << command_line(args) << "\nstdout: " << r.out
                              << "\nstderr: " << r.err;
  }
  // Polls `kubectl get ... -o jsonpath=EXPR` until it prints `want` or the deadline passes.
  bool eventually(const std::vector<std::string>& get_args, const std::string& want,
                  std::chrono::milliseconds within = 15s) {
    return test_support::eventually(
        [&] {
          auto r = kubectl(get_args);
          last_ = r.out + r.err;
          return r.exit_code == 0 && r.out == want;
        },
        within);
  }
  static std::string command_line(const std::vector<std::string>& args) {
    std::string cmd;
    for (const auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    return cmd;
  }

  std::unique_ptr<kube_sim_process> sim_;
  std::string last_;
};

}  // namespace kp::sim::kube::testing
