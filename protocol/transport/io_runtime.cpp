#include "protocol/transport/io_runtime.hpp"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kp::transport {

namespace net = boost::asio;

struct io_runtime::impl {
  net::io_context io;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> guard;
  std::vector<std::thread> threads;
  std::mutex mutex;  // stop() may be called from several threads (and from the destructor)
};

io_runtime::io_runtime(unsigned threads) : impl_(std::make_unique<impl>()) {
  impl_->guard.emplace(impl_->io.get_executor());
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) {
    impl_->threads.emplace_back([this] {
      // A handler that throws must not take the whole process down silently; keep running.
      for (;;) {
        try {
          impl_->io.run();
          return;
        } catch (...) {
        }
      }
    });
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

}  // namespace kp::transport
