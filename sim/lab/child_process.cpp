#include "sim/lab/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern char** environ;

namespace kp::lab {

namespace {

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    auto key = entry.substr(0, entry.find('=') + 1);
    bool overridden = false;
    for (const auto& x : extra)
      if (x.compare(0, key.size(), key) == 0) overridden = true;
    if (!overridden) out.push_back(entry);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// Live children, for the signal handler; slots are claimed and released by pid.
constexpr int max_children = 64;
volatile sig_atomic_t live_children[max_children] = {};

void remember_child(pid_t pid) {
  for (auto& slot : live_children)
    if (slot == 0) {
      slot = pid;
      return;
    }
}

void forget_child(pid_t pid) {
  for (auto& slot : live_children)
    if (slot == pid) slot = 0;
}

}  // namespace

void terminate_children_from_signal() {
  for (auto& slot : live_children)
    if (slot > 0) ::kill(static_cast<pid_t>(slot), SIGTERM);
}

child_process::~child_process() {
  stop(std::chrono::seconds(3));
}

status child_process::start(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env, const std::string& log_path) {
  if (argv.empty()) return make_error("invalid_argument", "no program to start");
  if (access(argv[0].c_str(), X_OK) != 0)
    return make_error("not_found", argv[0] + " is not an executable (is it built?)");
  log_path_ = log_path;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return make_error("io", "pipe failed");
  auto args = argv;
  auto envs = merged_environment(env);
  auto c_args = c_strings(args);
  auto c_envs = c_strings(envs);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) return make_error("io", "fork failed");
  if (pid_ == 0) {
    // Its own process group, so a terminal's Ctrl-C reaches the lab, which then stops children
    // in order (the controller before the simulators it talks to).
    setpgid(0, 0);
    // Should the lab die without stopping it (SIGKILL, a test timeout), the child follows.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(c_args[0], c_args.data(), c_envs.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  remember_child(pid_);
  exited_ = false;
  output_closed_ = false;
  reader_ = std::thread([this, fd = pipe_fds[0]] { read_output(fd); });
  return {};
}

void child_process::read_output(int fd) {
  FILE* log = std::fopen(log_path_.c_str(), "a");
  std::string partial;
  char buf[16384];
  for (;;) {
    auto n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (log != nullptr) {
      std::fwrite(buf, 1, static_cast<std::size_t>(n), log);
      std::fflush(log);
    }
    partial.append(buf, static_cast<std::size_t>(n));
    std::vector<std::string> complete;
    std::size_t start = 0;
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      complete.push_back(partial.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    if (!complete.empty()) {
      std::lock_guard lock(m_);
      for (auto& l : complete) lines_.push_back(std::move(l));
      cv_.notify_all();
    }
  }
  close(fd);
  if (log != nullptr) std::fclose(log);
  std::lock_guard lock(m_);
  if (!partial.empty()) lines_.push_back(partial);
  output_closed_ = true;
  cv_.notify_all();
}

result<std::string> child_process::wait_for_line(
    const std::function<bool(const std::string&)>& pred, std::chrono::milliseconds within) {
  std::unique_lock lock(m_);
  std::size_t seen = 0;
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    for (; seen < lines_.size(); ++seen)
      if (pred(lines_[seen])) return lines_[seen];
    if (output_closed_)
      return make_error("exited", "the process ended its output (see " + log_path_ + ")");
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && seen == lines_.size())
      return make_error("timeout", "no such line within " + std::to_string(within.count()) +
                                       " ms (see " + log_path_ + ")");
  }
}

void child_process::reap(bool block) {
  if (pid_ <= 0 || exited_) return;
  int st = 0;
  auto r = waitpid(pid_, &st, block ? 0 : WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    exited_ = true;
    if (r == pid_) exit_code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    forget_child(pid_);
  }
}

bool child_process::running() {
  reap(false);
  return pid_ > 0 && !exited_;
}

void child_process::stop(std::chrono::milliseconds grace) {
  if (pid_ > 0 && running()) {
    ::kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + grace;
    // Waiting for a child to exit has no portable blocking form with a timeout; a short poll
    // with a deadline is the bounded alternative.
    while (running() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (running()) {
      // The whole group, so no grandchild keeps the output pipe open.
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      reap(true);
    }
  }
  if (reader_.joinable()) reader_.join();
}

void child_process::kill_now() {
  if (pid_ > 0 && running()) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  if (reader_.joinable()) reader_.join();
}

std::vector<std::string> child_process::lines() {
  std::lock_guard lock(m_);
  return lines_;
}

}  // namespace kp::lab
