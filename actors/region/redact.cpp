#include "actors/region/redact.hpp"

#include <regex>

namespace kp::actors::region {

std::string redact_join_text(std::string text, const std::string& command, std::size_t max_size) {
  if (!command.empty()) {
    for (auto at = text.find(command); at != std::string::npos; at = text.find(command, at)) {
      text.replace(at, command.size(), "<join command>");
    }
  }
  // kubeadm's token format (id.secret); a word boundary keeps longer identifiers intact.
  static const std::regex token("\\b[a-z0-9]{6}\\.[a-z0-9]{16}\\b");
  text = std::regex_replace(text, token, "<token>");
  if (text.size() > max_size) text.resize(max_size);
  return text;
}

}  // namespace kp::actors::region
