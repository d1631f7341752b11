// --help and docs/settings.md list every setting, and the docs match the table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config/setting_table.hpp"
#include "config/settings_help.hpp"

namespace kp::config {
namespace {

TEST(SettingsHelp, ListsEveryFlagVariableAndDefault) {
  std::string help = render_help("karpenter-proxmox");
  for (const auto& spec : setting_table()) {
    EXPECT_NE(help.find("--" + spec.flag + " "), std::string::npos) << spec.flag;
    EXPECT_NE(help.find("env " + spec.env + ","), std::string::npos) << spec.env;
  }
  EXPECT_NE(help.find("env BATCH_MAX_DURATION, default 10s"), std::string::npos);
  EXPECT_NE(help.find("env METRICS_PORT, default 8080"), std::string::npos);
  EXPECT_NE(help.find("env REGISTRATION_TIMEOUT, default 15m0s"), std::string::npos);
  EXPECT_NE(help.find("karpenter-proxmox lab"), std::string::npos);
  EXPECT_NE(help.find("karpenter-proxmox [flags] plan -f FILE"), std::string::npos);
  EXPECT_NE(help.find("karpenter-proxmox [flags] view [--once]"), std::string::npos);
}

TEST(SettingsDocs, TheGeneratedPartOfDocsSettingsMdMatchesTheTable) {
  const char* source = std::getenv("KP_SOURCE_DIR");  // set for every test binary (kp_test_main)
  ASSERT_NE(source, nullptr);
  std::ifstream in(std::string(source) + "/docs/settings.md");
  ASSERT_TRUE(in) << "docs/settings.md is missing";
  std::stringstream content;
  content << in.rdbuf();
  std::string text = content.str();
  const std::string begin = "<!-- BEGIN GENERATED: karpenter-proxmox --settings-markdown -->\n";
  const std::string end = "<!-- END GENERATED -->";
  auto b = text.find(begin);
  auto e = text.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  std::string generated = text.substr(b + begin.size(), e - b - begin.size());
  EXPECT_EQ(generated, render_settings_markdown())
      << "regenerate the table with build/bin/karpenter-proxmox --settings-markdown";
}

}  // namespace
}  // namespace kp::config
