#pragma once
// A child process of the lab (a simulator or the controller): started with its own arguments and
// extra environment, its stdout and stderr copied line by line into a log file by a reader thread
// (so a chatty child never blocks on a full pipe), and stopped with SIGTERM then SIGKILL.
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/result.hpp"

namespace kp::lab {

// From a signal handler: SIGTERM to every child still running (async-signal-safe).
void terminate_children_from_signal();

class child_process {
 public:
  child_process() = default;
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  // Starts argv[0] with argv, the parent's environment plus `env` ("K=V", overriding), stdout and
  // stderr appended to `log_path`.
  status start(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::string& log_path);

  // Waits until a line satisfying `pred` was printed (either stream); returns that line, or an
  // error when the deadline passes or the process exits first.
  result<std::string> wait_for_line(const std::function<bool(const std::string&)>& pred,
                                    std::chrono::milliseconds within);

  // SIGTERM, then SIGKILL after `grace`; reaps the process. Safe to call twice.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
  // SIGKILL at once (a crash) and reap.
  void kill_now();

  bool running();
  pid_t pid() const { return pid_; }
  // The exit status once reaped (128 + signal number when a signal ended it).
  std::optional<int> exit_code() const { return exit_code_; }
  const std::string& log_path() const { return log_path_; }
  // Every line printed so far (kept in memory for tests and the lab's failure messages).
  std::vector<std::string> lines();

 private:
  void reap(bool block);
  void read_output(int fd);

  pid_t pid_ = -1;
  bool exited_ = false;
  std::optional<int> exit_code_;
  std::string log_path_;
  std::thread reader_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  bool output_closed_ = false;
};

}  // namespace kp::lab
