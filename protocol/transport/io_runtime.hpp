#pragma once
// Owns an io_context and the threads that run it, with a work guard so it idles instead of
// returning. Binaries have one; deterministic actor tests use none and poll the context instead.
#include <memory>

namespace boost::asio {
class io_context;
}

namespace kp::transport {

class io_runtime {
 public:
  explicit io_runtime(unsigned threads = 1);
  ~io_runtime();  // stop() and join
  io_runtime(const io_runtime&) = delete;
  io_runtime& operator=(const io_runtime&) = delete;

  boost::asio::io_context& context();
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kp::transport
