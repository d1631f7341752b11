#pragma once
// Test support: runs a binary as a real process with an explicit environment, reads its stdout
// and stderr through pipes with deadlines (poll, never sleep), signals it and waits for its exit.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kp::test {

class child_process {
 public:
  using clock = std::chrono::steady_clock;

  // argv[0] is the path; env is the whole environment of the child.
  child_process(const std::vector<std::string>& argv,
                const std::map<std::string, std::string>& env) {
    // Close-on-exec, so that no other child inherits these pipes and holds them open after this
    // one exits; dup2 clears the flag on the child's stdout and stderr.
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      ::close(out[0]);
      ::close(err[0]);
      std::vector<std::string> env_text;
      for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
      std::vector<char*> args, envp;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      for (auto& e : env_text) envp.push_back(e.data());
      args.push_back(nullptr);
      envp.push_back(nullptr);
      ::execve(args[0], args.data(), envp.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~child_process() {
    if (!exit_code_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    ::close(out_fd_);
    ::close(err_fd_);
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

  // Reads until `done(stdout so far)` holds or the deadline passes; returns whether it held.
  bool read_until(const std::function<bool(const std::string&)>& done,
                  std::chrono::milliseconds timeout) {
    auto deadline = clock::now() + timeout;
    while (!done(out_)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0 || !pump(static_cast<int>(left.count()))) return done(out_);
    }
    return true;
  }

  void signal(int number) { ::kill(pid_, number); }
  pid_t pid() const { return pid_; }

  // Waits for exit (reading output meanwhile); nullopt when the deadline passes first.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    auto deadline = clock::now() + timeout;
    while (!exit_code_) {
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0) return std::nullopt;
      // Poll the pipes with a short slice: a child that exits closes them, waking us at once.
      if (!pump(static_cast<int>(std::min<long>(left.count(), 20)))) {
        ::poll(nullptr, 0, static_cast<int>(std::min<long>(left.count(), 5)));
      }
    }
    while (pump(0)) {
    }
    return exit_code_;
  }

 private:
  // Reads what is available within `timeout_ms`; false when both pipes are closed or nothing
  // arrived in time.
  bool pump(int timeout_ms) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, timeout_ms);
    if (n <= 0) return false;
    bool any = false;
    char buffer[4096];
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP)) {
        ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
        if (got > 0) {
          (i == 0 ? out_ : err_).append(buffer, static_cast<std::size_t>(got));
          any = true;
        }
      }
    }
    return any;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::optional<int> exit_code_;
};

struct finished_process {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs to completion within `timeout` (killed otherwise, exit_code -1).
inline finished_process run_to_end(const std::vector<std::string>& argv,
                                   const std::map<std::string, std::string>& env,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  child_process p(argv, env);
  auto code = p.wait_exit(timeout);
  return {code.value_or(-1), p.out(), p.err()};
}

inline std::string binary_path(const std::string& name) {
  const char* dir = std::getenv("KP_BIN_DIR");
  return std::string(dir ? dir : "build/bin") + "/" + name;
}

}  // namespace kp::test
