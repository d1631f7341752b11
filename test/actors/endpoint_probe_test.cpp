// What a probe's HTTP outcome means for readiness.
#include <gtest/gtest.h>

#include "actors/endpoint_probe.hpp"

namespace kp::actors {
namespace {

transport::response_result status(int code) {
  transport::http_response r;
  r.status = code;
  return r;
}

TEST(ClassifyProbeResponse, ATransportErrorIsNotConnectedWithItsReason) {
  auto outcome = classify_probe_response(make_error("connect", "connection refused"), false);
  EXPECT_FALSE(outcome.connected);
  EXPECT_EQ(outcome.http_status, 0);
  EXPECT_EQ(outcome.detail, "not connected (connection refused)");
}

TEST(ClassifyProbeResponse, ProxmoxWithATokenNeedsA2xx) {
  EXPECT_TRUE(classify_probe_response(status(200), false).connected);
  auto refused = classify_probe_response(status(401), false);
  EXPECT_FALSE(refused.connected);
  EXPECT_EQ(refused.detail, "credentials refused (HTTP 401)");
  EXPECT_EQ(classify_probe_response(status(500), false).detail, "unexpected HTTP 500");
  EXPECT_FALSE(classify_probe_response(status(404), false).connected);
}

TEST(ClassifyProbeResponse, WhenAnyAnswerCountsOnlyServerErrorsAreNotConnected) {
  EXPECT_TRUE(classify_probe_response(status(401), true).connected);
  EXPECT_TRUE(classify_probe_response(status(403), true).connected);
  EXPECT_TRUE(classify_probe_response(status(404), true).connected);
  EXPECT_FALSE(classify_probe_response(status(503), true).connected);
}

}  // namespace
}  // namespace kp::actors
