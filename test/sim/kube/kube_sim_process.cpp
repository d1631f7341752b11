#include "kube_sim_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/kube/json_util.hpp"

extern char** environ;

namespace kp::sim::kube::testing {

namespace {

std::string bin_dir() {
  const char* d = std::getenv("KP_BIN_DIR");
  return d ? d : "build/bin";
}

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

std::vector<char*> c_argv(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

command_result run_command(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& input,
                           std::chrono::milliseconds timeout, const output_predicate& until) {
  command_result r;
  // Close-on-exec: a command started meanwhile from another thread (kubectl drain or a watch
  // running in the background) must not inherit these pipes, or this command's output would not
  // reach end-of-file until that other process exits. dup2 clears the flag on 0, 1 and 2.
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC))
    return r;
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string s(*e);
    bool overridden = false;
    for (const auto& o : env)
      if (s.compare(0, o.find('=') + 1, o, 0, o.find('=') + 1) == 0) overridden = true;
    if (!overridden) envs.push_back(s);
  }
  for (const auto& o : env) envs.push_back(o);
  auto args = c_argv(argv);
  auto envp = c_argv(envs);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!input.empty()) {
    ssize_t off = 0;
    while (off < static_cast<ssize_t>(input.size())) {
      auto n = write(in_pipe[1], input.data() + off, input.size() - static_cast<std::size_t>(off));
      if (n <= 0) break;
      off += n;
    }
  }
  close(in_pipe[1]);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      r.timed_out = true;
      kill(pid, SIGTERM);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      auto n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      }
    }
    if (until && until(r.out)) {
      r.stopped_early = true;
      kill(pid, SIGTERM);
      break;
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  std::vector<std::string> argv{bin_dir() + "/kube-sim", "--listen", "127.0.0.1:0",
                                "--kubeconfig-out", kubeconfig_};
  for (auto& a : extra_args) argv.push_back(a);
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC)) {
    error_ = "pipe failed";
    return;
  }
  auto args = c_argv(argv);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out_pipe[1], 1);
    close(out_pipe[0]);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  pollfd pfd{out_pipe[0], POLLIN, 0};
  char c;
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    if (poll(&pfd, 1, 200) <= 0) continue;
    if (read(out_pipe[0], &c, 1) != 1) break;
    line += c;
  }
  close(out_pipe[0]);
  if (line.empty() || line.back() != '\n') {
    error_ = "kube-sim did not print its address (is " + argv[0] + " built?)";
    return;
  }
  url_ = line.substr(0, line.size() - 1);
  auto kc = read_file(kubeconfig_);
  token_ = yaml_value(kc, "token");
  ca_pem_ = base64_decode(yaml_value(kc, "certificate-authority-data")).value_or("");
  if (token_.empty() || ca_pem_.empty()) error_ = "kubeconfig lacks token or CA";
}

kube_sim_process::~kube_sim_process() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (!dir_.empty()) {
    std::string cmd = "rm -rf '" + dir_ + "'";
    (void)std::system(cmd.c_str());
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
