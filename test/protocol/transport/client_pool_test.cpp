// The client's connection pool: keep-alive reuse, the per-host bound, the rate limit and
// recovery from connections the server closed.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

TEST(TransportClient, SequentialRequestsReuseOneKeptAliveConnection) {
  test_server server(echo_handler());
  io_runtime io;
  http_client client(io.context(), {});
  for (int i = 0; i < 5; ++i) {
    auto r = send_and_wait(client, server.url(), get("/n" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->body, "GET /n" + std::to_string(i) + " ");
  }
  EXPECT_EQ(server.server.accepted_connections(), 1u);
  EXPECT_EQ(client.open_connections(), 1u);
}

TEST(TransportClient, RequestsSentFromACompletionReuseTheSameConnection) {
  test_server server(echo_handler());
  std::promise<int> done;  // declared before the io threads, so they outlive every callback
  std::function<void(int)> next;
  io_runtime io;
  http_client client(io.context(), {});
  next = [&](int i) {
    if (i == 5) return done.set_value(i);
    client.send(server.url(), get("/"), [&, i](response_result r) {
      EXPECT_TRUE(r.ok());
      next(i + 1);
    });
  };
  next(0);
  auto f = done.get_future();
  ASSERT_EQ(f.wait_for(deadline), std::future_status::ready);
  EXPECT_EQ(server.server.accepted_connections(), 1u);
}

TEST(TransportClient, MaxConnectionsPerHostBoundsConcurrentConnections) {
  // The server holds requests until two are in flight, then answers both: with a bound of 2
  // all six requests complete over exactly two connections, never more at once.
  std::mutex mutex;
  std::vector<std::shared_ptr<http_exchange>> held;
  std::size_t most_in_flight = 0;
  test_server server([&](http_request, std::shared_ptr<http_exchange> exchange) {
    std::vector<std::shared_ptr<http_exchange>> release;
    {
      std::lock_guard lock(mutex);
      held.push_back(std::move(exchange));
      most_in_flight = std::max(most_in_flight, held.size());
      if (held.size() == 2) release.swap(held);
    }
    for (auto& e : release) e->respond(http_response{});
  });
  io_runtime io;
  client_options options;
  options.max_connections_per_host = 2;
  http_client client(io.context(), options);
  std::vector<std::future<response_result>> results;
  std::vector<std::shared_ptr<std::promise<response_result>>> promises;
  for (int i = 0; i < 6; ++i) {
    auto p = std::make_shared<std::promise<response_result>>();
    results.push_back(p->get_future());
    client.send(server.url(), get("/"), [p](response_result r) { p->set_value(std::move(r)); });
  }
  for (auto& f : results) {
    ASSERT_EQ(f.wait_for(deadline), std::future_status::ready);
    auto r = f.get();
    EXPECT_TRUE(r.ok()) << r.error().message;
  }
  EXPECT_EQ(server.server.accepted_connections(), 2u);
  std::lock_guard lock(mutex);
  EXPECT_EQ(most_in_flight, 2u);
}

TEST(TransportClient, TheRateLimitSpacesRequestsWithoutFailingThem) {
  test_server server(echo_handler());
  io_runtime io;
  client_options options;
  options.qps = 50;  // one every 20 ms after a burst of one: 5 requests take at least 80 ms
  options.burst = 1;
  http_client client(io.context(), options);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<response_result>> results;
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<std::promise<response_result>>();
    results.push_back(p->get_future());
    client.send(server.url(), get("/"), [p](response_result r) { p->set_value(std::move(r)); });
  }
  for (auto& f : results) {
    ASSERT_EQ(f.wait_for(deadline), std::future_status::ready);
    EXPECT_TRUE(f.get().ok());
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(70));
  EXPECT_LT(elapsed, std::chrono::seconds(2));
}

TEST(TransportClient, AServerRestartedBehindAPooledConnectionStillServesTheNextRequest) {
  io_runtime io;
  http_client client(io.context(), {});
  std::uint16_t port = 0;
  {
    test_server first(echo_handler());
    port = first.server.port();
    auto r = send_and_wait(client, first.url(), get("/before"));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }  // stopped: the pooled connection is now dead
  server_options options;
  options.port = port;
  test_server second(echo_handler(), options);
  ASSERT_EQ(second.server.port(), port);
  for (const char* method : {"GET", "POST"}) {
    http_request request = get("/after");
    request.method = method;
    auto r = send_and_wait(client, second.url(), request);
    ASSERT_TRUE(r.ok()) << method << ": " << r.error().message;
    EXPECT_EQ(r->body, std::string(method) + " /after ");
  }
}

TEST(TransportClient, DestroyingTheClientCancelsARequestInFlight) {
  std::mutex mutex;
  std::vector<std::shared_ptr<http_exchange>> held;
  waiter arrived;
  test_server server([&](http_request, std::shared_ptr<http_exchange> exchange) {
    arrived.update([&] { held.push_back(std::move(exchange)); });
  });
  io_runtime io;
  auto client = std::make_unique<http_client>(io.context(), client_options{});
  auto promise = std::make_shared<std::promise<response_result>>();
  client->send(server.url(), get("/"),
               [promise](response_result r) { promise->set_value(std::move(r)); });
  ASSERT_TRUE(arrived.wait([&] { return held.size() == 1; }));
  EXPECT_EQ(client->open_connections(), 1u);
  client.reset();
  auto f = promise->get_future();
  ASSERT_EQ(f.wait_for(deadline), std::future_status::ready);
  auto r = f.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "cancelled");
}

TEST(TransportClient, CloseFailsQueuedRequestsAsCancelled) {
  std::mutex mutex;
  std::vector<std::shared_ptr<http_exchange>> held;
  waiter arrived;
  test_server server([&](http_request, std::shared_ptr<http_exchange> exchange) {
    arrived.update([&] { held.push_back(std::move(exchange)); });
  });
  io_runtime io;
  client_options options;
  options.max_connections_per_host = 1;
  http_client client(io.context(), options);
  auto first = std::make_shared<std::promise<response_result>>();
  auto second = std::make_shared<std::promise<response_result>>();
  client.send(server.url(), get("/1"),
              [first](response_result r) { first->set_value(std::move(r)); });
  ASSERT_TRUE(arrived.wait([&] { return held.size() == 1; }));
  client.send(server.url(), get("/2"),
              [second](response_result r) { second->set_value(std::move(r)); });
  client.close();
  auto f2 = second->get_future();
  ASSERT_EQ(f2.wait_for(deadline), std::future_status::ready);
  auto r2 = f2.get();
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().code, "cancelled");
  {
    std::lock_guard lock(arrived.mutex());
    held.front()->respond(http_response{});
  }
  auto f1 = first->get_future();
  ASSERT_EQ(f1.wait_for(deadline), std::future_status::ready);
  EXPECT_TRUE(f1.get().ok());  // in flight: it finishes
}

}  // namespace
