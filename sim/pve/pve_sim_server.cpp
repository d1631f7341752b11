#include "sim/pve/pve_sim_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <future>

#include "protocol/transport/http_server.hpp"
#include "protocol/transport/tls_certificates.hpp"

namespace kp::sim::pve {

struct pve_sim_server::parts {
  boost::asio::io_context* io = nullptr;
  std::shared_ptr<simulator> sim;
  std::unique_ptr<transport::http_server> server;
  std::string address;
  bool plain = false;
  std::string ca_pem;
};

pve_sim_server::pve_sim_server(std::unique_ptr<parts> p) : parts_(std::move(p)) {}

result<std::unique_ptr<pve_sim_server>> pve_sim_server::start(boost::asio::io_context& io,
                                                              server_settings settings) {
  auto p = std::make_unique<parts>();
  p->io = &io;
  p->address = settings.address;
  p->plain = settings.plain;
  transport::server_options opts;
  opts.address = settings.address;
  opts.port = settings.port;
  opts.body_limit = settings.limits.max_body_bytes;
  opts.max_connections = settings.limits.max_connections;
  opts.idle_timeout = settings.limits.header_timeout;
  opts.header_timeout = settings.limits.header_timeout;
  if (!settings.plain) {
    auto ca = transport::certificate_authority::create("pve-sim CA");
    if (!ca) return ca.error();
    std::vector<std::string> ips = {"127.0.0.1", "::1"};
    if (settings.address != "127.0.0.1" && settings.address != "0.0.0.0" &&
        settings.address.find_first_not_of("0123456789.:") == std::string::npos)
      ips.push_back(settings.address);
    auto cert = ca->issue_server({"localhost", "pve-sim"}, ips);
    if (!cert) return cert.error();
    p->ca_pem = ca->certificate_pem();
    opts.tls = transport::server_tls{cert->certificate_pem, cert->private_key_pem, ""};
  }
  p->sim = std::make_shared<simulator>(io, std::move(settings.simulation));
  std::weak_ptr<simulator> weak = p->sim;
  p->server = std::make_unique<transport::http_server>(
      io, opts,
      [weak](transport::http_request request, std::shared_ptr<transport::http_exchange> exchange) {
        auto sim = weak.lock();
        if (!sim) return;
        sim->handle(request, [exchange](transport::http_response response) {
          exchange->respond(std::move(response));
        });
      });
  if (auto st = p->server->start(); !st) return st.error();
  return std::unique_ptr<pve_sim_server>(new pve_sim_server(std::move(p)));
}

pve_sim_server::~pve_sim_server() {
  if (!parts_) return;
  parts_->server->stop();
  auto& io = *parts_->io;
  if (io.get_executor().running_in_this_thread() || io.stopped()) {
    parts_.reset();
    return;
  }
  // The simulator's timers and clients belong to the io thread: release them there.
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  std::shared_ptr<parts> owned(parts_.release());
  boost::asio::post(io, [owned, done]() mutable {
    owned->server.reset();
    owned->sim.reset();
    done->set_value();
  });
  if (finished.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    // The io thread is gone or stuck; let the last reference go wherever it ends.
  }
}

std::uint16_t pve_sim_server::port() const {
  return parts_->server->port();
}

std::string pve_sim_server::base_url() const {
  std::string host = parts_->address == "0.0.0.0" ? "127.0.0.1" : parts_->address;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return std::string(parts_->plain ? "http://" : "https://") + host + ":" + std::to_string(port());
}

const std::string& pve_sim_server::ca_pem() const {
  return parts_->ca_pem;
}

}  // namespace kp::sim::pve
