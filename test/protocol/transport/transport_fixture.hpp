#pragma once
// Shared by the transport tests: an io runtime, a server on 127.0.0.1:0 and blocking helpers
// that wait on promises with a deadline (never sleep).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/http_server.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "protocol/transport/tls_certificates.hpp"

namespace kp::transport::testing {

using namespace std::chrono_literals;

constexpr auto deadline = std::chrono::seconds(10);

inline response_result send_and_wait(http_client& client, const std::string& base_url,
                                     http_request request) {
  auto promise = std::make_shared<std::promise<response_result>>();
  auto future = promise->get_future();
  client.send(base_url, std::move(request),
              [promise](response_result r) { promise->set_value(std::move(r)); });
  if (future.wait_for(deadline) != std::future_status::ready)
    return make_error("test", "no completion within the test deadline");
  return future.get();
}

inline http_request get(std::string target) {
  http_request r;
  r.target = std::move(target);
  return r;
}

// Waits until `predicate` holds (checked whenever notify() is called) or the deadline passes.
class waiter {
 public:
  template <class F>
  bool wait(F predicate, std::chrono::milliseconds limit = deadline) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, predicate);
  }
  // Notifies under the lock: the waiting test may destroy the waiter as soon as it sees the
  // change, so nothing may touch it after the mutex is released.
  template <class F>
  void update(F change) {
    std::lock_guard lock(mutex_);
    change();
    cv_.notify_all();
  }
  std::mutex& mutex() { return mutex_; }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
};

// A server on 127.0.0.1 with a given handler; its own io threads.
struct test_server {
  explicit test_server(request_handler handler, server_options options = {}, unsigned threads = 2)
      : runtime(threads), server(runtime.context(), std::move(options), std::move(handler)) {
    auto started = server.start();
    EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().message);
  }
  ~test_server() { server.stop(); }

  std::string url(const std::string& scheme = "http", const std::string& host = "127.0.0.1") const {
    return scheme + "://" + host + ":" + std::to_string(server.port());
  }

  io_runtime runtime;
  http_server server;
};

inline request_handler echo_handler() {
  return [](http_request request, std::shared_ptr<http_exchange> exchange) {
    http_response r;
    r.headers.emplace_back("Content-Type", "text/plain");
    r.body = request.method + " " + request.target + " " + request.body;
    exchange->respond(std::move(r));
  };
}

// Answers with the client certificate's identity: "CN|O|O...", empty when anonymous.
inline request_handler identity_handler() {
  return [](http_request request, std::shared_ptr<http_exchange> exchange) {
    http_response r;
    r.body = request.peer.common_name;
    for (const auto& o : request.peer.organizations) r.body += "|" + o;
    exchange->respond(std::move(r));
  };
}

// A CA and a server certificate for 127.0.0.1 and localhost, made once per test binary.
struct test_pki {
  static const test_pki& get() {
    static const test_pki pki;
    return pki;
  }
  certificate_authority ca = certificate_authority::create("kp test CA").value();
  key_pair_pem server = ca.issue_server({"localhost"}, {"127.0.0.1"}).value();

  server_options tls_options(bool with_client_ca = false) const {
    server_options o;
    o.tls = server_tls{server.certificate_pem, server.private_key_pem,
                       with_client_ca ? ca.certificate_pem() : std::string()};
    return o;
  }
  client_options trusting() const {
    client_options o;
    o.ca_pem = ca.certificate_pem();
    return o;
  }
};

}  // namespace kp::transport::testing
