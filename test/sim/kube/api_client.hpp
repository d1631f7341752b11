#pragma once
// Test support: blocking calls and watch streams against kube-sim over HTTPS with the project's
// own transport client (its io thread runs the callbacks; tests wait on futures or predicates).
#include <boost/json/value.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"

namespace kp::sim::kube::testing {

struct reply {
  int status = 0;
  std::string body;
  std::string error;  // transport failure
  transport::header_list headers;
  boost::json::value json() const;
};

class watch_stream {
 public:
  // Waits until the received text satisfies `pred` or the deadline passes.
  bool wait_for(const std::function<bool(const std::string&)>& pred,
                std::chrono::milliseconds within);
  std::string text();
  bool ended();
  bool wait_ended(std::chrono::milliseconds within);
  void cancel();

 private:
  friend class api_client;
  std::mutex m_;
  std::condition_variable cv_;
  std::string data_;
  bool ended_ = false;
  int status_ = 0;
  std::shared_ptr<transport::http_stream> stream_;
};

class api_client {
 public:
  // bearer_token may be empty (then a client certificate or nothing is used).
  api_client(std::string base_url, std::string ca_pem, std::string bearer_token,
             std::string client_cert_pem = "", std::string client_key_pem = "");
  ~api_client();

  reply call(const std::string& method, const std::string& target, const std::string& body = "",
             const std::string& content_type = "application/json");
  std::shared_ptr<watch_stream> watch(const std::string& target);

 private:
  std::string base_url_, token_;
  transport::io_runtime runtime_{1};
  std::unique_ptr<transport::http_client> client_;
};

}  // namespace kp::sim::kube::testing
