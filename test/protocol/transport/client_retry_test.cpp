// A kept-alive connection that the server closes just as a request goes out: idempotent
// requests are sent again once on a fresh connection, others fail with "closed".
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "core/parse_number.hpp"
#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

// A scripted server on a raw socket. On its first connection it answers one request, then reads
// the next one and closes without answering (its keep-alive timeout "raced" the request). Later
// connections answer every request with "fresh".
class racing_server {
 public:
  racing_server() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listen_fd_, 16), 0);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~racing_server() {
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    ::close(listen_fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_.load(); }

 private:
  // Reads one request (headers and a Content-Length body); false on EOF or timeout.
  static bool read_request(int fd, std::string& buffer) {
    char chunk[4096];
    for (;;) {
      auto end = buffer.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::size_t length = 0;
        auto cl = buffer.find("Content-Length: ");
        if (cl != std::string::npos && cl < end) {
          auto digits = std::string_view(buffer).substr(cl + 16);
          digits = digits.substr(0, digits.find('\r'));
          length = kp::parse_integer<std::size_t>(digits).value_or(0);
        }
        if (buffer.size() >= end + 4 + length) {
          buffer.erase(0, end + 4 + length);
          return true;
        }
      }
      auto n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }
  static void answer(int fd, const std::string& body) {
    std::string reply =
        "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
  }

  void run() {
    for (int index = 0;; ++index) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      connections_.fetch_add(1);
      timeval tv{5, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string buffer;
      if (index == 0) {
        if (read_request(fd, buffer)) answer(fd, "first");
        read_request(fd, buffer);  // the next request arrives and is dropped
      } else {
        while (read_request(fd, buffer)) answer(fd, "fresh");
      }
      ::close(fd);
    }
  }

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

TEST(TransportClient, AnIdempotentRequestOnAConnectionTheServerClosedIsRetriedOnceOnAFreshOne) {
  racing_server server;
  io_runtime io;
  http_client client(io.context(), {});
  auto first = send_and_wait(client, server.url(), get("/"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->body, "first");
  auto second = send_and_wait(client, server.url(), get("/"));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->body, "fresh");
  EXPECT_EQ(server.connections(), 2);
}

TEST(TransportClient, APostOnAConnectionTheServerClosedFailsWithClosedInsteadOfBeingResent) {
  racing_server server;
  io_runtime io;
  http_client client(io.context(), {});
  auto first = send_and_wait(client, server.url(), get("/"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  http_request post = get("/create");
  post.method = "POST";
  post.body = "{}";
  auto second = send_and_wait(client, server.url(), post);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, "closed") << second.error().message;
  EXPECT_EQ(server.connections(), 1);
}

}  // namespace
