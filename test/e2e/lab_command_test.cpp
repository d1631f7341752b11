// `karpenter-proxmox lab`: the default scenario passes within a minute and prints its summary,
// with `--view` beside frames of the view; bad usage exits 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct run_result {
  int code = -1;
  std::string out;
};

run_result run(const std::string& command) {
  run_result r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (auto n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string controller() {
  const char* d = std::getenv("KP_BIN_DIR");
  return std::string(d != nullptr ? d : "build/bin") + "/karpenter-proxmox";
}

TEST(LabCommand, badUsageExitsTwoAndTheDefaultScenarioCanBePrinted) {
  if (access(controller().c_str(), X_OK) != 0) GTEST_SKIP() << controller() << " is not built";
  auto missing = run(controller() + " lab --scenario /nonexistent.yaml");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent.yaml"), std::string::npos);
  auto unknown = run(controller() + " lab --frobnicate");
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  auto print = run(controller() + " lab --print-scenario");
  EXPECT_EQ(print.code, 0);
  EXPECT_NE(print.out.find("steps:"), std::string::npos);
}

TEST(LabCommand, theDefaultScenarioPassesWithinAMinuteAndPrintsItsSummary) {
  if (access(controller().c_str(), X_OK) != 0) GTEST_SKIP() << controller() << " is not built";
  auto start = std::chrono::steady_clock::now();
  auto r = run(controller() + " lab");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_LT(took, std::chrono::seconds(60)) << r.out;
  EXPECT_NE(r.out.find("time to all pods Running: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("creation requests per VM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("controller: peak RSS"), std::string::npos) << r.out;
}

TEST(LabCommand, withViewItPrintsFramesOfEveryHostAndItsNumaNodesBesideItsProgress) {
  if (access(controller().c_str(), X_OK) != 0) GTEST_SKIP() << controller() << " is not built";
  auto r = run(controller() + " lab --view");
  EXPECT_EQ(r.code, 0) << r.out;
  // Off a terminal: progress lines as they come, and plain frames between them.
  EXPECT_NE(r.out.find("karpenter-proxmox view  cluster lab"), std::string::npos) << r.out;
  for (const char* host : {"pve1", "pve2", "pve3"}) {
    const auto at = r.out.find(std::string("pve-sim/") + host + "  online  CPU [");
    ASSERT_NE(at, std::string::npos) << host << ":\n" << r.out;
    EXPECT_EQ(r.out.find("\n  NUMA 0   CPU [", at), r.out.find('\n', at)) << r.out;
  }
  EXPECT_NE(r.out.find("    VM "), std::string::npos) << "no node VM in any frame:\n" << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time to all pods Running: "), std::string::npos) << r.out;
}

}  // namespace
