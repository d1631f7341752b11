// TLS between our client and our server: verification on by default, host names in the SAN,
// insecure mode, client certificates and their identity.
#include <gtest/gtest.h>

#include "test/protocol/transport/transport_fixture.hpp"

namespace {

using namespace kp::transport;
using namespace kp::transport::testing;

TEST(TransportTls, VerificationSucceedsWithTheRightCaForTheIpAndTheDnsName) {
  const auto& pki = test_pki::get();
  test_server server(echo_handler(), pki.tls_options());
  io_runtime io;
  http_client client(io.context(), pki.trusting());
  ASSERT_TRUE(client.configured().ok());
  for (const char* host : {"127.0.0.1", "localhost"}) {
    auto r = send_and_wait(client, server.url("https", host), get("/x"));
    ASSERT_TRUE(r.ok()) << host << ": " << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "GET /x ");
  }
}

TEST(TransportTls, VerificationFailsWithACertificateFromAnotherCa) {
  const auto& pki = test_pki::get();
  test_server server(echo_handler(), pki.tls_options());
  io_runtime io;
  client_options options;
  options.ca_pem = certificate_authority::create("stranger").value().certificate_pem();
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tls") << r.error().message;
}

TEST(TransportTls, VerificationFailsWhenTheHostIsNotInTheSan) {
  const auto& pki = test_pki::get();
  auto only_dns = pki.ca.issue_server({"example.test"}, {}).value();
  server_options options;
  options.tls = server_tls{only_dns.certificate_pem, only_dns.private_key_pem, ""};
  test_server server(echo_handler(), options);
  io_runtime io;
  http_client client(io.context(), pki.trusting());
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tls") << r.error().message;
}

TEST(TransportTls, InsecureModeSkipsVerification) {
  const auto& pki = test_pki::get();
  test_server server(echo_handler(), pki.tls_options());
  io_runtime io;
  client_options options;
  options.insecure_skip_verify = true;  // and no CA at all
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
}

TEST(TransportTls, AClientCertificateIdentityReachesTheHandler) {
  const auto& pki = test_pki::get();
  test_server server(identity_handler(), pki.tls_options(/*with_client_ca=*/true));
  io_runtime io;
  auto cert = pki.ca.issue_client("system:node:worker-1", {"system:nodes", "team-a"}).value();
  auto options = pki.trusting();
  options.client_certificate_pem = cert.certificate_pem;
  options.client_key_pem = cert.private_key_pem;
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "system:node:worker-1|system:nodes|team-a");
}

TEST(TransportTls, AClientWithoutCertificateIsAnonymousToTheHandler) {
  const auto& pki = test_pki::get();
  test_server server(identity_handler(), pki.tls_options(/*with_client_ca=*/true));
  io_runtime io;
  http_client client(io.context(), pki.trusting());
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "");
}

TEST(TransportTls, ACertificateSignedFromACsrIsAcceptedAsThatIdentity) {
  const auto& pki = test_pki::get();
  test_server server(identity_handler(), pki.tls_options(/*with_client_ca=*/true));
  auto csr = make_client_csr("system:node:vm-7", {"system:nodes"}).value();
  auto signed_cert = pki.ca.sign_client_csr(csr.csr_pem, std::chrono::hours(1));
  ASSERT_TRUE(signed_cert.ok()) << signed_cert.error().message;
  io_runtime io;
  auto options = pki.trusting();
  options.client_certificate_pem = *signed_cert;
  options.client_key_pem = csr.private_key_pem;
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "system:node:vm-7|system:nodes");
}

TEST(TransportTls, AClientCertificateFromAnotherCaIsRefused) {
  const auto& pki = test_pki::get();
  test_server server(identity_handler(), pki.tls_options(/*with_client_ca=*/true));
  auto stranger = certificate_authority::create("stranger").value();
  auto cert = stranger.issue_client("system:admin", {"system:masters"}).value();
  io_runtime io;
  auto options = pki.trusting();
  options.client_certificate_pem = cert.certificate_pem;
  options.client_key_pem = cert.private_key_pem;
  http_client client(io.context(), options);
  auto r = send_and_wait(client, server.url("https"), get("/"));
  ASSERT_FALSE(r.ok());  // the handshake fails (TLS 1.2) or the connection drops (TLS 1.3)
}

TEST(TransportTls, ABrokenCaPemMakesEveryHttpsRequestFailWithTls) {
  io_runtime io;
  client_options options;
  options.ca_pem = "-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n";
  http_client client(io.context(), options);
  ASSERT_FALSE(client.configured().ok());
  EXPECT_EQ(client.configured().error().code, "tls");
  auto r = send_and_wait(client, "https://127.0.0.1:1", get("/"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tls");
}

}  // namespace
