#include "kube_sim_process.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/kube/json_util.hpp"

namespace kp::sim::kube::testing {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string yaml_value(const std::string& text, const std::string& key) {
  auto pos = text.find(key + ": ");
  if (pos == std::string::npos) return {};
  auto start = pos + key.size() + 2;
  auto end = text.find('\n', start);
  return text.substr(start, end - start);
}

}  // namespace

command_result run_command(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& input,
                           std::chrono::milliseconds timeout, const output_predicate& until) {
  command_result r;
  kp::test::launch_options options;
  options.env = env;
  options.input = input;
  kp::test::child_process p(argv, options);
  if (!p.start_error().empty()) return r;
  auto enough = [&](const std::string& out) { return until && until(out); };
  if (p.read_until(enough, timeout)) {
    r.stopped_early = true;
    p.signal(SIGTERM);
  } else if (!p.output_closed()) {
    r.timed_out = true;
    p.signal(SIGTERM);
  }
  auto code = p.wait_exit(std::chrono::seconds(10));
  r.out = p.out();
  r.err = p.err();
  r.exit_code = code && !p.signaled() ? *code : -1;
  return r;
}

std::optional<std::string> find_kubectl() {
  for (const char* p : {"/usr/bin/kubectl", "/usr/local/bin/kubectl"})
    if (access(p, X_OK) == 0) return std::string(p);
  return std::nullopt;
}

kube_sim_process::kube_sim_process(std::vector<std::string> extra_args) {
  char tmpl[] = "/tmp/kube-sim-test-XXXXXX";
  if (!mkdtemp(tmpl)) {
    error_ = "mkdtemp failed";
    return;
  }
  dir_ = tmpl;
  kubeconfig_ = dir_ + "/kubeconfig";
  std::vector<std::string> argv{kp::test::binary_path("kube-sim"), "--listen", "127.0.0.1:0",
                                "--kubeconfig-out", kubeconfig_};
  for (auto& a : extra_args) argv.push_back(a);
  kp::test::launch_options options;
  options.capture_stderr = false;
  process_ = std::make_unique<kp::test::child_process>(argv, options);
  auto has_line = [](const std::string& out) { return out.find('\n') != std::string::npos; };
  if (!process_->start_error().empty() ||
      !process_->read_until(has_line, std::chrono::seconds(20))) {
    error_ = "kube-sim did not print its address (is " + argv[0] + " built?)";
    return;
  }
  std::string line = process_->out().substr(0, process_->out().find('\n') + 1);
  url_ = line.substr(0, line.size() - 1);
  auto kc = read_file(kubeconfig_);
  token_ = yaml_value(kc, "token");
  ca_pem_ = base64_decode(yaml_value(kc, "certificate-authority-data")).value_or("");
  if (token_.empty() || ca_pem_.empty()) error_ = "kubeconfig lacks token or CA";
}

kube_sim_process::~kube_sim_process() {
  if (process_) process_->stop();
  process_.reset();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

command_result kube_sim_process::kubectl(const std::vector<std::string>& args,
                                         const std::string& input,
                                         std::chrono::milliseconds timeout,
                                         const output_predicate& until) const {
  auto k = find_kubectl();
  if (!k) return {};
  // A fresh discovery cache per run: kubectl caches discovery for hours, which would hide
  // resources served after a CRD is created.
  static std::atomic<int> runs{0};  // kubectl runs from several threads at once
  std::string cache = dir_ + "/cache-" + std::to_string(++runs);
  std::vector<std::string> argv{*k, "--cache-dir", cache};
  for (const auto& a : args) argv.push_back(a);
  std::string home = dir_ + "/home";
  mkdir(home.c_str(), 0700);
  return run_command(argv, {"HOME=" + home, "KUBECONFIG=" + kubeconfig_}, input, timeout, until);
}

}  // namespace kp::sim::kube::testing
