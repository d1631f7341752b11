// docs/install.md's Proxmox role against protocol/proxmox/privileges.cpp, and that list against
// the calls client.cpp makes and the ones the controller's actors use.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/proxmox/privileges.hpp"
#include "test/docs/doc_text.hpp"

namespace kp::proxmox {
namespace {

std::set<std::string> words(const std::string& text) {
  std::set<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == ',' || c == '\t') {
      if (!word.empty()) out.insert(word);
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) out.insert(word);
  return out;
}

// The privileges of the `pveum role add` line after the "# Proxmox VE <major>" comment.
std::set<std::string> documented_role(const std::string& page, int major) {
  auto marker = page.find("# Proxmox VE " + std::to_string(major));
  if (marker == std::string::npos) return {};
  auto line = page.find("pveum role add", marker);
  if (line == std::string::npos) return {};
  auto open = page.find("-privs \"", line);
  if (open == std::string::npos) return {};
  open += 8;
  auto close = page.find('"', open);
  return words(page.substr(open, close - open));
}

std::string listed(const std::set<std::string>& s) {
  std::string out;
  for (const auto& w : s) out += " " + w;
  return out;
}

TEST(InstallGuide, TheRoleForEachProxmoxMajorHoldsExactlyThePrivilegesTheCallsNeed) {
  const auto page = kp::test::read_source_file("docs/install.md");
  ASSERT_FALSE(page.empty()) << "docs/install.md is missing";
  for (int major : {8, 9}) {
    auto want = role_privileges(major);
    std::set<std::string> code(want.begin(), want.end());
    auto doc = documented_role(page, major);
    std::set<std::string> missing, extra;
    for (const auto& p : code)
      if (!doc.count(p)) missing.insert(p);
    for (const auto& p : doc)
      if (!code.count(p)) extra.insert(p);
    EXPECT_TRUE(missing.empty()) << "Proxmox VE " << major
                                 << ": the page lacks privileges the calls need:"
                                 << listed(missing);
    EXPECT_TRUE(extra.empty()) << "Proxmox VE " << major
                               << ": the page grants privileges no call needs:" << listed(extra);
  }
}

TEST(InstallGuide, TheRolesDifferOnlyInTheGuestAgentPrivileges) {
  auto eight = role_privileges(8), nine = role_privileges(9);
  EXPECT_NE(std::find(eight.begin(), eight.end(), "VM.Monitor"), eight.end());
  EXPECT_EQ(std::find(nine.begin(), nine.end(), "VM.Monitor"), nine.end());
  EXPECT_NE(std::find(nine.begin(), nine.end(), "VM.GuestAgent.Unrestricted"), nine.end());
  EXPECT_EQ(std::find(eight.begin(), eight.end(), "VM.GuestAgent.Unrestricted"), eight.end());
  EXPECT_EQ(eight.size(), nine.size());
}

TEST(ProxmoxPrivileges, EveryCallTheClientMakesIsListedAndEveryListedCallExists) {
  const auto client = kp::test::read_source_file("protocol/proxmox/client.cpp");
  ASSERT_FALSE(client.empty()) << "protocol/proxmox/client.cpp is missing";
  // typed<...>(impl_, "METHOD", <concrete path>, "<path template>", ...): the template is the
  // first literal starting with '/' after the concrete path, within one statement.
  RE2 call(R"re((?s)"(GET|POST|PUT|DELETE)",([^;]*?),\s*"(/[^"]*)")re");
  ASSERT_TRUE(call.ok());
  std::set<std::pair<std::string, std::string>> in_client;
  re2::StringPiece input(client);
  std::string method, concrete, path;
  while (RE2::FindAndConsume(&input, call, &method, &concrete, &path)) {
    in_client.emplace(method, path);
  }
  in_client.emplace("POST", "/access/ticket");  // the login request is built by hand
  ASSERT_GT(in_client.size(), 30u);

  std::set<std::pair<std::string, std::string>> in_table;
  for (const auto& c : required_privileges()) {
    in_table.emplace(std::string(c.method), std::string(c.path));
  }
  for (const auto& [m, p] : in_client) {
    EXPECT_TRUE(in_table.count({m, p}))
        << m << " " << p << " is called by client.cpp but not in privileges.cpp";
  }
  for (const auto& [m, p] : in_table) {
    EXPECT_TRUE(in_client.count({m, p}))
        << m << " " << p << " is in privileges.cpp but client.cpp never calls it";
  }
}

// Every actor source file's text, concatenated: where the controller calls the client.
std::string controller_sources() {
  namespace fs = std::filesystem;
  std::string all;
  for (const char* folder : {"actors", "cmd"}) {
    for (const auto& entry :
         fs::recursive_directory_iterator(kp::test::source_dir() + "/" + folder)) {
      auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      all +=
          kp::test::read_source_file(fs::relative(entry.path(), kp::test::source_dir()).string());
    }
  }
  return all;
}

TEST(ProxmoxPrivileges, ACallCountsTowardsTheRoleExactlyWhenTheControllerMakesIt) {
  const auto sources = controller_sources();
  ASSERT_FALSE(sources.empty());
  for (const auto& c : required_privileges()) {
    if (c.call == "login" || c.call == "task_status") continue;  // the client makes these itself
    bool called = sources.find("->" + std::string(c.call) + "(") != std::string::npos;
    EXPECT_EQ(called, c.used_by_controller)
        << c.method << " " << c.path << " (" << c.call << ") is "
        << (called ? "called by the controller but marked client only"
                   : "marked as used but no actor calls it");
  }
}

}  // namespace
}  // namespace kp::proxmox
