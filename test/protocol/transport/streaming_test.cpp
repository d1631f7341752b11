// Streaming responses (watches): chunks in order, cancel, idle timeout, server-side close.
#include <gtest/gtest.h>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

// What a client stream saw, guarded by the waiter's mutex.
struct stream_record {
  waiter w;
  int status = 0;
  std::string content_type;
  std::string data;
  std::optional<kp::status> end;

  stream_callbacks callbacks() {
    stream_callbacks cb;
    cb.on_head = [this](int s, const header_list& h) {
      w.update([&] {
        status = s;
        content_type = std::string(find_header(h, "content-type"));
      });
    };
    cb.on_data = [this](std::string_view d) { w.update([&] { data += d; }); };
    cb.on_end = [this](kp::status s) { w.update([&] { end = std::move(s); }); };
    return cb;
  }
  bool wait_data(const std::string& expected) {
    return w.wait([&] { return data == expected; });
  }
  bool wait_end() {
    return w.wait([&] { return end.has_value(); });
  }
};

// Holds the server-side exchanges of open streams.
struct stream_holder {
  std::mutex mutex;
  std::vector<std::shared_ptr<http_exchange>> exchanges;
  waiter closed;
  int close_calls = 0;

  request_handler handler(std::vector<std::string> chunks) {
    return [this, chunks](http_request, std::shared_ptr<http_exchange> exchange) {
      exchange->start_stream(200, {{"Content-Type", "application/json"}});
      for (const auto& c : chunks) exchange->write(c);
      exchange->on_close([this] { closed.update([&] { ++close_calls; }); });
      std::lock_guard lock(mutex);
      exchanges.push_back(std::move(exchange));
    };
  }
};

TEST(TransportStream, ChunksArriveInOrderAndCancelEndsTheStreamWithAnError) {
  stream_holder holder;
  test_server server(holder.handler({"{\"a\":1}\n", "{\"b\":2}\n", "{\"c\":3}\n"}));
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream =
      client.open_stream(server.url(), get("/watch"), record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_data("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n")) << record.data;
  {
    std::lock_guard lock(record.w.mutex());
    EXPECT_EQ(record.status, 200);
    EXPECT_EQ(record.content_type, "application/json");
    EXPECT_FALSE(record.end.has_value());
  }
  // More data after the first batch still arrives, in order.
  {
    std::lock_guard lock(holder.mutex);
    holder.exchanges.front()->write("{\"d\":4}\n");
  }
  ASSERT_TRUE(record.wait_data("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\":4}\n")) << record.data;
  stream->cancel();
  ASSERT_TRUE(record.wait_end());
  {
    std::lock_guard lock(record.w.mutex());
    ASSERT_FALSE(record.end->ok());
    EXPECT_EQ(record.end->error().code, "cancelled");
  }
  // The server notices the client leaving: on_close runs and the exchange is no longer open.
  ASSERT_TRUE(holder.closed.wait([&] { return holder.close_calls == 1; }));
  std::lock_guard lock(holder.mutex);
  EXPECT_FALSE(holder.exchanges.front()->open());
}

TEST(TransportStream, AStreamTheServerFinishesEndsOkWithAllItsData) {
  std::string expected;
  std::vector<std::string> chunks;
  for (int i = 0; i < 200; ++i) {
    chunks.push_back("line " + std::to_string(i) + "\n");
    expected += chunks.back();
  }
  test_server server([chunks](http_request, std::shared_ptr<http_exchange> exchange) {
    exchange->start_stream(200, {});
    for (const auto& c : chunks) exchange->write(c);
    exchange->finish();
  });
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream =
      client.open_stream(server.url(), get("/"), record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_end());
  std::lock_guard lock(record.w.mutex());
  EXPECT_TRUE(record.end->ok()) << record.end->error().message;
  EXPECT_EQ(record.data, expected);
}

TEST(TransportStream, AnErrorStatusComesAsHeadThenBodyThenAnOkEnd) {
  test_server server([](http_request, std::shared_ptr<http_exchange> exchange) {
    http_response r;
    r.status = 410;
    r.body = "{\"reason\":\"Expired\"}";
    exchange->respond(std::move(r));
  });
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream =
      client.open_stream(server.url(), get("/"), record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_end());
  std::lock_guard lock(record.w.mutex());
  EXPECT_EQ(record.status, 410);
  EXPECT_EQ(record.data, "{\"reason\":\"Expired\"}");
  EXPECT_TRUE(record.end->ok());
}

