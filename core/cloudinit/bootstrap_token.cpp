#include "core/cloudinit/bootstrap_token.hpp"

namespace kp::cloudinit {

namespace {
constexpr std::string_view alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

std::string draw(const std::function<std::uint32_t()>& random, std::size_t length) {
  std::string out;
  // Rejection sampling keeps every character equally likely (36 does not divide 2^32).
  constexpr std::uint32_t limit = 0xFFFFFFFFu - (0xFFFFFFFFu % 36u);
  while (out.size() < length) {
    std::uint32_t r = random();
    if (r >= limit) continue;
    out += alphabet[r % 36u];
  }
  return out;
}

bool all_token_chars(std::string_view s) {
  for (char c : s) {
    if (alphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}
}  // namespace

bootstrap_token generate_bootstrap_token(const std::function<std::uint32_t()>& random) {
  bootstrap_token t;
  t.id = draw(random, 6);
  t.secret = draw(random, 16);
  return t;
}

bool is_bootstrap_token(std::string_view text) {
  return text.size() == 23 && text[6] == '.' && all_token_chars(text.substr(0, 6)) &&
         all_token_chars(text.substr(7));
}

}  // namespace kp::cloudinit
