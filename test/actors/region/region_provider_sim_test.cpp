// The provider pieces of the region actor against pve-sim: security groups and pools at launch
// within the call budget, NODE_SETTING_FILE topology for pinning (also after a restart), a host
// whose file entry does not fit left out, the simple IPAM (distinct addresses, rebuilt after a
// restart) and in-place sync writing only differences.
#include <algorithm>

#include "config/node_settings_file.hpp"
#include "core/ipam/ipconfig.hpp"
#include "test/actors/region/region_sim_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::actors::region::sim_fixture;
using namespace std::chrono_literals;
using namespace kp::protocol;

class RegionProviderSim : public RegionActorSim {
 protected:
  std::vector<proxmox::firewall_rule> rules_of(const std::string& node, std::uint32_t vmid) {
    auto r = await<std::vector<proxmox::firewall_rule>>(
        [&](auto cb) { clients_.front()->firewall_rules(node, vmid, cb); });
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : std::vector<proxmox::firewall_rule>{};
  }
  proxmox::firewall_options options_of(const std::string& node, std::uint32_t vmid) {
    auto r = await<proxmox::firewall_options>(
        [&](auto cb) { clients_.front()->firewall_options(node, vmid, cb); });
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : proxmox::firewall_options{};
  }
  std::string pool_of(std::uint32_t vmid) {
    for (const auto& r : vms()) {
      if (r.vmid == vmid) return r.pool;
    }
    return "<gone>";
  }
  sync_vm_reply sync(region_actor a, sync_vm_request req) {
    caf::scoped_actor self{*sys_};
    sync_vm_reply out;
    out.error = {"test", "no reply"};
    self->request(a, 60s, sync_vm_atom::value, req)
        .receive([&](sync_vm_reply& r) { out = std::move(r); },
                 [&](caf::error& e) {
                   out.error = {"caf", sys_->render(e)};
                 });
    return out;
  }
  static std::vector<std::string> group_rules(const std::vector<proxmox::firewall_rule>& rules) {
    std::vector<std::string> out;
    for (const auto& r : rules) {
      if (r.type == "group") {
        out.push_back(r.iface + ":" + r.action + (r.enable.value_or(false) ? "" : ":off"));
      }
    }
    return out;
  }
  static bool has_tag(const proxmox::vm_config& c, const std::string& t) {
    return std::find(c.tags.begin(), c.tags.end(), t) != c.tags.end();
  }
};

TEST_F(RegionProviderSim, SecurityGroupsAndAPoolAreAppliedAtLaunchWithinTheCallBudget) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  auto before = stats();
  auto r = request("guarded");
  r.security_groups = {{"net0", "kubernetes"}};
  r.resource_pool = "kubernetes";
  auto reply = launch(a, r);
  ASSERT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
  auto c = config_of(reply.zone, reply.vmid);
  EXPECT_TRUE(has_tag(c, "karpenter"));
  EXPECT_TRUE(has_tag(c, "team-a"));
  ASSERT_EQ(c.nets.count(0), 1u);
  EXPECT_TRUE(c.nets.at(0).firewall.value_or(false)) << "groups filter only with firewall=1";
  EXPECT_TRUE(options_of(reply.zone, reply.vmid).enable.value_or(false));
  EXPECT_EQ(group_rules(rules_of(reply.zone, reply.vmid)),
            std::vector<std::string>{"net0:kubernetes"});
  EXPECT_EQ(pool_of(reply.vmid), "kubernetes");
  auto after = stats();
  auto made = writes(after) - writes(before);
  // DESIGN.md section 5: at most 6 without resize and firewall, +1 options, +1 per group.
  EXPECT_LE(made, 6 + 1 + 1);
  EXPECT_EQ(made, 6) << "clone (with pool), upload, config, options, one rule, start";
  EXPECT_EQ(after["PUT /nodes/{node}/qemu/{vmid}/firewall/options"] -
                before["PUT /nodes/{node}/qemu/{vmid}/firewall/options"],
            1);
  EXPECT_EQ(after["POST /nodes/{node}/qemu/{vmid}/firewall/rules"] -
                before["POST /nodes/{node}/qemu/{vmid}/firewall/rules"],
            1);
}

