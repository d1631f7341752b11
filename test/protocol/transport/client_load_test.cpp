// Many requests from several threads at once, over TLS: all complete, within the pool bound.
// The DISABLED_ test prints throughput figures (run with --gtest_also_run_disabled_tests).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

// Sends `per_thread` requests from each of `threads` threads, all in flight at once; returns
// how many succeeded, and the elapsed time.
std::pair<int, std::chrono::duration<double>> hammer(http_client& client, const std::string& url,
                                                     int threads, int per_thread) {
  waiter w;
  int finished = 0;
  std::atomic<int> ok{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        http_request request = get("/t" + std::to_string(t) + "/" + std::to_string(i));
        client.send(url, request, [&, target = request.target](response_result r) {
          if (r.ok() && r->body == "GET " + target + " ") ok.fetch_add(1);
          w.update([&] { ++finished; });
        });
      }
    });
  }
  for (auto& s : senders) s.join();
  EXPECT_TRUE(w.wait([&] { return finished == threads * per_thread; }, std::chrono::seconds(60)));
  return {ok.load(), std::chrono::steady_clock::now() - start};
}

TEST(TransportClient, ManyConcurrentRequestsFromSeveralThreadsAllCompleteWithinThePoolBound) {
  const auto& pki = test_pki::get();
  test_server server(echo_handler(), pki.tls_options());
  io_runtime io(2);
  auto options = pki.trusting();
  options.max_connections_per_host = 4;
  http_client client(io.context(), options);
  auto [ok, elapsed] = hammer(client, server.url("https"), 4, 100);
  EXPECT_EQ(ok, 400);
  EXPECT_LE(server.server.accepted_connections(), 4u);
  EXPECT_LE(client.open_connections(), 4u);
}

TEST(TransportClient, DISABLED_ThroughputFigures) {
  const auto& pki = test_pki::get();
  for (bool tls : {false, true}) {
    for (std::size_t connections : {std::size_t{1}, std::size_t{8}}) {
      test_server server(echo_handler(), tls ? pki.tls_options() : server_options{});
      io_runtime io(1);
      auto options = pki.trusting();
      options.max_connections_per_host = connections;
      http_client client(io.context(), options);
      hammer(client, server.url(tls ? "https" : "http"), 1, 200);  // warm up the pool
      auto [ok, elapsed] = hammer(client, server.url(tls ? "https" : "http"), 4, 2500);
      std::printf("%s, %zu connection(s): %d requests in %.3f s = %.0f req/s\n",
                  tls ? "https" : "http", connections, ok, elapsed.count(), ok / elapsed.count());
    }
  }
}

}  // namespace
