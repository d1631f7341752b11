// The io runtime's threads, and the transport on a context that the test thread polls itself
// (as deterministic actor tests do).
#include "protocol/transport/io_runtime.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

TEST(TransportIoRuntime, PostedWorkRunsOnTheRuntimeThreadsAndTheDestructorJoinsThem) {
  waiter w;
  std::set<std::thread::id> threads;
  int done = 0;
  {
    io_runtime runtime(3);
    for (int i = 0; i < 300; ++i) {
      boost::asio::post(runtime.context(), [&] {
        w.update([&] {
          threads.insert(std::this_thread::get_id());
          ++done;
        });
      });
    }
    ASSERT_TRUE(w.wait([&] { return done == 300; }));
  }
  std::lock_guard lock(w.mutex());
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 3u);
}

TEST(TransportIoRuntime, ClientAndServerWorkOnAContextPolledByTheCallingThread) {
  boost::asio::io_context io;
  http_server server(io, {}, echo_handler());
  ASSERT_TRUE(server.start().ok());
  http_client client(io, {});
  std::optional<response_result> result;
  client.send("http://127.0.0.1:" + std::to_string(server.port()), get("/polled"),
              [&](response_result r) { result = std::move(r); });
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!result && std::chrono::steady_clock::now() < until)
    io.run_one_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->ok()) << result->error().message;
  EXPECT_EQ((*result)->body, "GET /polled ");
  // Nothing runs the context now: stop() must still return at once and free the port.
  const auto start = std::chrono::steady_clock::now();
  const auto port = server.port();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  boost::asio::io_context other;
  server_options same_port;
  same_port.port = port;
  http_server again(other, same_port, echo_handler());
  EXPECT_TRUE(again.start().ok());
}

TEST(TransportIoRuntime, AHandlerThatThrowsIsReportedAndTheThreadsCarryOn) {
  waiter w;
  std::vector<std::string> reports;
  bool after = false;
  io_runtime runtime(1, [&](std::string_view where, std::string_view what) {
    w.update([&] { reports.push_back(std::string(where) + ": " + std::string(what)); });
  });
  boost::asio::post(runtime.context(), [] { throw std::runtime_error("completion failed"); });
  boost::asio::post(runtime.context(), [&] { w.update([&] { after = true; }); });
  ASSERT_TRUE(w.wait([&] { return after && reports.size() == 1; }));
  EXPECT_EQ(runtime.failures(), 1u);
  std::lock_guard lock(w.mutex());
  EXPECT_NE(reports[0].find("completion failed"), std::string::npos) << reports[0];
}

TEST(TransportIoRuntime, RunReportingCountsWhatThrewAndRunsUntilTheContextStops) {
  boost::asio::io_context io;
  int reported = 0;
  boost::asio::post(io, [] { throw std::logic_error("one"); });
  boost::asio::post(io, [] { throw 7; });  // not even a std::exception
  auto failures = run_reporting(io, [&](std::string_view, std::string_view) { ++reported; });
  EXPECT_EQ(failures, 2u);
  EXPECT_EQ(reported, 2);
}

TEST(TransportIoRuntime, AResponseCallbackThatThrowsIsReportedToTheClientsOwner) {
  test_server server(echo_handler());
  waiter w;
  std::string report;
  client_options options;
  options.on_failure = [&](std::string_view where, std::string_view what) {
    w.update([&] { report = std::string(where) + ": " + std::string(what); });
  };
  io_runtime io;
  http_client client(io.context(), options);
  client.send(server.url(), get("/"),
              [](response_result) { throw std::runtime_error("caller's callback failed"); });
  ASSERT_TRUE(w.wait([&] { return !report.empty(); }));
  std::lock_guard lock(w.mutex());
  EXPECT_EQ(report, "http client: response callback: caller's callback failed");
}

}  // namespace
