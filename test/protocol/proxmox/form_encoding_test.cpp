#include "protocol/proxmox/form_encoding.hpp"

#include <gtest/gtest.h>

#include "core/parse_number.hpp"

namespace kp::proxmox {
namespace {

TEST(FormEncoding, UnreservedCharactersStayAndEverythingElseIsEscapedInUppercaseHex) {
  EXPECT_EQ(percent_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(percent_encode("a b"), "a%20b");  // never '+'
  EXPECT_EQ(percent_encode("+aes"), "%2Baes");
  EXPECT_EQ(percent_encode("root@pam"), "root%40pam");
  EXPECT_EQ(percent_encode("cpus=0-3;8-11,policy=bind"), "cpus%3D0-3%3B8-11%2Cpolicy%3Dbind");
  EXPECT_EQ(percent_encode("\n\xff"), "%0A%FF");
}

TEST(FormEncoding, ParametersKeepOrderAndRepeatKeysForArrays) {
  form_params p{{"command", "bash"}, {"command", "-c"}, {"command", "echo hi"}, {"full", "1"}};
  EXPECT_EQ(encode_form(p), "command=bash&command=-c&command=echo%20hi&full=1");
  EXPECT_EQ(encode_form({}), "");
}

TEST(FormEncoding, DecodingIsTheInverseAndAcceptsPlusAsSpace) {
  form_params p{{"description", "karpenter-proxmox: cluster=a, nodeclaim=b\nline 2"},
                {"net0", "virtio=BC:24:11:00:00:01,bridge=vmbr0"},
                {"x", ""}};
  auto back = decode_form(encode_form(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, p);
  auto plus = decode_form("a=b+c&d");
  ASSERT_TRUE(plus.ok());
  EXPECT_EQ((*plus)[0].second, "b c");
  EXPECT_EQ((*plus)[1].first, "d");
  EXPECT_FALSE(decode_form("a=%4").ok());
  EXPECT_FALSE(decode_form("a=%zz").ok());
}

TEST(FormEncoding, PathSegmentsKeepUpidCharactersButEscapeSlashes) {
  EXPECT_EQ(encode_path_segment("UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam!k8s:"),
            "UPID:pve1:0000ABCD:0001E240:6789ABCD:qmclone:9000:root@pam!k8s:");
  EXPECT_EQ(encode_path_segment("local:iso/seed 1.iso"), "local:iso%2Fseed%201.iso");
}

TEST(FormEncoding, SshKeysAreUrlEncodedTheProxmoxWayAndThenFormEncodedAgain) {
  std::string keys = "ssh-ed25519 AAAAC3Nz+/= user@host\n";
  auto once = encode_pve_urlencoded(keys);
  EXPECT_EQ(once, "ssh-ed25519%20AAAAC3Nz%2B%2F%3D%20user%40host%0A");
  EXPECT_EQ(encode_form({{"sshkeys", once}}),
            "sshkeys=ssh-ed25519%2520AAAAC3Nz%252B%252F%253D%2520user%2540host%250A");
}

TEST(FormEncoding, MultipartPutsPartsInOrderWithTheFilePartNamedFilename) {
  auto body = encode_multipart({{"content", std::nullopt, "", "iso"},
                                {"filename", std::string("seed.iso"), "", std::string("\0\1", 2)}});
  auto prefix = std::string("multipart/form-data; boundary=");
  ASSERT_EQ(body.content_type.substr(0, prefix.size()), prefix);
  std::string boundary = body.content_type.substr(prefix.size());
  std::string expected = "--" + boundary +
                         "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\niso\r\n"
                         "--" +
                         boundary +
                         "\r\nContent-Disposition: form-data; name=\"filename\"; "
                         "filename=\"seed.iso\"\r\nContent-Type: application/octet-stream\r\n\r\n" +
                         std::string("\0\1", 2) + "\r\n--" + boundary + "--\r\n";
  EXPECT_EQ(body.body, expected);
}

TEST(FormEncoding, MultipartBoundaryNeverOccursInTheData) {
  auto probe = encode_multipart({{"a", std::nullopt, "", "x"}});
  std::string boundary = probe.content_type.substr(probe.content_type.find('=') + 1);
  // The generator numbers its boundaries; put the next few into the data.
  auto digits_at = boundary.find_first_of("0123456789");
  auto digits_end = boundary.find('-', digits_at);
  auto n = kp::parse_integer<unsigned long long>(
               std::string_view(boundary).substr(digits_at, digits_end - digits_at))
               .value_or(0);
  std::string data;
  for (unsigned long long k = n + 1; k < n + 4; ++k) {
    data += boundary.substr(0, digits_at) + std::to_string(k) + boundary.substr(digits_end) + "\n";
  }
  auto body = encode_multipart({{"f", std::string("a.iso"), "", data}});
  std::string chosen = body.content_type.substr(body.content_type.find('=') + 1);
  EXPECT_EQ(data.find(chosen), std::string::npos) << chosen;
}

}  // namespace
}  // namespace kp::proxmox
