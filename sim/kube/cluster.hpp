#pragma once
// kube-sim as one object: the HTTPS server (its own CA, a server certificate for 127.0.0.1 and
// localhost, client certificates accepted for node credentials), the store and watch hub, the
// API front, the simulated controllers and the test controls. Everything runs on the io_context
// given, which must be run by exactly one thread: that is what keeps the state lock-free.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "sim/kube/controllers/controller.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::sim::kube {

struct cluster_options {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  std::string admin_token;                          // generated when empty
  std::size_t watch_history = 200000;               // events kept for watch resumption
  std::chrono::milliseconds tick{200};              // periodic controller pass
  std::chrono::milliseconds min_pass_interval{20};  // coalesces passes after bursts of writes
  std::chrono::milliseconds bookmark_interval{10000};
  // Largest request body, as kube-apiserver's 3 MiB (413 RequestEntityTooLarge beyond).
  std::size_t max_request_body = 3u << 20;
  controller_settings controllers;
  // Simulated controllers by name; all on by default.
  std::map<std::string, bool> enabled{{"scheduler", true},
                                      {"kubelet", true},
                                      {"replicaset", true},
                                      {"node-lifecycle", true},
                                      {"token-cleaner", true},
                                      {"garbage-collector", true},
                                      {"disruption", true},
                                      {"csr-signer", true},
                                      {"namespace", true},
                                      {"deployment", true},
                                      {"daemonset", true},
                                      {"statefulset", true},
                                      {"job", true}};
};

class cluster {
 public:
  cluster(boost::asio::io_context& io, cluster_options options);
  ~cluster();
  cluster(const cluster&) = delete;
  cluster& operator=(const cluster&) = delete;

  // Makes the certificates, seeds the namespaces, starts listening and the controller timer.
  status start();
  void stop();

  std::uint16_t port() const;
  std::string server_url() const;  // https://127.0.0.1:PORT
  const std::string& ca_pem() const;
  const std::string& admin_token() const;
  // A kubeconfig (YAML) for the admin, with the CA inline.
  std::string admin_kubeconfig() const;
  // A client certificate signed by the cluster CA (tests; nodes normally get theirs by CSR).
  result<transport::key_pair_pem> issue_client_certificate(
      const std::string& common_name, const std::vector<std::string>& groups) const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace kp::sim::kube
