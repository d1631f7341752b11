#pragma once
// pve-sim as a child process for integration tests: started on a free loopback port with its CA
// written to a private directory; stopped (SIGTERM) and cleaned up when the object goes. It also
// knows how a client reaches it, so fixtures do not rebuild those settings by hand.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "protocol/proxmox/client.hpp"
#include "test/support/child_process.hpp"

namespace kp::test {

class pve_sim_process {
 public:
  // The API token pve-sim accepts for the controller's user (pve-sim's built-in credentials).
  static constexpr const char* token_id = "kubernetes@pve!karpenter";
  static constexpr const char* token_secret = "5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b";
  // root@pam's password, for the ticket login that root-only keys need.
  static constexpr const char* root_user = "root@pam";
  static constexpr const char* root_password = "pve-sim-root";

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

  enum class login { token, root_ticket };
  // Settings for a Proxmox client of this simulator: its URL, its CA, a 20 s request timeout and
  // the token (or root's password for a ticket).
  proxmox::client_settings client_settings(login as = login::token) const;
  // Transport options for plain HTTPS calls to it (its /sim/v1 control endpoints).
  transport::client_options transport_options() const;

 private:
  std::unique_ptr<child_process> process_;
  std::filesystem::path dir_;
  std::string url_;
  std::string ca_pem_;
};

// The requests pve-sim answered, per "METHOD templated-path", from the body of its
// GET /sim/v1/stats; an error when the body is not that.
result<std::map<std::string, std::int64_t>> request_counts(std::string_view stats_body);

}  // namespace kp::test
