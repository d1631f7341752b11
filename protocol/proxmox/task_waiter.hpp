#pragma once
// Waiting for a Proxmox task (UPID) to finish: polls its status with exponential backoff on an
// asio timer until it stops or a deadline passes. Nothing blocks and no thread sleeps; the
// completion runs on the io_context's threads.
#include <chrono>
#include <functional>

#include "core/result.hpp"
#include "protocol/proxmox/api_types.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::proxmox {

struct task_wait_options {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // overall deadline
  std::chrono::milliseconds initial_interval{200};             // first wait between polls
  std::chrono::milliseconds max_interval{std::chrono::seconds(5)};
  double multiplier = 2.0;
};

using task_status_callback = std::function<void(result<task_status>)>;
// One status request; must call its argument exactly once.
using task_poll = std::function<void(task_status_callback)>;

// Polls at once, then after initial_interval, growing by `multiplier` up to max_interval, and a
// last time at the deadline. Completes with the final status when the task succeeded;
// "task_failed" (message: the task's exitstatus) when it stopped with an error; "timeout" when
// the deadline passed with the task still running; a poll's own error unless it is transient
// (is_transient: those are retried until the deadline).
void wait_for_task(boost::asio::io_context& io, task_poll poll, task_wait_options options,
                   task_status_callback done);

}  // namespace kp::proxmox
