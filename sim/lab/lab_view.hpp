#pragma once
// `karpenter-proxmox lab --view`: the view (`karpenter-proxmox view --once` with the lab's own
// settings, a child process like every other part of the lab) beside the lab's progress. A
// thread takes a frame every `interval`. On a terminal the screen is redrawn: the newest frame,
// then the last progress lines. Off a terminal each progress line is printed as it comes, and a
// frame follows once per interval in which something progressed, so a log stays readable.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace kp::lab {

class lab_world;

struct lab_view_options {
  std::string binary;  // karpenter-proxmox
  bool terminal = false;
  bool colour = false;  // asked of the view on a terminal (its own output is a pipe)
  std::chrono::milliseconds interval{std::chrono::seconds(2)};
  std::size_t progress_lines = 12;  // kept under the frame on a terminal
};

class lab_view {
 public:
  lab_view(lab_world& world, lab_view_options options);
  ~lab_view();  // stops the thread (and a view still running) before the world goes
  lab_view(const lab_view&) = delete;
  lab_view& operator=(const lab_view&) = delete;

  // The lab's progress sink while the view runs.
  void progress(const std::string& line);

 private:
  void run();
  std::string take_frame();
  void draw();  // with `m_` held

  lab_world& world_;
  lab_view_options options_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool progressed_ = false;  // a progress line since the last frame printed off a terminal
  std::string frame_;
  std::deque<std::string> recent_;
  std::thread thread_;
};

}  // namespace kp::lab
