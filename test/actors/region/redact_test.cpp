// What a failed guest-agent join may say in an error: never the command, never a token.
#include <gtest/gtest.h>

#include "actors/region/redact.hpp"

namespace kp::actors::region {
namespace {

TEST(RedactJoinText, TheCommandAndTokenShapedWordsAreReplaced) {
  std::string command = "kube-join server=https://k token=abcdef.0123456789abcdef";
  auto out = redact_join_text(
      "+ " + command + "\nerror: token abcdef.0123456789abcdef rejected by 10.0.0.1", command);
  EXPECT_EQ(out, "+ <join command>\nerror: token <token> rejected by 10.0.0.1");
  auto other = redact_join_text("join: x9y8z7.aaaabbbbccccdddd expired", "");
  EXPECT_EQ(other, "join: <token> expired");
}

TEST(RedactJoinText, OrdinaryTextStaysAndLongTextIsCut) {
  EXPECT_EQ(redact_join_text("exit status 1: connection refused", "cmd"),
            "exit status 1: connection refused");
  EXPECT_EQ(redact_join_text("sha256.0123456789abcdef0123", "cmd"), "sha256.0123456789abcdef0123");
  EXPECT_EQ(redact_join_text(std::string(500, 'x'), "cmd").size(), 300u);
}

TEST(RedactJoinText, MegabytesOfGuestOutputAreRedactedWithoutExhaustingTheStack) {
  // A guest may print megabytes; the redaction must stay linear and must not recurse per byte.
  std::string noisy(4u << 20, 'a');
  noisy += " abcdef.0123456789abcdef";
  auto out = redact_join_text(noisy, "cmd", noisy.size());
  EXPECT_EQ(out.substr(out.size() - 8), " <token>");
}

}  // namespace
}  // namespace kp::actors::region
