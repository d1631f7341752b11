#pragma once
// The differential corpus (corpus/*.txt), in the format go_reference/corpus.go documents:
// "=== name [newer-go]", then "--- template", "--- data" and "--- expect" sections.
#include <string>
#include <vector>

#include "core/result.hpp"

namespace kp::gotemplate::testing {

struct corpus_case {
  std::string file;
  std::string name;
  bool newer_go = false;  // needs a Go newer than 1.19: compared with `expect` instead
  bool not_yet = false;   // a known difference (core/gotemplate/README.md): must still differ
  std::string template_text;
  std::string data;  // JSON, typed forms as corpus_data.hpp describes; empty: nil
  std::string expect;
};

result<std::vector<corpus_case>> read_corpus(const std::string& path);

}  // namespace kp::gotemplate::testing
