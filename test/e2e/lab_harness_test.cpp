// The lab harness itself, without a working controller: child processes, the world's simulators
// and objects, faults, and a scenario's pass/fail report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/lab/child_process.hpp"
#include "sim/lab/lab_world.hpp"
#include "sim/lab/process_sample.hpp"
#include "sim/lab/scenario.hpp"
#include "sim/lab/scenario_runner.hpp"

namespace kp::lab {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string bin_dir() {
  const char* d = std::getenv("KP_BIN_DIR");
  return d != nullptr ? d : "build/bin";
}

bool simulators_built() {
  return access((bin_dir() + "/kube-sim").c_str(), X_OK) == 0 &&
         access((bin_dir() + "/pve-sim").c_str(), X_OK) == 0;
}

std::string temp_log() {
  std::string p = (fs::temp_directory_path() / "kp-lab-child-XXXXXX").string();
  int fd = mkstemp(p.data());
  if (fd >= 0) close(fd);
  return p;
}

TEST(LabChildProcess, aLineIsAwaitedAndTheProcessStopsOnSigterm) {
  child_process p;
  auto log = temp_log();
  ASSERT_TRUE(
      p.start({"/bin/sh", "-c", "echo starting; echo ready on 42; exec sleep 30"}, {}, log).ok());
  auto line = p.wait_for_line(
      [](const std::string& l) { return l.find("ready") != std::string::npos; }, 5s);
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(*line, "ready on 42");
  EXPECT_TRUE(p.running());
  p.stop(2s);
  EXPECT_FALSE(p.running());
  std::ifstream in(log);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "starting");
  fs::remove(log);
}

TEST(LabChildProcess, aProcessIgnoringSigtermIsKilledAfterTheGrace) {
  child_process p;
  auto log = temp_log();
  ASSERT_TRUE(
      p.start({"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"}, {}, log)
          .ok());
  ASSERT_TRUE(p.wait_for_line([](const std::string& l) { return l == "ready"; }, 5s).ok());
  auto start = std::chrono::steady_clock::now();
  p.stop(300ms);
  EXPECT_FALSE(p.running());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  fs::remove(log);
}

TEST(LabChildProcess, waitingForALineFailsWhenTheProcessExitsFirst) {
  child_process p;
  auto log = temp_log();
  ASSERT_TRUE(p.start({"/bin/sh", "-c", "echo bye"}, {}, log).ok());
  auto line = p.wait_for_line([](const std::string& l) { return l == "never"; }, 5s);
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.error().code, "exited");
  EXPECT_FALSE(p.start({"/nonexistent/binary"}, {}, log).ok());
  fs::remove(log);
}

TEST(LabProcessSample, peakMemoryAndCpuTimeAreReadFromProc) {
  auto s = sample_process(getpid());
  ASSERT_TRUE(s.has_value());
  EXPECT_GT(s->peak_rss_kib, 0);
  EXPECT_GE(s->peak_rss_kib, s->rss_kib);
  EXPECT_GE(s->cpu_seconds, 0.0);
  EXPECT_FALSE(sample_process(999999999).has_value());
}

class LabWorld : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!simulators_built()) GTEST_SKIP() << "kube-sim or pve-sim is not built in " << bin_dir();
    lab_options o;
    o.bin_dir = bin_dir();
    world = std::make_unique<lab_world>(o);
    auto s = world->start();
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  std::unique_ptr<lab_world> world;
};

