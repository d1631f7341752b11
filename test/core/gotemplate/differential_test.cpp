// Every corpus case renders the same with our engine as with Go 1.19's text/template plus the
// Go provider's functions (go_reference/): identical output, or both fail. Cases marked
// [newer-go] use what only a newer Go has and are compared with their expected text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "core/gotemplate/template_set.hpp"
#include "test/core/gotemplate/corpus_data.hpp"
#include "test/core/gotemplate/corpus_reader.hpp"

namespace kp::gotemplate::testing {
namespace {

struct outcome {
  bool skipped = false;
  bool failed = false;
  std::string text;  // the output, or the error message
};

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(KP_GOTEMPLATE_CORPUS_DIR)) {
    if (e.path().extension() == ".txt") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<corpus_case> all_cases() {
  std::vector<corpus_case> cases;
  for (const auto& f : corpus_files()) {
    auto r = read_corpus(f);
    if (!r) {
      ADD_FAILURE() << r.error().message;
      continue;
    }
    cases.insert(cases.end(), r->begin(), r->end());
  }
  return cases;
}

outcome render_ours(const corpus_case& c) {
  auto data = parse_corpus_data(c.data);
  if (!data) return {false, true, "corpus data: " + data.error().message};
  auto out = render_template("tpl", c.template_text, *data);
  if (!out) return {false, true, out.error().message};
  return {false, false, *out};
}

// Runs the Go reference over the corpus files; its report frames each case's outcome.
std::map<std::string, outcome> render_go(const std::string& binary,
                                         const std::vector<std::string>& files) {
  std::string command = "'" + binary + "'";
  for (const auto& f : files) command += " '" + f + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string report;
  if (pipe) {
    char buf[65536];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0) report.append(buf, n);
  }
  std::map<std::string, outcome> results;
  std::size_t pos = 0;
  auto line = [&] {
    auto nl = report.find('\n', pos);
    if (nl == std::string::npos) nl = report.size();
    std::string l = report.substr(pos, nl - pos);
    pos = std::min(report.size(), nl + 1);
    return l;
  };
  while (pos < report.size()) {
    std::string header = line();
    if (!header.starts_with("=== ")) break;
    std::string name = header.substr(4);
    std::string status = line();
    outcome o;
    if (status == "skip") {
      o.skipped = true;
    } else {
      auto space = status.find(' ');
      o.failed = status.substr(0, space) == "error";
      std::size_t len = 0;
      for (char ch : status.substr(space + 1)) len = len * 10 + static_cast<std::size_t>(ch - '0');
      o.text = report.substr(pos, len);
      pos = std::min(report.size(), pos + len + 1);
    }
    results[name] = o;
  }
  return results;
}

std::string show(const outcome& o) {
  return (o.failed ? "error: " : "output: ") + o.text;
}

TEST(GoDifferential, EveryCorpusCaseRendersAsGoTextTemplateDoes) {
  std::vector<corpus_case> cases = all_cases();
  ASSERT_GE(cases.size(), 300u) << "the corpus should hold at least 300 cases";
#ifndef KP_GOTEMPLATE_GO_REFERENCE
  GTEST_SKIP() << "Go (golang-go) or gopkg.in/yaml.v3 (golang-gopkg-yaml.v3-dev) was not found "
                  "at configure time: the Go reference was not built, so the differential "
                  "comparison is skipped (scripts/setup.sh installs both)";
#else
  const std::string binary = KP_GOTEMPLATE_GO_REFERENCE;
  if (!std::filesystem::exists(binary)) {
    GTEST_SKIP() << "the Go reference " << binary << " was not built; comparison skipped";
  }
  auto go = render_go(binary, corpus_files());
  ASSERT_EQ(go.size(), cases.size()) << "the Go reference did not report every case";
  int compared = 0;
  int same_error_text = 0;
  int both_failed = 0;
  int known = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file + ": " + c.name + "\n--- template\n" + c.template_text + "\n--- data\n" +
                 c.data);
    outcome ours = render_ours(c);
    ASSERT_TRUE(go.contains(c.name)) << "duplicate or missing case name " << c.name;
    const outcome& theirs = go[c.name];
    if (c.newer_go) {
      EXPECT_TRUE(theirs.skipped);
      EXPECT_FALSE(ours.failed) << show(ours);
      EXPECT_EQ(ours.text, c.expect);
      continue;
    }
    ++compared;
    if (c.not_yet) {
      // A known difference: once fixed, drop the mark and the README entry.
      bool same = (theirs.failed && ours.failed) || show(ours) == show(theirs);
      EXPECT_FALSE(same) << "now renders as Go does: remove [not-yet] from " << c.name;
      ++known;
      continue;
    }
    if (theirs.failed && ours.failed) {
      ++both_failed;
      if (theirs.text == ours.text) ++same_error_text;
      continue;
    }
    EXPECT_EQ(show(ours), show(theirs));
  }
  std::printf(
      "compared %d cases with Go (%d known differences); %d fail in both, %d of them with the "
      "same message\n",
      compared, known, both_failed, same_error_text);
#endif
}

}  // namespace
}  // namespace kp::gotemplate::testing
