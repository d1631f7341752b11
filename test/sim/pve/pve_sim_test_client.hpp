#pragma once
// A blocking test helper around kp::transport::http_client for pve-sim tests: one io thread,
// requests wait on a future, tasks are polled with a deadline (never a fixed sleep).
#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "sim/pve/pve_sim_server.hpp"
#include "sim/pve/request_params.hpp"
#include "sim/pve/topology.hpp"

namespace kp::sim::pve::testing {

inline constexpr const char* token_header =
    "PVEAPIToken=kubernetes@pve!karpenter=5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b";

struct reply {
  int status = 0;
  std::string reason;  // the status line's reason phrase (Proxmox's error message)
  std::string body;
  transport::header_list headers;
  boost::json::value json;  // parsed body (null if not JSON)
  const boost::json::value& data() const { return json.as_object().at("data"); }
  std::string header(const std::string& name) const {
    return std::string(transport::find_header(headers, name));
  }
};

using param_list = std::vector<std::pair<std::string, std::string>>;

inline std::string form(const param_list& params) {
  std::string out;
  for (const auto& [k, v] : params)
    out += (out.empty() ? "" : "&") + url_encode(k) + "=" + url_encode(v);
  return out;
}

class sim_fixture {
 public:
  explicit sim_fixture(double time_scale = 0.05,
                       std::string topology_yaml = default_topology_yaml(),
                       server_limits limits = {}) {
    // KP_PVE_SIM_TIME_SCALE overrides the time scale (e.g. 1 to measure the default durations).
    if (const char* env = std::getenv("KP_PVE_SIM_TIME_SCALE")) time_scale = std::atof(env);
    data_dir_ = std::filesystem::temp_directory_path() /
                ("pve-sim-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(data_dir_);
    runtime_ = std::make_unique<transport::io_runtime>(1);
    server_settings s;
    s.limits = limits;
    auto topo = parse_topology(topology_yaml);
    if (!topo) throw std::runtime_error(topo.error().message);
    s.simulation.topo = *topo;
    s.simulation.data_dir = data_dir_;
    s.simulation.time_scale = time_scale;
    auto server = pve_sim_server::start(runtime_->context(), std::move(s));
    if (!server) throw std::runtime_error(server.error().message);
    server_ = std::move(*server);
    transport::client_options opts;
    opts.ca_pem = server_->ca_pem();
    opts.request_timeout = std::chrono::seconds(20);
    client_ = std::make_unique<transport::http_client>(runtime_->context(), opts);
  }
  ~sim_fixture() {
    client_->close();
    server_.reset();
    client_.reset();
    runtime_.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }

  const std::filesystem::path& data_dir() const { return data_dir_; }
  std::string base_url() const { return server_->base_url(); }

  reply raw(transport::http_request request) {
    auto promise = std::make_shared<std::promise<transport::response_result>>();
    auto future = promise->get_future();
    client_->send(server_->base_url(), std::move(request),
                  [promise](transport::response_result r) { promise->set_value(std::move(r)); });
    auto r = future.get();
    reply out;
    if (!r) {
      out.status = -1;
      out.body = r.error().code + ": " + r.error().message;
      return out;
    }
    out.status = r->status;
    out.body = r->body;
    out.headers = r->headers;
    out.reason = r->reason;
    boost::system::error_code ec;
    out.json = boost::json::parse(out.body, ec);
    if (ec) out.json = nullptr;
    return out;
  }

  // A Proxmox API call with the token (or other headers); params go in the query string for
  // GET/DELETE and form-encoded in the body otherwise.
  reply api(const std::string& method, const std::string& path, const param_list& params = {},
            transport::header_list headers = {{"Authorization", token_header}}) {
    transport::http_request req;
    req.method = method;
    req.target = "/api2/json" + path;
    req.headers = std::move(headers);
    if (!params.empty()) {
      if (method == "GET" || method == "DELETE") {
        req.target += "?" + form(params);
      } else {
        req.body = form(params);
        req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
      }
    }
    return raw(std::move(req));
  }

  reply sim(const std::string& method, const std::string& path, const std::string& body = "") {
    transport::http_request req;
    req.method = method;
    req.target = path;
    req.body = body;
    if (!body.empty()) req.headers.emplace_back("Content-Type", "application/json");
    return raw(std::move(req));
  }

  // Polls the task until it stops; returns its final status object.
  boost::json::object wait_task(const std::string& upid,
                                std::chrono::milliseconds deadline = std::chrono::seconds(15)) {
    auto node = upid.substr(5, upid.find(':', 5) - 5);
    auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
      auto r = api("GET", "/nodes/" + node + "/tasks/" + url_encode(upid) + "/status");
      if (r.status == 200 && r.data().as_object().at("status").as_string() == "stopped")
        return r.data().as_object();
      std::this_thread::sleep_for(
          std::chrono::milliseconds(10));  // poll interval, bounded by the deadline
    }
    return {};
  }

  // Runs a task-returning call and waits for it; returns the exitstatus ("" on timeout).
  std::string run_task(const std::string& method, const std::string& path,
                       const param_list& params = {}) {
    auto r = api(method, path, params);
    if (r.status != 200 || !r.data().is_string())
      return "HTTP " + std::to_string(r.status) + " " + r.body;
    auto st = wait_task(std::string(r.data().as_string()));
    if (st.empty()) return "";
    return std::string(st.at("exitstatus").as_string());
  }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path data_dir_;
  std::unique_ptr<transport::io_runtime> runtime_;
  std::unique_ptr<pve_sim_server> server_;
  std::unique_ptr<transport::http_client> client_;
};

}  // namespace kp::sim::pve::testing
