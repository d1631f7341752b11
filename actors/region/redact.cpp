#include "actors/region/redact.hpp"

#include <re2/re2.h>

namespace kp::actors::region {

std::string redact_join_text(std::string text, const std::string& command, std::size_t max_size) {
  if (!command.empty()) {
    for (auto at = text.find(command); at != std::string::npos; at = text.find(command, at)) {
      text.replace(at, command.size(), "<join command>");
    }
  }
  // kubeadm's token format (id.secret); a word boundary keeps longer identifiers intact. RE2 runs
  // in linear time, so a guest's long output cannot exhaust the stack.
  static const RE2 token("\\b[a-z0-9]{6}\\.[a-z0-9]{16}\\b");
  RE2::GlobalReplace(&text, token, "<token>");
  if (text.size() > max_size) text.resize(max_size);
  return text;
}

}  // namespace kp::actors::region
