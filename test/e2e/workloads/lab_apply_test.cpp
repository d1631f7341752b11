// `karpenter-proxmox lab --apply FILE`: the user's manifests are applied once the world is up,
// the live view shows their pods Running on the controller's nodes, and Ctrl-C (SIGINT) ends the
// lab cleanly: summary printed, exit 0, the controller and both simulators stopped.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sim/lab/child_process.hpp"

namespace kp::e2e {
namespace {

using namespace std::chrono_literals;

std::string bin_dir() {
  const char* d = std::getenv("KP_BIN_DIR");
  return d != nullptr ? d : "build/bin";
}

// The number after `key` in a line ("controller pid 123," -> 123), or 0.
int number_after(const std::string& line, const std::string& key) {
  auto at = line.find(key);
  if (at == std::string::npos) return 0;
  const char* p = line.data() + at + key.size();
  int n = 0;
  std::from_chars(p, line.data() + line.size(), n);
  return n;
}

bool port_answers(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

TEST(LabApply, appliedManifestsRunUntilCtrlCWhichStopsEveryProcessOfTheLab) {
  auto controller = bin_dir() + "/karpenter-proxmox";
  if (access(controller.c_str(), X_OK) != 0) GTEST_SKIP() << controller << " is not built";
  auto dir = std::filesystem::temp_directory_path() / ("kp-lab-apply-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto manifest = (dir / "web.yaml").string();
  std::ofstream(manifest) << R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "pause:1", resources: {requests: {cpu: 500m, memory: 512Mi}}}]
)";
  lab::child_process lab;
  ASSERT_TRUE(
      lab.start({controller, "lab", "--apply", manifest}, {}, (dir / "lab.log").string()).ok());
  auto started = lab.wait_for_line(
      [](const std::string& l) { return l.find("lab: controller pid ") != std::string::npos; },
      60s);
  ASSERT_TRUE(started.ok()) << started.error().message;
  int controller_pid = number_after(*started, "controller pid ");
  auto sims = lab.lines();
  int kube_port = 0;
  for (const auto& l : sims)
    if (l.find("lab: kube-sim https://127.0.0.1:") == 0)
      kube_port = number_after(l, "lab: kube-sim https://127.0.0.1:");
  ASSERT_GT(controller_pid, 0);
  ASSERT_GT(kube_port, 0);
  auto applied = lab.wait_for_line(
      [](const std::string& l) { return l.find("lab: applied ") != std::string::npos; }, 30s);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  auto running = lab.wait_for_line(
      [](const std::string& l) {
        return l.find("pods 0 pending / 3 running") != std::string::npos;
      },
      60s);
  ASSERT_TRUE(running.ok()) << running.error().message;
  EXPECT_TRUE(port_answers(kube_port));

  ::kill(lab.pid(), SIGINT);
  auto summary = lab.wait_for_line(
      [](const std::string& l) { return l.find("total ") != std::string::npos; }, 30s);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (lab.running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);  // a process exit has no event to wait on here
  ASSERT_FALSE(lab.running());
  EXPECT_EQ(lab.exit_code(), 0);
  EXPECT_NE(summary->find("PASSED"), std::string::npos) << *summary;
  EXPECT_NE(::kill(controller_pid, 0), 0) << "the controller must be gone";
  EXPECT_FALSE(port_answers(kube_port)) << "kube-sim must be gone";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kp::e2e