TEST_F(RegionProviderSim, ALaunchWithoutSecurityGroupsMakesNoFirewallCall) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  auto before = stats();
  auto reply = launch(a, request("open"));
  ASSERT_TRUE(reply.ok) << reply.error.message;
  auto after = stats();
  EXPECT_EQ(writes(after) - writes(before), 4);
  EXPECT_EQ(after["PUT /nodes/{node}/qemu/{vmid}/firewall/options"],
            before["PUT /nodes/{node}/qemu/{vmid}/firewall/options"]);
}

// pve1 as four NUMA nodes of 4 cores + siblings (pve-sim's topology VM says two of 8): every
// pinned set must fit one of the file's nodes and be bound to that node's id.
constexpr const char* four_node_file = R"({"pve-sim": {
  "pve1": {"sockets": 2, "cores": 8, "threads": 2,
           "nodes": {"0": {"cpus": "0-3,16-19"}, "1": {"cpus": "4-7,20-23"},
                     "2": {"cpus": "8-11,24-27"}, "3": {"cpus": "12-15,28-31"}}},
  "pve2": {"reservedcpus": "40-41"}}})";

region_settings with_file(region_settings s) {
  auto file = config::parse_node_settings(four_node_file, "NODE_SETTING_FILE test.json");
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error().message);
  if (file.ok()) s.node_settings = *file;
  return s;
}

TEST_F(RegionProviderSim, ANodeSettingsFileDecidesPinningAndARestartKeepsTheSetsDisjoint) {
  const std::vector<placement::cpu_set> file_nodes = {
      *placement::cpu_set::parse("0-3,16-19"), *placement::cpu_set::parse("4-7,20-23"),
      *placement::cpu_set::parse("8-11,24-27"), *placement::cpu_set::parse("12-15,28-31")};
  auto a = spawn_with(with_file(settings(true)));
  std::vector<launch_reply> made;
  auto pinned = [&](region_actor actor, const std::string& name, bool ask) {
    auto r = request(name, false);
    r.static_cpu_policy = ask;
    r.vcpus = 6;
    r.zones = {"pve1"};
    made.push_back(launch(actor, r));
    ASSERT_TRUE(made.back().ok) << made.back().error.code << ": " << made.back().error.message;
  };
  pinned(a, "numa-0", true);
  pinned(a, "numa-1", true);
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  // The restarted controller runs with NODE_POLICY=static instead of asking per launch.
  auto restarted = with_file(settings(true));
  restarted.static_cpu_policy = true;
  auto b = spawn_with(restarted);
  pinned(b, "numa-2", false);
  ASSERT_EQ(made.size(), 3u);
  std::set<int> seen;
  std::set<unsigned> bound_nodes;
  for (const auto& m : made) {
    auto c = config_of(m.zone, m.vmid);
    auto cpus = placement::cpu_set::parse(m.affinity);
    ASSERT_TRUE(cpus.ok()) << m.affinity;
    SCOPED_TRACE("vm " + std::to_string(m.vmid) + " affinity " + m.affinity);
    EXPECT_EQ(cpus->size(), 6);
    int home = -1;
    for (std::size_t i = 0; i < file_nodes.size(); ++i) {
      if ((*cpus - file_nodes[i]).empty()) home = static_cast<int>(i);
    }
    EXPECT_GE(home, 0) << "the set spans NUMA nodes of the file";
    ASSERT_EQ(c.numa_nodes.size(), 1u) << "one NUMA node holds the VM";
    ASSERT_EQ(c.numa_nodes.begin()->second.hostnodes.size(), 1u);
    EXPECT_EQ(static_cast<int>(c.numa_nodes.begin()->second.hostnodes.front()), home);
    bound_nodes.insert(c.numa_nodes.begin()->second.hostnodes.front());
    for (int cpu : cpus->members()) EXPECT_TRUE(seen.insert(cpu).second) << "CPU " << cpu;
  }
  EXPECT_EQ(bound_nodes.size(), 3u) << "6 of 8 CPUs per node: each VM needs its own node";
  auto inv = inventory(b);
  auto pve1 = std::find_if(inv.capacity.begin(), inv.capacity.end(),
                           [](const host_capacity& h) { return h.host == "pve1"; });
  ASSERT_NE(pve1, inv.capacity.end());
  EXPECT_EQ(pve1->free_cpus, 32 - 18);
}

