#pragma once
// pve-sim on the wire: the simulator behind the project's HTTP server, over TLS with a CA made
// at start (or plain HTTP). Used by the pve-sim binary and by in-process tests.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "sim/pve/simulator.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::sim::pve {

// What one client may cost the server (flags --max-body-size, --max-connections,
// --header-timeout of the pve-sim binary).
struct server_limits {
  std::size_t max_body_bytes = 64u << 20;  // an ISO upload; larger bodies get 413
  std::size_t max_connections = 256;       // beyond it new connections wait to be accepted
  // From connecting (or the previous reply) until a request's header has arrived; a client
  // slower than that is disconnected.
  std::chrono::milliseconds header_timeout{std::chrono::seconds(60)};
};

struct server_settings {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free port
  bool plain = false;      // HTTP instead of HTTPS
  server_limits limits;
  simulator_options simulation;
};

class pve_sim_server {
 public:
  // Binds and starts serving on `io`, which must be run by exactly one thread.
  static result<std::unique_ptr<pve_sim_server>> start(boost::asio::io_context& io,
                                                       server_settings settings);
  // Stops serving and releases the simulator on the io thread (waits for it when called from
  // another thread while the io thread runs).
  ~pve_sim_server();

  std::uint16_t port() const;
  // "https://127.0.0.1:PORT" (or http://)
  std::string base_url() const;
  // The CA that signed the server certificate (PEM); empty with plain HTTP.
  const std::string& ca_pem() const;

  struct parts;

 private:
  explicit pve_sim_server(std::unique_ptr<parts> p);
  std::unique_ptr<parts> parts_;
};

}  // namespace kp::sim::pve
