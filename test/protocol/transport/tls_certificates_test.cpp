#include "protocol/transport/tls_certificates.hpp"

#include <gtest/gtest.h>

namespace {

using namespace kp::transport;

TEST(TransportCertificates, ACaIssuesServerCertificatesAsAChainEndingInTheCa) {
  auto ca = certificate_authority::create("test CA");
  ASSERT_TRUE(ca.ok()) << ca.error().message;
  auto server = ca->issue_server({"localhost"}, {"127.0.0.1", "::1"});
  ASSERT_TRUE(server.ok()) << server.error().message;
  EXPECT_NE(server->certificate_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_TRUE(server->certificate_pem.ends_with(ca->certificate_pem()));
  EXPECT_NE(server->private_key_pem.find("BEGIN PRIVATE KEY"), std::string::npos);
}

TEST(TransportCertificates, ACaReloadedFromPemStillIssuesAndAMismatchedKeyIsRefused) {
  auto ca = certificate_authority::create("test CA").value();
  auto again = certificate_authority::from_pem(ca.certificate_pem(), ca.private_key_pem());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->issue_client("system:node:a", {"system:nodes"}).ok());

  auto other = certificate_authority::create("other CA").value();
  auto mixed = certificate_authority::from_pem(ca.certificate_pem(), other.private_key_pem());
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().code, "certificate");
  EXPECT_EQ(mixed.error().message.find("PRIVATE KEY"), std::string::npos);  // no key material
}

TEST(TransportCertificates, ACsrCarriesTheRequestedCommonNameAndOrganizations) {
  auto csr = make_client_csr("system:node:worker-1", {"system:nodes", "team-a"});
  ASSERT_TRUE(csr.ok()) << csr.error().message;
  EXPECT_NE(csr->csr_pem.find("BEGIN CERTIFICATE REQUEST"), std::string::npos);
  auto subject = csr_subject(csr->csr_pem);
  ASSERT_TRUE(subject.ok()) << subject.error().message;
  EXPECT_EQ(subject->first, "system:node:worker-1");
  EXPECT_EQ(subject->second, (std::vector<std::string>{"system:nodes", "team-a"}));
}

TEST(TransportCertificates, GarbageIsNotACsr) {
  auto subject = csr_subject("-----BEGIN CERTIFICATE REQUEST-----\nnope\n");
  ASSERT_FALSE(subject.ok());
  EXPECT_EQ(subject.error().code, "certificate");
  auto ca = certificate_authority::create("test CA").value();
  EXPECT_FALSE(ca.sign_client_csr("not a csr", std::chrono::hours(1)).ok());
}

TEST(TransportCertificates, AServerCertificateNeedsAName) {
  auto ca = certificate_authority::create("test CA").value();
  EXPECT_FALSE(ca.issue_server({}, {}).ok());
}

}  // namespace
