#include "protocol/proxmox/task_waiter.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <memory>

#include "protocol/proxmox/api_error.hpp"

namespace kp::proxmox {

namespace {

using clock = std::chrono::steady_clock;

struct task_wait : std::enable_shared_from_this<task_wait> {
  task_wait(boost::asio::io_context& io, task_poll p, task_wait_options o, task_status_callback d)
      : timer(io),
        poll(std::move(p)),
        options(o),
        done(std::move(d)),
        deadline(clock::now() + o.timeout),
        interval(std::max(o.initial_interval, std::chrono::milliseconds(1))) {}

  boost::asio::steady_timer timer;
  task_poll poll;
  task_wait_options options;
  task_status_callback done;
  clock::time_point deadline;
  std::chrono::milliseconds interval;
  kp::error last_error;
  bool have_error = false;

  void poll_now() {
    poll([self = shared_from_this()](result<task_status> r) { self->on_status(std::move(r)); });
  }

  void on_status(result<task_status> r) {
    if (r.ok()) {
      const task_status& s = r.value();
      if (s.succeeded()) return done(std::move(r));
      if (!s.running()) {
        return done(
            make_error("task_failed",
                       "task " + s.type + (s.id.empty() ? "" : " " + s.id) + " on " + s.node +
                           " failed: " + (s.exitstatus.empty() ? "unknown status" : s.exitstatus)));
      }
      have_error = false;
    } else if (!is_transient(r.error())) {
      return done(r.error());
    } else {
      last_error = r.error();
      have_error = true;
    }
    auto now = clock::now();
    if (now >= deadline) {
      std::string why = "task still running when the deadline of " +
                        std::to_string(options.timeout.count()) + " ms passed";
      if (have_error) why += " (last poll: " + last_error.code + ": " + last_error.message + ")";
      return done(make_error("timeout", why));
    }
    auto wait = std::min<clock::duration>(interval, deadline - now);
    auto next =
        std::chrono::duration_cast<std::chrono::milliseconds>(interval * options.multiplier);
    interval = std::clamp(next, std::chrono::milliseconds(1),
                          std::max(options.max_interval, std::chrono::milliseconds(1)));
    timer.expires_after(wait);
    timer.async_wait([self = shared_from_this()](const boost::system::error_code&) {
      // Even when cancelled (io shutting down) poll once more: the poll's own failure ends it.
      self->poll_now();
    });
  }
};

}  // namespace

void wait_for_task(boost::asio::io_context& io, task_poll poll, task_wait_options options,
                   task_status_callback done) {
  std::make_shared<task_wait>(io, std::move(poll), options, std::move(done))->poll_now();
}

}  // namespace kp::proxmox
