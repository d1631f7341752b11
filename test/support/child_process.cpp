#include "test/support/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace kp::test {

namespace {

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string key_of(const std::string& entry) {
  return entry.substr(0, entry.find('=') + 1);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

child_process::child_process(const std::vector<std::string>& argv, const launch_options& options) {
  std::vector<std::string> envp;
  if (options.inherit_env) {
    for (char** e = environ; *e != nullptr; ++e) {
      std::string entry(*e);
      bool overridden =
          std::any_of(options.env.begin(), options.env.end(),
                      [&](const std::string& o) { return key_of(o) == key_of(entry); });
      if (!overridden) envp.push_back(std::move(entry));
    }
  }
  envp.insert(envp.end(), options.env.begin(), options.env.end());
  launch(argv, envp, options);
}

child_process::child_process(const std::vector<std::string>& argv,
                             const std::map<std::string, std::string>& env) {
  std::vector<std::string> envp;
  for (const auto& [k, v] : env) envp.push_back(k + "=" + v);
  launch(argv, envp, launch_options{});
}

void child_process::launch(const std::vector<std::string>& argv,
                           const std::vector<std::string>& envp, const launch_options& options) {
  // Close-on-exec, so that no other child started meanwhile (from another thread) inherits these
  // pipes and holds them open after this one exits; dup2 clears the flag on 0, 1 and 2.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (argv.empty() || ::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      (options.capture_stderr && ::pipe2(err, O_CLOEXEC) != 0)) {
    start_error_ = argv.empty() ? "no argv" : std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return;
  }
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> args = argv, env = envp;
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    if (err[1] >= 0) ::dup2(err[1], STDERR_FILENO);
    ::execve(c_args[0], c_args.data(), c_env.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (err[1] >= 0) ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (pid_ < 0) {
    start_error_ = std::string("fork: ") + std::strerror(errno);
    close_fd(out_fd_);
    close_fd(err_fd_);
    ::close(in[1]);
    return;
  }
  // A child that exits without reading its input must not kill the test with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::size_t off = 0;
  while (off < options.input.size()) {
    auto n = ::write(in[1], options.input.data() + off, options.input.size() - off);
    if (n <= 0) break;
    off += static_cast<std::size_t>(n);
  }
  ::close(in[1]);
}

child_process::~child_process() {
  if (pid_ > 0 && !exit_code_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  close_fd(out_fd_);
  close_fd(err_fd_);
}

bool child_process::pump(int timeout_ms) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (output_closed() || ::poll(fds, 2, timeout_ms) <= 0) return false;
  bool any = false;
  char buffer[65536];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    auto got = ::read(fds[i].fd, buffer, sizeof buffer);
    if (got > 0) {
      (i == 0 ? out_ : err_).append(buffer, static_cast<std::size_t>(got));
      any = true;
    } else {
      close_fd(i == 0 ? out_fd_ : err_fd_);
      any = true;  // a pipe closing is progress too
    }
  }
  return any;
}

bool child_process::read_until(const std::function<bool(const std::string&)>& done,
                               std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  while (!done(out_)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0 || output_closed()) return done(out_);
    pump(static_cast<int>(left.count()));
  }
  return true;
}

void child_process::signal(int number) {
  if (pid_ > 0 && !exit_code_) ::kill(pid_, number);
}

bool child_process::reap(bool block) {
  if (exit_code_) return true;
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, block ? 0 : WNOHANG) != pid_) return false;
  signaled_ = WIFSIGNALED(status);
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

std::optional<int> child_process::wait_exit(std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  while (!reap(false)) {
    if (pid_ <= 0) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) return std::nullopt;
    // Read in short slices: a child that exits closes its pipes and wakes this at once; one
    // whose pipes are already closed (or inherited by a grandchild) is checked every 5 ms.
    int slice = static_cast<int>(std::min<long>(left.count(), output_closed() ? 5 : 20));
    if (!pump(slice) && output_closed()) ::poll(nullptr, 0, slice);
  }
  while (pump(0)) {
  }
  return exit_code_;
}

void child_process::stop(std::chrono::milliseconds grace) {
  signal(SIGTERM);
  if (!wait_exit(grace)) {
    signal(SIGKILL);
    reap(true);
  }
}

finished_process run_to_end(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env,
                            std::chrono::milliseconds timeout) {
  child_process p(argv, env);
  auto code = p.wait_exit(timeout);
  return {code.value_or(-1), p.out(), p.err()};
}

std::string binary_path(const std::string& name) {
  const char* dir = std::getenv("KP_BIN_DIR");
  return std::string(dir ? dir : "build/bin") + "/" + name;
}

}  // namespace kp::test
