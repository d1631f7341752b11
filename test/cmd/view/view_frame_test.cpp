#include "cmd/karpenter-proxmox/view/view_frame.hpp"

#include <gtest/gtest.h>

namespace kp::view {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;

view_snapshot two_hosts() {
  view_snapshot s;
  s.cluster = "lab";
  s.taken_unix_ms = 1'800'000'000'000;
  host_view pve1;
  pve1.region = "r1";
  pve1.name = "pve1";
  pve1.online = true;
  pve1.topology_known = true;
  pve1.cpus = 32;
  pve1.free_cpus = 28;
  pve1.memory_bytes = 64 * gib;
  pve1.free_memory_bytes = 55 * gib;
  pve1.numa = {{0, 16, 12, 32 * gib, 23 * gib}, {1, 16, 16, 32 * gib, 32 * gib}};
  vm_view vm;
  vm.vmid = 101;
  vm.name = "default-abcde";
  vm.status = "running";
  vm.nodeclaim = "default-abcde";
  vm.node = "default-abcde";
  vm.instance_type = "c1.4VCPU-8GB";
  vm.price = 0.108;
  vm.vcpus = 4;
  vm.memory_bytes = 8 * gib;
  vm.pinned_cpus = "0-3";
  vm.numa_nodes = {0};
  vm.age_seconds = 3 * 3600 + 12 * 60;
  vm.phase = "Ready";
  vm.pods = {"default/web-1", "default/web-2", "kube-system/agent-x"};
  pve1.vms.push_back(vm);
  pve1.other_vms = 1;
  host_view pve2;
  pve2.region = "r1";
  pve2.name = "pve2";
  pve2.online = false;
  s.hosts = {pve1, pve2};
  s.pending.push_back({"default/huge", 200'000, gib, 42, "Unschedulable: no node fits"});
  s.in_flight.push_back({"default-fghij", "default", "t1.2VCPU-6GB", "Registering", "pve1", 65});
  s.notes.push_back("region r2 not read (offers nothing): timeout");
  return s;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ViewFrame, eachHostShowsItsCpuAndMemoryBarsAndOneLineWithBarsPerNumaNode) {
  const auto text = render_frame(two_hosts(), {});
  EXPECT_TRUE(has(text, "r1/pve1  online  CPU [###.................] 4/32")) << text;
  EXPECT_TRUE(has(text, "memory [###.................] 9.0/64.0 GiB")) << text;
  EXPECT_TRUE(has(text, "  NUMA 0   CPU [#####...............] 4/16")) << text;
  EXPECT_TRUE(has(text, "memory [######..............] 9.0/32.0 GiB")) << text;
  EXPECT_TRUE(has(text, "  NUMA 1   CPU [....................] 0/16")) << text;
  EXPECT_TRUE(has(text, "memory [....................] 0.0/32.0 GiB")) << text;
  // A host without figures says so instead of drawing empty bars.
  EXPECT_TRUE(has(text, "r1/pve2  offline  no figures")) << text;
  EXPECT_TRUE(has(text, "2 hosts, 1 node VMs, 1 NodeClaims in flight, 1 pending pods")) << text;
}

TEST(ViewFrame, eachNodeVmShowsItsInstanceTypePricePinnedCoresAgeAndPods) {
  const auto text = render_frame(two_hosts(), {});
  EXPECT_TRUE(has(text,
                  "VM 101 default-abcde  c1.4VCPU-8GB  $0.1080/h  4 vCPU 8.0 GiB  pinned 0-3 "
                  "(NUMA 0)  age 3h12m  Ready"))
      << text;
  EXPECT_TRUE(has(text, "pods 3: default/web-1, default/web-2, kube-system/agent-x")) << text;
  EXPECT_TRUE(has(text, "+1 other VMs")) << text;
  EXPECT_TRUE(has(text, "r1/pve2  offline  no figures\n    no node VMs")) << text;
}

TEST(ViewFrame, aVmWithManyPodsNamesTheFirstAndCountsTheRest) {
  auto s = two_hosts();
  s.hosts[0].vms[0].pods.clear();
  for (int i = 0; i < 9; ++i) s.hosts[0].vms[0].pods.push_back("default/p" + std::to_string(i));
  frame_style style;
  style.max_pods_listed = 2;
  const auto text = render_frame(s, style);
  EXPECT_TRUE(has(text, "pods 9: default/p0, default/p1, +7 more")) << text;
}

TEST(ViewFrame, listsTheNodeClaimsInFlightAndThePendingPodsWithTheirRequestsAndReason) {
  const auto text = render_frame(two_hosts(), {});
  EXPECT_TRUE(has(text,
                  "NodeClaims in flight: 1\n  default-fghij  Registering  nodepool default  "
                  "t1.2VCPU-6GB  host pve1  age 1m\n"))
      << text;
  EXPECT_TRUE(has(text,
                  "Pending pods: 1\n  default/huge  cpu 200 memory 1.0Gi  age 42s  "
                  "Unschedulable: no node fits\n"))
      << text;
  EXPECT_TRUE(has(text, "note: region r2 not read (offers nothing): timeout")) << text;
}

TEST(ViewFrame, plainTextHasNoEscapeSequencesAndColourMarksBarsAndStates) {
  const auto plain = render_frame(two_hosts(), {});
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  frame_style colour;
  colour.colour = true;
  const auto text = render_frame(two_hosts(), colour);
  EXPECT_TRUE(has(text, "\x1b[1mr1/pve1\x1b[0m")) << text;
  EXPECT_TRUE(has(text, "\x1b[32monline\x1b[0m")) << text;
  EXPECT_TRUE(has(text, "\x1b[31moffline\x1b[0m")) << text;
  EXPECT_TRUE(has(text, "[\x1b[32m###\x1b[0m.................]")) << text;  // 12 %: green
  // Stripped of its escapes, the coloured frame reads as the plain one.
  std::string stripped;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      i = text.find('m', i);
      continue;
    }
    stripped += text[i];
  }
  EXPECT_EQ(stripped, plain);
}

TEST(ViewFrame, barsTurnYellowFromSixtyAndRedFromEightyFivePercent) {
  auto s = two_hosts();
  s.hosts[0].numa[0].free_cpus = 6;  // 10/16 taken: 62 %
  s.hosts[0].numa[1].free_cpus = 1;  // 15/16 taken: 94 %
  frame_style colour;
  colour.colour = true;
  const auto text = render_frame(s, colour);
  EXPECT_TRUE(has(text, "CPU [\x1b[33m#############\x1b[0m.......] 10/16")) << text;
  EXPECT_TRUE(has(text, "CPU [\x1b[31m###################\x1b[0m.] 15/16")) << text;
}

TEST(ViewFrame, agesReadAsSecondsMinutesHoursAndDays) {
  EXPECT_EQ(age_text(std::nullopt), "-");
  EXPECT_EQ(age_text(42), "42s");
  EXPECT_EQ(age_text(7 * 60 + 5), "7m");
  EXPECT_EQ(age_text(3 * 3600 + 12 * 60), "3h12m");
  EXPECT_EQ(age_text(5 * 86400 + 3 * 3600), "5d3h");
}

}  // namespace
}  // namespace kp::view
