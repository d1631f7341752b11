#include "sim/lab/lab_view.hpp"

#include <iostream>

#include "sim/lab/child_process.hpp"
#include "sim/lab/lab_world.hpp"

namespace kp::lab {

lab_view::lab_view(lab_world& world, lab_view_options options)
    : world_(world), options_(std::move(options)) {
  thread_ = std::thread([this] { run(); });
}

lab_view::~lab_view() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void lab_view::progress(const std::string& line) {
  std::lock_guard lock(m_);
  recent_.push_back(line);
  while (recent_.size() > options_.progress_lines) recent_.pop_front();
  progressed_ = true;
  if (options_.terminal) {
    draw();
  } else {
    std::cout << line << std::endl;
  }
}

void lab_view::draw() {
  std::string screen = "\x1b[H\x1b[2J" + frame_ + "\n";
  for (const auto& l : recent_) screen += l + "\n";
  std::cout << screen << std::flush;
}

// One `view --once` with the lab's settings; its output (or why there is none) is the frame.
std::string lab_view::take_frame() {
  std::vector<std::string> argv{options_.binary};
  for (const auto& [k, v] : world_.controller_settings()) argv.push_back("--" + k + "=" + v);
  for (const char* a : {"view", "--once", "--timeout", "5", "--color"}) argv.emplace_back(a);
  argv.emplace_back(options_.colour ? "always" : "never");
  child_process view;
  // The settings come as flags; inherited variables would be read instead of the defaults.
  const std::vector<std::string> env{"KUBECONFIG=", "CLOUD_CONFIG=", "CLUSTER_NAME="};
  if (auto s = view.start(argv, env, world_.work_dir() + "/view.log"); !s)
    return "lab: view: " + s.error().message + "\n";
  // Its output ends when it exits; no line is awaited.
  (void)view.wait_for_line([](const std::string&) { return false; }, std::chrono::seconds(10));
  view.stop(std::chrono::seconds(1));
  std::string frame;
  for (const auto& l : view.lines()) frame += l + "\n";
  if (view.exit_code() != 0)
    frame += "lab: view exited with " + std::to_string(view.exit_code().value_or(-1)) + "\n";
  return frame;
}

void lab_view::run() {
  std::unique_lock lock(m_);
  while (!stopping_) {
    lock.unlock();
    auto frame = take_frame();
    lock.lock();
    if (stopping_) break;
    frame_ = std::move(frame);
    if (options_.terminal) {
      draw();
    } else if (progressed_) {
      progressed_ = false;
      std::cout << frame_ << std::flush;
    }
    cv_.wait_for(lock, options_.interval, [this] { return stopping_; });
  }
}

}  // namespace kp::lab
