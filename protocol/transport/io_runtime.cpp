#include "protocol/transport/io_runtime.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kp::transport {

namespace net = boost::asio;

namespace {

// io_context::run() returns early when a handler throws; run again after reporting it, until
// the context really stops.
void run_until_stopped(net::io_context& io, const failure_reporter& on_failure,
                       std::atomic<std::uint64_t>& failures) {
  for (;;) {
    try {
      io.run();
      return;
    } catch (...) {
      failures.fetch_add(1);
      report_failure(on_failure, "a handler run by the io_context", std::current_exception());
    }
  }
}

}  // namespace

struct io_runtime::impl {
  net::io_context io;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard;
  std::vector<std::thread> threads;
  std::mutex mutex;  // stop() may be called from several threads (and from the destructor)
  failure_reporter on_failure;
  std::atomic<std::uint64_t> failures{0};
};

io_runtime::io_runtime(unsigned threads, failure_reporter on_failure)
    : impl_(std::make_unique<impl>()) {
  impl_->on_failure = std::move(on_failure);
  impl_->guard.emplace(impl_->io.get_executor());
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) {
    impl_->threads.emplace_back(
        [this] { run_until_stopped(impl_->io, impl_->on_failure, impl_->failures); });
  }
}

io_runtime::~io_runtime() {
  stop();
  // Destroyed from one of its own threads: that thread cannot be joined, so let it finish alone.
  for (auto& t : impl_->threads)
    if (t.joinable()) t.detach();
}

net::io_context& io_runtime::context() {
  return impl_->io;
}

std::uint64_t io_runtime::failures() const {
  return impl_->failures.load();
}

void io_runtime::stop() {
  std::lock_guard lock(impl_->mutex);
  impl_->guard.reset();
  impl_->io.stop();
  for (auto& t : impl_->threads) {
    // stop() called from an io thread (e.g. a signal handler posted there) must not join itself.
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
  std::erase_if(impl_->threads, [](const std::thread& t) { return !t.joinable(); });
}

std::uint64_t run_reporting(net::io_context& io, const failure_reporter& on_failure) {
  std::atomic<std::uint64_t> failures{0};
  run_until_stopped(io, on_failure, failures);
  return failures.load();
}

}  // namespace kp::transport