TEST(TransportStream, AStreamOverMutualTlsDeliversItsDataAndIdentity) {
  const auto& pki = test_pki::get();
  test_server server(
      [](http_request request, std::shared_ptr<http_exchange> exchange) {
        exchange->start_stream(200, {});
        exchange->write(request.peer.common_name + "\n");
        exchange->write(std::string(100000, 'w'));  // larger than one read buffer
        exchange->finish();
      },
      pki.tls_options(/*with_client_ca=*/true));
  auto cert = pki.ca.issue_client("watcher", {}).value();
  auto options = pki.trusting();
  options.client_certificate_pem = cert.certificate_pem;
  options.client_key_pem = cert.private_key_pem;
  stream_record record;
  io_runtime io;
  http_client client(io.context(), options);
  auto stream = client.open_stream(server.url("https", "localhost"), get("/watch"),
                                   record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_end());
  std::lock_guard lock(record.w.mutex());
  EXPECT_TRUE(record.end->ok()) << record.end->error().message;
  EXPECT_EQ(record.data, "watcher\n" + std::string(100000, 'w'));
}

TEST(TransportStream, AStreamThatGoesQuietEndsWithTimeout) {
  stream_holder holder;
  test_server server(holder.handler({}));
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream = client.open_stream(server.url(), get("/"), record.callbacks(),
                                   std::chrono::milliseconds(100));
  ASSERT_TRUE(record.wait_end());
  std::lock_guard lock(record.w.mutex());
  EXPECT_EQ(record.status, 200);
  ASSERT_FALSE(record.end->ok());
  EXPECT_EQ(record.end->error().code, "timeout");
}

TEST(TransportStream, AStreamToAClosedPortEndsWithConnectAndNoHead) {
  std::uint16_t port;
  {
    test_server gone(echo_handler());
    port = gone.server.port();
  }
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream = client.open_stream("http://127.0.0.1:" + std::to_string(port), get("/"),
                                   record.callbacks(), std::chrono::seconds(1));
  ASSERT_TRUE(record.wait_end());
  std::lock_guard lock(record.w.mutex());
  EXPECT_EQ(record.status, 0);
  ASSERT_FALSE(record.end->ok());
  EXPECT_EQ(record.end->error().code, "connect");
}

TEST(TransportStream, GracefulStopEndsAnOpenStream) {
  stream_holder holder;
  auto server = std::make_unique<test_server>(holder.handler({"hello\n"}));
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream =
      client.open_stream(server->url(), get("/"), record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_data("hello\n"));
  server->server.stop();
  ASSERT_TRUE(record.wait_end());
  {
    std::lock_guard lock(record.w.mutex());
    EXPECT_TRUE(record.end->ok()) << record.end->error().message;
  }
  ASSERT_TRUE(holder.closed.wait([&] { return holder.close_calls == 1; }));
  {
    std::lock_guard lock(holder.mutex);
    EXPECT_FALSE(holder.exchanges.front()->open());
  }
  server.reset();  // and the runtime joins promptly
}

TEST(TransportStream, OnCloseRegisteredAfterTheConnectionClosedStillRuns) {
  stream_holder holder;
  test_server server(holder.handler({"x"}));
  stream_record record;
  io_runtime io;
  http_client client(io.context(), {});
  auto stream =
      client.open_stream(server.url(), get("/"), record.callbacks(), std::chrono::seconds(10));
  ASSERT_TRUE(record.wait_data("x"));
  stream->cancel();
  ASSERT_TRUE(holder.closed.wait([&] { return holder.close_calls == 1; }));
  std::shared_ptr<http_exchange> exchange;
  {
    std::lock_guard lock(holder.mutex);
    exchange = holder.exchanges.front();
  }
  exchange->on_close([&] { holder.closed.update([&] { ++holder.close_calls; }); });
  ASSERT_TRUE(holder.closed.wait([&] { return holder.close_calls == 2; }));
}

}  // namespace
