// How the client fails: each failure has its code ("connect", "timeout", ...) and never hangs.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

// A listening socket that never accepts: the kernel completes TCP connects, nothing answers.
struct silent_listener {
  silent_listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd, 16), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~silent_listener() { ::close(fd); }
  int fd = -1;
  std::uint16_t port = 0;
};

TEST(TransportClient, ARequestTimesOutWhenTheServerNeverAnswers) {
  std::mutex mutex;
  std::vector<std::shared_ptr<http_exchange>> held;  // never answered
  test_server server([&](http_request, std::shared_ptr<http_exchange> exchange) {
    std::lock_guard lock(mutex);
    held.push_back(std::move(exchange));
  });
  io_runtime io;
  client_options options;
  options.request_timeout = std::chrono::milliseconds(100);
  http_client client(io.context(), options);
  const auto start = std::chrono::steady_clock::now();
  auto r = send_and_wait(client, server.url(), get("/slow"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "timeout") << r.error().message;
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(90));
}

TEST(TransportClient, AConnectionRefusedFailsWithConnect) {
  std::uint16_t port;
  {
    test_server gone(echo_handler());
    port = gone.server.port();
  }
  io_runtime io;
  http_client client(io.context(), {});
  auto r = send_and_wait(client, "http://127.0.0.1:" + std::to_string(port), get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect") << r.error().message;
}

TEST(TransportClient, AHandshakeThatNeverCompletesFailsWithConnectAfterTheConnectTimeout) {
  silent_listener listener;
  io_runtime io;
  client_options options;
  options.connect_timeout = std::chrono::milliseconds(100);
  options.insecure_skip_verify = true;
  http_client client(io.context(), options);
  const auto start = std::chrono::steady_clock::now();
  auto r = send_and_wait(client, "https://127.0.0.1:" + std::to_string(listener.port), get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect") << r.error().message;
  EXPECT_NE(r.error().message.find("timed out"), std::string::npos) << r.error().message;
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(90));
}

TEST(TransportClient, AMalformedBaseUrlFailsWithoutConnecting) {
  io_runtime io;
  http_client client(io.context(), {});
  auto r = send_and_wait(client, "ftp://example", get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect");
}

TEST(TransportClient, ABasePathPrefixIsPrependedToTheTarget) {
  test_server server(echo_handler());
  io_runtime io;
  http_client client(io.context(), {});
  auto r = send_and_wait(client, server.url() + "/api2/json/", get("/nodes?full=1"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "GET /api2/json/nodes?full=1 ");
}

TEST(TransportClient, ABodyAndHeadersTravelBothWays) {
  test_server server([](http_request request, std::shared_ptr<http_exchange> exchange) {
    http_response r;
    r.status = 201;
    r.headers.emplace_back("X-Seen", std::string(request.header("x-token")));
    r.body = request.body;
    exchange->respond(std::move(r));
  });
  io_runtime io;
  http_client client(io.context(), {});
  http_request request = get("/objects");
  request.method = "POST";
  request.headers.emplace_back("X-Token", "abc");
  request.body = std::string(100000, 'z');
  auto r = send_and_wait(client, server.url(), request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->header("x-seen"), "abc");
  EXPECT_EQ(r->body.size(), 100000u);
}

TEST(TransportClient, AResponseBodyOverTheClientLimitFailsWithProtocol) {
  test_server server([](http_request, std::shared_ptr<http_exchange> exchange) {
    http_response r;
    r.body = std::string(10000, 'x');
    exchange->respond(std::move(r));
  });
  io_runtime io;
  client_options options;
  options.body_limit = 1000;
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url(), get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "protocol") << r.error().message;
}

}  // namespace
