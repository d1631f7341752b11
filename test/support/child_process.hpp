#pragma once
// The one way tests launch a child process: argv with an explicit or extended environment, stdin
// fed from a string, stdout (and stderr unless inherited) read through close-on-exec pipes with
// deadlines (poll, never sleep), SIGKILL and reaping when the object goes.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kp::test {

struct launch_options {
  // "K=V" entries added to the parent's environment (overriding it), or, when `inherit_env` is
  // false, the child's whole environment.
  std::vector<std::string> env;
  bool inherit_env = true;
  // Written to the child's stdin, which is then closed.
  std::string input;
  // False leaves stderr shared with the test (a long-running simulator's log), so it never
  // blocks on a pipe nobody reads.
  bool capture_stderr = true;
};

class child_process {
 public:
  using clock = std::chrono::steady_clock;

  // argv[0] is the path. start_error() says why it could not start (exit code 127 otherwise).
  child_process(const std::vector<std::string>& argv, const launch_options& options);
  // `env` is the child's whole environment.
  child_process(const std::vector<std::string>& argv,
                const std::map<std::string, std::string>& env);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  const std::string& start_error() const { return start_error_; }
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  pid_t pid() const { return pid_; }
  // Both output pipes reached end-of-file (or were never captured).
  bool output_closed() const { return out_fd_ < 0 && err_fd_ < 0; }

  // Reads until `done(stdout so far)` holds, the output closes or the deadline passes; returns
  // whether it held.
  bool read_until(const std::function<bool(const std::string&)>& done,
                  std::chrono::milliseconds timeout);

  void signal(int number);

  // Waits for exit (reading output meanwhile); nullopt when the deadline passes first. The code
  // is the exit status, or 128 + the signal number when a signal ended it.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Whether a signal ended it (once wait_exit returned a value).
  bool signaled() const { return signaled_; }

  // SIGTERM, then SIGKILL when it has not exited within `grace`; reaps it.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

 private:
  void launch(const std::vector<std::string>& argv, const std::vector<std::string>& envp,
              const launch_options& options);
  // Reads what is available within `timeout_ms`; false when nothing arrived (or all is closed).
  bool pump(int timeout_ms);
  bool reap(bool block);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  std::string start_error_;
  std::optional<int> exit_code_;
  bool signaled_ = false;
};

struct finished_process {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs to completion within `timeout` (killed otherwise, exit_code -1); `env` is the whole
// environment.
finished_process run_to_end(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

// $KP_BIN_DIR/<name> (build/bin/<name> when KP_BIN_DIR is unset).
std::string binary_path(const std::string& name);

}  // namespace kp::test
