#include "test/support/pve_sim_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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
  std::string bin = binary();
  std::vector<std::string> args{bin, "--listen", "127.0.0.1:0", "--ca-out", ca};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Close-on-exec, so that no other child (another simulator, a kubectl run) inherits the
  // write end and keeps this pipe open after pve-sim exits; dup2 clears it on stdout.
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return make_error("io", "pipe failed");
  pid_ = fork();
  if (pid_ < 0) return make_error("io", "fork failed");
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  stdout_fd_ = out[0];
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (line.find('\n') == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return make_error("timeout", "pve-sim printed no URL within 30 s");
    pollfd p{stdout_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[256];
    auto n = read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) return make_error("io", "pve-sim exited before printing its URL");
    line.append(buf, static_cast<std::size_t>(n));
  }
  url_ = line.substr(0, line.find('\n'));
  std::ifstream in(ca);
  std::stringstream s;
  s << in.rdbuf();
  ca_pem_ = s.str();
  if (ca_pem_.empty()) return make_error("io", "pve-sim wrote no CA to " + ca);
  return {};
}

pve_sim_process::~pve_sim_process() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

}  // namespace kp::test