TEST_F(RegionProviderSim, AHostWhoseNodeSettingsDoNotFitIsLeftOutOfPlacement) {
  auto a = spawn_with(with_file(settings(false)));
  auto inv = inventory(a);
  ASSERT_TRUE(inv.refreshed);
  ASSERT_EQ(inv.unusable_hosts.count("pve2"), 1u);
  EXPECT_NE(inv.unusable_hosts.at("pve2").find("reservedcpus"), std::string::npos)
      << inv.unusable_hosts.at("pve2");
  for (const auto& h : inv.capacity) EXPECT_NE(h.host, "pve2");
  EXPECT_EQ(inv.capacity.size(), 2u);
  auto r = request("on-pve2", false);
  r.zones = {"pve2"};
  auto reply = launch(a, r);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error.code, "no_capacity") << reply.error.message;
  auto elsewhere = launch(a, request("elsewhere", false));
  ASSERT_TRUE(elsewhere.ok) << elsewhere.error.message;
  EXPECT_NE(elsewhere.zone, "pve2");
}

TEST_F(RegionProviderSim, TheSimpleIpamGivesDistinctAddressesAndRebuildsAfterARestart) {
  // The template asks for an address from the hosts' subnet (kpp.md 4.6).
  proxmox::vm_config_update u;
  u.ipconfigs[0] = "ip=192.168.10.0/24,gw=192.168.10.1,ip6=fd00:10::/64";
  auto w = await<std::optional<proxmox::upid>>(
      [&](auto cb) { client(false)->update_vm_config("pve1", 9001, u, cb); });
  ASSERT_TRUE(w.ok()) << w.error().message;
  if (*w) {
    proxmox::task_wait_options o;
    o.initial_interval = 20ms;
    ASSERT_TRUE(await<proxmox::task_status>([&](auto cb) {
                  clients_.front()->wait_task(**w, o, cb);
                }).ok());
  }
  std::set<std::string> addresses;
  std::vector<launch_reply> made;
  auto launch_one = [&](region_actor actor, const std::string& name) {
    auto r = request(name, false);
    r.zones = {"pve1"};
    auto reply = launch(actor, r);
    ASSERT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
    auto c = config_of(reply.zone, reply.vmid);
    ASSERT_EQ(c.ipconfigs.count(0), 1u);
    EXPECT_EQ(c.ipconfigs.at(0), reply.ipconfig0);
    auto parsed = ipam::parse_ipconfig(c.ipconfigs.at(0));
    ASSERT_TRUE(parsed.ok());
    ASSERT_TRUE(parsed->ip.has_value());
    EXPECT_EQ(parsed->gw.value_or(""), "192.168.10.1");
    auto ip = *parsed->ip;
    EXPECT_EQ(ip.rfind("192.168.10.", 0), 0u) << ip;
    for (const char* host : {"192.168.10.1/", "192.168.10.11/", "192.168.10.12/", "192.168.10.13/",
                             "192.168.10.0/", "192.168.10.255/"}) {
      EXPECT_NE(ip.rfind(host, 0), 0u) << ip << " belongs to a host, the gateway or the subnet";
    }
    EXPECT_TRUE(addresses.insert(ip).second) << ip << " handed out twice";
    // IPv6 by SLAAC from net0's MAC, which the region chose and wrote (EUI-64: ff:fe inside).
    ASSERT_TRUE(parsed->ip6.has_value()) << c.ipconfigs.at(0);
    EXPECT_EQ(parsed->ip6->rfind("fd00:10::", 0), 0u) << *parsed->ip6;
    EXPECT_NE(parsed->ip6->find("ff:fe"), std::string::npos) << *parsed->ip6;
    EXPECT_NE(c.nets.at(0).mac, "") << "net0 carries the MAC the address came from";
    made.push_back(reply);
  };
  auto a = spawn();
  launch_one(a, "ip-0");
  launch_one(a, "ip-1");
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  auto b = spawn();
  launch_one(b, "ip-2");
  launch_one(b, "ip-3");
  EXPECT_EQ(addresses.size(), 4u);
  // A deleted VM's address is free again; the others stay taken.
  auto freed = config_of("pve1", made[0].vmid).ipconfigs.at(0);
  ASSERT_TRUE(remove(b, {made[0].vmid, "ip-0"}).ok);
  addresses.erase(*ipam::parse_ipconfig(freed)->ip);
  launch_one(b, "ip-4");
  EXPECT_EQ(addresses.size(), 4u);
}

