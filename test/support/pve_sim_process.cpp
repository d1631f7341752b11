#include "test/support/pve_sim_process.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kp::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string pve_sim_process::binary() {
  const char* dir = std::getenv("KP_BIN_DIR");
  return dir ? (fs::path(dir) / "pve-sim").string() : std::string();
}

status pve_sim_process::start(const std::vector<std::string>& extra_args) {
  std::string pattern = (fs::temp_directory_path() / "kp-pve-sim-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return make_error("io", "mkdtemp failed");
  dir_ = pattern;
  std::string ca = (dir_ / "ca.pem").string();
  std::vector<std::string> args{binary(), "--listen", "127.0.0.1:0", "--ca-out", ca};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  launch_options options;
  options.capture_stderr = false;
  process_ = std::make_unique<child_process>(args, options);
  if (!process_->start_error().empty()) return make_error("io", process_->start_error());
  auto has_line = [](const std::string& out) { return out.find('\n') != std::string::npos; };
  if (!process_->read_until(has_line, 30s)) {
    return make_error(process_->output_closed() ? "io" : "timeout",
                      process_->output_closed() ? "pve-sim exited before printing its URL"
                                                : "pve-sim printed no URL within 30 s");
  }
  url_ = process_->out().substr(0, process_->out().find('\n'));
  std::ifstream in(ca);
  std::stringstream s;
  s << in.rdbuf();
  ca_pem_ = s.str();
  if (ca_pem_.empty()) return make_error("io", "pve-sim wrote no CA to " + ca);
  return {};
}

proxmox::client_settings pve_sim_process::client_settings(login as) const {
  proxmox::client_settings s;
  s.url = url_;
  s.transport = transport_options();
  s.transport.request_timeout = 20s;
  if (as == login::root_ticket) {
    s.credentials = proxmox::password_credentials{root_user, root_password};
  } else {
    s.credentials = proxmox::token_credentials{token_id, token_secret};
  }
  return s;
}

transport::client_options pve_sim_process::transport_options() const {
  transport::client_options o;
  o.ca_pem = ca_pem_;
  return o;
}

result<std::map<std::string, std::int64_t>> request_counts(std::string_view stats_body) {
  boost::system::error_code ec;
  auto v = boost::json::parse(stats_body, ec);
  const auto* requests = !ec && v.is_object() ? v.as_object().if_contains("requests") : nullptr;
  if (requests == nullptr || !requests->is_array())
    return make_error("protocol", "pve-sim stats without requests: " + std::string(stats_body));
  std::map<std::string, std::int64_t> out;
  for (const auto& e : requests->as_array()) {
    out[std::string(e.at("method").as_string()) + " " + std::string(e.at("path").as_string())] +=
        e.at("count").to_number<std::int64_t>();
  }
  return out;
}

pve_sim_process::~pve_sim_process() {
  if (process_) process_->stop();
  process_.reset();
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

}  // namespace kp::test
