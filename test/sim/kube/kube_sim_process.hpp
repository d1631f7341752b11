#pragma once
// Test support: kube-sim as a real child process (build/bin/kube-sim) with its kubeconfig, and
// kubectl runs against it, each with its own HOME so discovery caches never leak between runs.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test/support/child_process.hpp"

namespace kp::sim::kube::testing {

struct command_result {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool timed_out = false;
  bool stopped_early = false;  // `until` was satisfied while the process still ran
};

// Decides from the output so far that a long-running command (a watch) has shown enough.
using output_predicate = std::function<bool(const std::string& out)>;

// Runs argv with extra environment entries ("K=V"), feeding `input` on stdin.
command_result run_command(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& input,
                           std::chrono::milliseconds timeout, const output_predicate& until = {});

std::optional<std::string> find_kubectl();

class kube_sim_process {
 public:
  // Starts kube-sim with `extra_args`; check ok() and error() afterwards.
  explicit kube_sim_process(std::vector<std::string> extra_args = {});
  ~kube_sim_process();
  kube_sim_process(const kube_sim_process&) = delete;
  kube_sim_process& operator=(const kube_sim_process&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& url() const { return url_; }
  const std::string& kubeconfig_path() const { return kubeconfig_; }
  const std::string& token() const { return token_; }
  const std::string& ca_pem() const { return ca_pem_; }
  const std::string& work_dir() const { return dir_; }

  // kubectl with the admin kubeconfig and a private HOME.
  command_result kubectl(const std::vector<std::string>& args, const std::string& input = "",
                         std::chrono::milliseconds timeout = std::chrono::seconds(30),
                         const output_predicate& until = {}) const;

 private:
  std::unique_ptr<kp::test::child_process> process_;
  std::string dir_, url_, kubeconfig_, token_, ca_pem_, error_;
};

}  // namespace kp::sim::kube::testing
