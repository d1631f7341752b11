// TLS session resumption: a client's later connections to a peer take up the session of an
// earlier one instead of a full handshake, and verification stays as strict as without it.
#include <gtest/gtest.h>

#include <optional>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

// A request on a new connection: close() drops the pooled one the previous request left.
response_result send_on_new_connection(http_client& client, const std::string& base_url) {
  client.close();
  return send_and_wait(client, base_url, get("/"));
}

class TransportTlsResumption : public ::testing::Test {
 protected:
  const test_pki& pki = test_pki::get();
  test_server server{echo_handler(), pki.tls_options()};
  io_runtime io;
  http_client client{io.context(), pki.trusting()};
};

TEST_F(TransportTlsResumption, AReconnectToTheSameServerResumesTheSessionOfTheFirstConnection) {
  for (int i = 0; i < 3; ++i) {
    auto r = send_on_new_connection(client, server.url("https"));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  EXPECT_EQ(client.tls_handshakes().full, 1u);
  EXPECT_EQ(client.tls_handshakes().resumed, 2u);
}

TEST_F(TransportTlsResumption, AStreamResumesTheSessionOfAnEarlierRequest) {
  ASSERT_TRUE(send_and_wait(client, server.url("https"), get("/")).ok());
  waiter w;
  bool ended = false;
  stream_callbacks callbacks;
  callbacks.on_end = [&](kp::status) { w.update([&] { ended = true; }); };
  auto stream = client.open_stream(server.url("https"), get("/watch"), callbacks, deadline);
  ASSERT_TRUE(w.wait([&] { return ended; }));
  EXPECT_EQ(client.tls_handshakes().full, 1u);
  EXPECT_EQ(client.tls_handshakes().resumed, 1u);
}

TEST_F(TransportTlsResumption, ASessionIsOfferedOnlyToTheHostThatIssuedIt) {
  ASSERT_TRUE(send_and_wait(client, server.url("https", "127.0.0.1"), get("/")).ok());
  auto r = send_on_new_connection(client, server.url("https", "localhost"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(client.tls_handshakes().full, 2u);
  EXPECT_EQ(client.tls_handshakes().resumed, 0u);
}

TEST_F(TransportTlsResumption, AnUntrustedServerAtTheAddressOfAKeptSessionIsStillRefused) {
  std::optional<test_server> trusted(std::in_place, echo_handler(), pki.tls_options());
  const auto port = trusted->server.port();
  const auto url = trusted->url("https");
  ASSERT_TRUE(send_and_wait(client, url, get("/")).ok());
  ASSERT_TRUE(send_on_new_connection(client, url).ok());
  ASSERT_EQ(client.tls_handshakes().resumed, 1u);  // the session is kept and offered
  trusted.reset();

  auto stranger = certificate_authority::create("stranger").value();
  auto impostor_cert = stranger.issue_server({"localhost"}, {"127.0.0.1"}).value();
  server_options impostor_options;
  impostor_options.port = port;
  impostor_options.tls =
      server_tls{impostor_cert.certificate_pem, impostor_cert.private_key_pem, ""};
  test_server impostor(echo_handler(), impostor_options);
  ASSERT_EQ(impostor.server.port(), port);
  auto r = send_on_new_connection(client, url);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tls") << r.error().message;
  EXPECT_EQ(client.tls_handshakes().resumed, 1u);
}

TEST_F(TransportTlsResumption, AResumedSessionKeepsTheClientCertificateIdentity) {
  test_server asking(identity_handler(), pki.tls_options(/*with_client_ca=*/true));
  auto cert = pki.ca.issue_client("system:node:worker-2", {"system:nodes"}).value();
  auto options = pki.trusting();
  options.client_certificate_pem = cert.certificate_pem;
  options.client_key_pem = cert.private_key_pem;
  http_client with_certificate(io.context(), options);
  ASSERT_TRUE(send_and_wait(with_certificate, asking.url("https"), get("/")).ok());
  auto r = send_on_new_connection(with_certificate, asking.url("https"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(with_certificate.tls_handshakes().resumed, 1u);
  EXPECT_EQ(r->body, "system:node:worker-2|system:nodes");
}

}  // namespace
