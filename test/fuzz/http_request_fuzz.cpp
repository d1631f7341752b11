// The transport server's request parser on any bytes, under the limits the metrics and health
// endpoints use: it never crashes, a refusal is one of the statuses the server answers (400,
// 411, 413, 431), and an accepted request respects the body and header bounds.
#include "observability/endpoints.hpp"
#include "protocol/transport/http_server.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto options = kp::obs::endpoint_server_options("127.0.0.1", 0);
  auto parsed = kp::transport::parse_request_bytes(kp::fuzz::text_of(data, size), options);
  if (parsed.refusal != 0) {
    kp::fuzz::check(parsed.refusal == 400 || parsed.refusal == 411 || parsed.refusal == 413 ||
                        parsed.refusal == 431,
                    "a refusal is 400, 411, 413 or 431");
    return 0;
  }
  if (!parsed.complete) return 0;
  const auto& r = parsed.request;
  kp::fuzz::check(r.body.size() <= options.body_limit, "the body is within the limit");
  (void)r.path();
  (void)r.query();
  (void)r.header("content-type");
  return 0;
}
