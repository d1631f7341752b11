#pragma once
// Owns an io_context and the threads that run it, with a work guard so it idles instead of
// returning. Binaries have one; deterministic actor tests use none and poll the context instead.
// A handler that throws does not stop the threads: the exception is reported to the owner
// (failure_report.hpp) and counted, and the threads carry on with the next handler.
#include <cstdint>
#include <memory>

#include "protocol/transport/failure_report.hpp"

namespace boost::asio {
class io_context;
}

namespace kp::transport {

class io_runtime {
 public:
  explicit io_runtime(unsigned threads = 1, failure_reporter on_failure = {});
  ~io_runtime();  // stop() and join
  io_runtime(const io_runtime&) = delete;
  io_runtime& operator=(const io_runtime&) = delete;

  boost::asio::io_context& context();
  void stop();
  // Handlers that threw since the start.
  std::uint64_t failures() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Runs `io` on the calling thread until it stops, like io.run(), but reports and counts a
// handler that throws instead of returning early or swallowing it. For binaries that run their
// context on the main thread.
std::uint64_t run_reporting(boost::asio::io_context& io, const failure_reporter& on_failure);

}  // namespace kp::transport
