// kube-sim's readings of what clients send: kubectl's protobuf bodies (the bytes kubectl 1.32
// sent for `create secret generic s2 --from-literal=a=b`, captured with -v=9) and Kubernetes'
// two time types.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "sim/kube/protobuf_body.hpp"
#include "sim/kube/time_fields.hpp"

namespace kp::sim::kube {
namespace {

namespace json = boost::json;

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

// k8s\0, TypeMeta{v1, Secret}, raw Secret{metadata{name s2, empty fields}, data{a: b}, type ""}.
const std::string kSecret =
    bytes({0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0c, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x06, 0x53, 0x65,
           0x63, 0x72, 0x65, 0x74, 0x12, 0x1e, 0x0a, 0x12, 0x0a, 0x02, 0x73, 0x32, 0x12, 0x00,
           0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12, 0x06,
           0x0a, 0x01, 0x61, 0x12, 0x01, 0x62, 0x1a, 0x00, 0x1a, 0x00, 0x22, 0x00});

TEST(ProtobufBody, KubectlsSecretDecodesAsGoWouldWriteItInJson) {
  auto o = decode_protobuf_object(kSecret);
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(json::serialize(o.value()),
            R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2"},"data":{"a":"Yg=="}})");
}

TEST(ProtobufBody, UnknownFieldsAndKindsAreRefusedNamingThem) {
  std::string extra = kSecret;
  // Field 9 (varint) inside the Secret: grow the raw length by two bytes.
  extra[19] = static_cast<char>(0x20);
  extra.insert(50, bytes({0x48, 0x01}));
  auto o = decode_protobuf_object(extra);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().code, 415);
  EXPECT_NE(o.error().message.find("field 9 of Secret"), std::string::npos) << o.error().message;

  std::string pod = kSecret;
  pod.replace(12, 6, "Podxyz");  // kind "Podxyz"
  auto p = decode_protobuf_object(pod);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("kind Podxyz"), std::string::npos) << p.error().message;

  auto truncated = decode_protobuf_object(kSecret.substr(0, 30));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, 400);
  EXPECT_FALSE(decode_protobuf_object("{\"kind\":\"Secret\"}"));
}

TEST(TimeFields, TimeDropsFractionsAndMicroTimeNeedsSixDigits) {
  json::object lease{
      {"metadata", {{"name", "l"}, {"creationTimestamp", "2025-01-02T03:04:05.5+01:00"}}},
      {"spec", {{"renewTime", "2025-01-02T03:04:05.123456Z"}, {"acquireTime", nullptr}}}};
  ASSERT_TRUE(normalize_time_fields(lease, "Lease", "v1"));
  EXPECT_EQ(lease.at("metadata").at("creationTimestamp"), "2025-01-02T02:04:05Z");
  EXPECT_EQ(lease.at("spec").at("renewTime"), "2025-01-02T03:04:05.123456Z");
  for (const char* bad : {"2025-01-02T03:04:05.123Z", "2025-01-02T03:04:05Z",
                          "2025-01-02T03:04:05.1234567Z", "yesterday"}) {
    json::object l{{"spec", {{"renewTime", bad}}}};
    auto r = normalize_time_fields(l, "Lease", "v1");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, 400);
    EXPECT_EQ(r.error().message,
              std::string("Lease in version \"v1\" cannot be handled as a Lease: parsing time \"") +
                  bad + "\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"" + bad +
                  "\" as \"2006-01-02T15:04:05.000000Z07:00\"");
  }
  json::object pod{{"status", {{"conditions", json::array{{{"lastTransitionTime", "soon"}}}}}}};
  EXPECT_FALSE(normalize_time_fields(pod, "Pod", "v1"));
  // User maps are not fields: a label or data key that looks like a time field is left alone.
  json::object cm{{"metadata", {{"labels", {{"renewTime", "x"}}}}}, {"data", {{"startTime", "y"}}}};
  EXPECT_TRUE(normalize_time_fields(cm, "ConfigMap", "v1"));
}

}  // namespace
}  // namespace kp::sim::kube
