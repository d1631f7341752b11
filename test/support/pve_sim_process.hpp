#pragma once
// pve-sim as a child process for integration tests: started on a free loopback port with its CA
// written to a private directory; stopped (SIGTERM) and cleaned up when the object goes.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::test {

class pve_sim_process {
 public:
  // $KP_BIN_DIR/pve-sim ("" when KP_BIN_DIR is unset); tests skip when it does not exist.
  static std::string binary();

  pve_sim_process() = default;
  ~pve_sim_process();
  pve_sim_process(const pve_sim_process&) = delete;
  pve_sim_process& operator=(const pve_sim_process&) = delete;

  // Starts it with `--listen 127.0.0.1:0 --ca-out DIR/ca.pem` plus `extra_args`, and waits (with a
  // deadline, blocking on the pipe, never sleeping) for the base URL it prints first.
  status start(const std::vector<std::string>& extra_args = {});

  const std::string& url() const { return url_; }
  const std::string& ca_pem() const { return ca_pem_; }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::filesystem::path dir_;
  std::string url_;
  std::string ca_pem_;
};

}  // namespace kp::test