TEST_F(RegionProviderSim, TheRegionRendersTheIsoWithTheNicsTheVmGets) {
  auto a = spawn();
  auto reply = launch(a, request("nic-aware"));
  ASSERT_TRUE(reply.ok) << reply.error.code << ": " << reply.error.message;
  auto c = config_of(reply.zone, reply.vmid);
  ASSERT_EQ(c.nets.count(0), 1u);
  ASSERT_EQ(c.drives.count("ide2"), 1u);
  auto files = iso_files(reply.zone, c.drives.at("ide2").volume);
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_TRUE(files->network_config.has_value()) << "the VM has a NIC: network-config is rendered";
  auto mac = c.nets.at(0).mac;
  std::transform(mac.begin(), mac.end(), mac.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  EXPECT_NE(files->network_config->find(mac), std::string::npos)
      << "the MAC cloud-init matches on is the VM's: " << *files->network_config;
  EXPECT_NE(files->meta_data.find(std::to_string(reply.vmid)), std::string::npos)
      << files->meta_data;
  EXPECT_NE(files->user_data.find(reply.provider_id), std::string::npos)
      << "the kubelet's providerID is the VM's";
}

TEST_F(RegionProviderSim, SyncWritesOnlyTheDifferences) {
  auto a = spawn();
  auto vm = launch(a, request("sync-me", false));
  ASSERT_TRUE(vm.ok) << vm.error.message;
  sync_vm_request same;
  same.vmid = vm.vmid;
  same.nodeclaim = "sync-me";
  same.tags = {"team-a"};
  auto before = writes(stats());
  auto r = sync(a, same);
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_TRUE(r.changed.empty());
  EXPECT_EQ(r.writes, 0u);
  EXPECT_EQ(writes(stats()), before) << "a VM in sync gets no write";

  sync_vm_request next;
  next.vmid = vm.vmid;
  next.nodeclaim = "sync-me";
  next.tags = {"team-b"};
  next.security_groups = {{"net0", "kubernetes"}};
  next.resource_pool = "kubernetes";
  before = writes(stats());
  r = sync(a, next);
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_EQ(r.changed,
            (std::vector<std::string>{"tags", "firewall_options", "firewall_rules", "pool"}));
  EXPECT_EQ(r.writes, 4u);
  EXPECT_EQ(writes(stats()) - before, 4);
  auto c = config_of(vm.zone, vm.vmid);
  EXPECT_TRUE(has_tag(c, "team-b"));
  EXPECT_TRUE(has_tag(c, "karpenter"));
  EXPECT_FALSE(has_tag(c, "team-a"));
  EXPECT_TRUE(options_of(vm.zone, vm.vmid).enable.value_or(false));
  EXPECT_EQ(group_rules(rules_of(vm.zone, vm.vmid)), std::vector<std::string>{"net0:kubernetes"});
  EXPECT_EQ(pool_of(vm.vmid), "kubernetes");

  before = writes(stats());
  r = sync(a, next);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_TRUE(r.changed.empty());
  EXPECT_EQ(writes(stats()), before);

  sync_vm_request fewer = next;
  fewer.security_groups.clear();
  fewer.resource_pool.clear();
  before = writes(stats());
  r = sync(a, fewer);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.changed, (std::vector<std::string>{"firewall_rules", "pool"}));
  EXPECT_EQ(writes(stats()) - before, 2);
  EXPECT_TRUE(group_rules(rules_of(vm.zone, vm.vmid)).empty());
  EXPECT_EQ(pool_of(vm.vmid), "");

  sync_vm_request missing;
  missing.vmid = 39999;
  missing.nodeclaim = "nobody";
  r = sync(a, missing);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "not_found");
}

}  // namespace
}  // namespace kp::actors::region
