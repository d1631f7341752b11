#include "protocol/transport/http_message.hpp"

#include <gtest/gtest.h>

namespace {

using kp::transport::find_header;
using kp::transport::http_request;

TEST(TransportMessage, HeaderLookupIgnoresCaseAndReturnsTheFirstValue) {
  kp::transport::header_list headers{
      {"Content-Type", "application/json"}, {"X-A", "1"}, {"x-a", "2"}};
  EXPECT_EQ(find_header(headers, "content-type"), "application/json");
  EXPECT_EQ(find_header(headers, "X-A"), "1");
  EXPECT_EQ(find_header(headers, "missing"), "");
}

TEST(TransportMessage, TargetSplitsIntoPathAndQuery) {
  http_request r;
  r.target = "/api/v1/pods?watch=1&resourceVersion=5";
  EXPECT_EQ(r.path(), "/api/v1/pods");
  EXPECT_EQ(r.query(), "watch=1&resourceVersion=5");
  r.target = "/healthz";
  EXPECT_EQ(r.path(), "/healthz");
  EXPECT_EQ(r.query(), "");
}

}  // namespace