TEST_F(LabWorld, bothSimulatorsRunAndTheLabsObjectsAreApplied) {
  auto pool = world->kube().call("GET", "/apis/karpenter.sh/v1/nodepools/default");
  ASSERT_TRUE(pool.ok() && pool->ok());
  EXPECT_EQ(
      pool->json().at("spec").at("template").at("spec").at("nodeClassRef").at("kind").as_string(),
      "ProxmoxNodeClass");
  auto cls = world->kube().call(
      "GET", "/apis/karpenter.proxmox.sinextra.dev/v1alpha1/proxmoxnodeclasses/default");
  ASSERT_TRUE(cls.ok() && cls->ok());
  EXPECT_EQ(cls->json().at("spec").at("metadataOptions").at("type").as_string(), "cdrom");
  EXPECT_EQ(cls->json().at("spec").at("instanceTemplateRef").at("name").as_string(),
            "k8s-template");
  auto tpl = world->kube().call(
      "GET",
      "/apis/karpenter.proxmox.sinextra.dev/v1alpha1/proxmoxunmanagedtemplates/k8s-template");
  ASSERT_TRUE(tpl.ok() && tpl->ok());
  EXPECT_EQ(tpl->json().at("spec").at("templateName").as_string(), "k8s-template");

  std::ifstream in(world->clusters_file_path());
  std::string clusters((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(clusters.find("kubernetes@pve!karpenter"), std::string::npos);
  EXPECT_NE(clusters.find(world->pve_url() + "/api2/json"), std::string::npos);

  auto all = world->vms(false);
  ASSERT_TRUE(all.ok());
  EXPECT_FALSE(all->empty());  // the default topology's node-capacity VMs
  auto created = world->vms(true);
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->empty());
}

TEST_F(LabWorld, faultsAreSetAndCleared) {
  ASSERT_TRUE(world->set_faults("offline_hosts: [{node: pve2, status: 595}]\n").ok());
  auto f = world->pve().call("GET", "/sim/v1/faults");
  ASSERT_TRUE(f.ok() && f->ok());
  EXPECT_NE(f->body.find("pve2"), std::string::npos);
  ASSERT_TRUE(world->set_faults("").ok());
  f = world->pve().call("GET", "/sim/v1/faults");
  ASSERT_TRUE(f.ok() && f->ok());
  EXPECT_EQ(f->body.find("pve2"), std::string::npos);
  EXPECT_FALSE(world->set_faults("slow_clone_factor: -1\n").ok());
}

TEST_F(LabWorld, aScenarioReportsItsPassingStepsAndNamesTheFirstFailingOne) {
  auto s = parse_scenario(R"(
name: no controller
steps:
  - scale: {name: web, replicas: 3, cpu: 100m, memory: 64Mi}
  - expect: {pods: 3, pods_pending: 3, within: 10s}
  - expect: {nodes: 1, within: 300ms, optional: true}
  - expect: {pods_running: 3, within: 300ms}
  - scale: {name: web, replicas: 0}
)");
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<std::string> lines;
  auto report = run_scenario(*world, *s, [&](const std::string& l) { lines.push_back(l); });
  EXPECT_FALSE(report.passed);
  ASSERT_EQ(report.steps.size(), 4u);  // stops at the failing step
  EXPECT_TRUE(report.steps[1].passed);
  EXPECT_FALSE(report.steps[2].passed);
  EXPECT_TRUE(report.steps[2].optional);
  EXPECT_NE(report.failed_step.find("step 4 (expect)"), std::string::npos) << report.failed_step;
  EXPECT_NE(report.failed_step.find("pods_running is 0"), std::string::npos) << report.failed_step;
  EXPECT_FALSE(report.seconds_to_all_running.has_value());
  ASSERT_TRUE(report.calls.has_value());
  EXPECT_EQ(report.calls->vms_created, 0);
  bool progress = false;
  for (const auto& l : lines)
    progress = progress || l.find("pods 3 pending / 0 running") != std::string::npos;
  EXPECT_TRUE(progress);
  EXPECT_NE(report.summary().find("FAILED at step 4 (expect)"), std::string::npos)
      << report.summary();
}

TEST_F(LabWorld, aControllerReplicaIsStartedWithTheLabsSettingsAndItsMetricsPortIsRead) {
  auto script = world->work_dir() + "/fake-controller";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/fake-args\"\n"
        << "echo '{\"level\":\"info\",\"message\":\"serving "
           "metrics\",\"fields\":{\"address\":\"127.0.0.1\",\"port\":\"4242\"}}'\n"
        << "exec sleep 30\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  lab_options o;
  o.bin_dir = bin_dir();
  o.controller_binary = script;
  lab_world fake(o);
  ASSERT_TRUE(fake.start().ok());
  auto i = fake.start_controller({{"registration-timeout", "7s"}});
  ASSERT_TRUE(i.ok()) << i.error().message;
  EXPECT_EQ(fake.controller(*i).metrics_port, 4242);
  EXPECT_TRUE(fake.controller(*i).process->running());
  std::ifstream in(world->work_dir() + "/fake-args");
  std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(args.find("--registration-timeout=7s"), std::string::npos) << args;
  EXPECT_NE(args.find("--cluster-name=lab"), std::string::npos) << args;
  EXPECT_NE(args.find("--cloud-config=" + fake.clusters_file_path()), std::string::npos) << args;
  EXPECT_NE(args.find("--cluster-endpoint=" + fake.kube_url()), std::string::npos) << args;
  fake.kill_controller(*i);
  EXPECT_FALSE(fake.controller(*i).process->running());
  EXPECT_TRUE(fake.controller(*i).last_sample.has_value());
}

}  // namespace
}  // namespace kp::lab
