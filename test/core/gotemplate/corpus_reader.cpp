#include "test/core/gotemplate/corpus_reader.hpp"

#include <fstream>

namespace kp::gotemplate::testing {

result<std::vector<corpus_case>> read_corpus(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error("corpus", path + ": cannot open");
  std::vector<corpus_case> cases;
  std::string section;
  std::vector<std::string> lines;
  auto flush = [&] {
    if (cases.empty() || section.empty()) return;
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) text.push_back('\n');
      text += lines[i];
    }
    auto& c = cases.back();
    if (section == "template") c.template_text = text;
    if (section == "data") c.data = text;
    if (section == "expect") c.expect = text;
    section.clear();
    lines.clear();
  };
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("=== ")) {
      flush();
      corpus_case c;
      c.file = path;
      std::string rest = line.substr(4);
      auto space = rest.find(' ');
      c.name = rest.substr(0, space);
      if (space != std::string::npos) {
        std::string mark = rest.substr(space + 1);
        if (mark == "[newer-go]") {
          c.newer_go = true;
        } else if (mark == "[not-yet]") {
          c.not_yet = true;
        } else {
          return make_error("corpus", path + ": case " + c.name + ": unknown mark " + mark);
        }
      }
      cases.push_back(std::move(c));
      continue;
    }
    if (line.starts_with("--- ") && !cases.empty()) {
      flush();
      std::string header = line.substr(4);
      auto space = header.find(' ');
      section = header.substr(0, space);
      if (section != "template" && section != "data" && section != "expect") {
        return make_error("corpus",
                          path + ": case " + cases.back().name + ": unknown section " + section);
      }
      if (space != std::string::npos) {
        lines.push_back(header.substr(space + 1));
        flush();
      }
      continue;
    }
    if (!section.empty()) lines.push_back(line);
  }
  flush();
  return cases;
}

}  // namespace kp::gotemplate::testing
