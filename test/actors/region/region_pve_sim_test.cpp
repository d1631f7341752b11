// The region actor against pve-sim started as a real process: concurrent launches, the call
// budget per VM, adoption, deletes, the in-flight limit, cleanup after a failed config call,
// CPU pinning with root and with a token, a restart that rebuilds pinning, and foreign VMs.
#include "core/ownership/iso_name.hpp"
#include "test/actors/region/region_sim_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::actors::region::sim_fixture;
using namespace std::chrono_literals;
using namespace kp::protocol;

TEST_F(RegionActorSim, ThreeConcurrentLaunchesMakeThreeRunningMarkedVmsWithinTheCallBudget) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  auto before = stats();
  caf::scoped_actor self{*sys_};
  std::vector<launch_reply> replies(3);
  std::vector<caf::response_handle<caf::blocking_actor, caf::detail::type_list<launch_reply>, true>>
      handles;
  for (int i = 0; i < 3; ++i) {
    handles.push_back(
        self->request(a, 120s, launch_atom::value, request("pool-a-" + std::to_string(i))));
  }
  for (int i = 0; i < 3; ++i) {
    handles[i].receive([&](launch_reply& r) { replies[i] = r; },
                       [&](caf::error& e) { FAIL() << sys_->render(e); });
  }
  std::set<std::uint32_t> ids;
  for (int i = 0; i < 3; ++i) {
    const auto& r = replies[i];
    ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
    ids.insert(r.vmid);
    EXPECT_EQ(r.provider_id, "proxmox://pve-sim/" + std::to_string(r.vmid));
    auto c = config_of(r.zone, r.vmid);
    auto mark = ownership::parse_ownership_mark(c.description.value_or(""));
    ASSERT_TRUE(mark.has_value()) << c.description.value_or("<none>");
    EXPECT_EQ(mark->cluster, "test-cluster");
    EXPECT_EQ(mark->nodeclaim, "pool-a-" + std::to_string(i));
    EXPECT_EQ(c.name.value_or(""), "pool-a-" + std::to_string(i));
    EXPECT_NE(std::find(c.tags.begin(), c.tags.end(), "karpenter"), c.tags.end());
    EXPECT_NE(std::find(c.tags.begin(), c.tags.end(), "team-a"), c.tags.end());
    ASSERT_TRUE(c.smbios.has_value());
    EXPECT_EQ(c.smbios->sku, "c2-m4");
    ASSERT_EQ(c.nets.count(0), 1u);
    EXPECT_EQ(c.nets.at(0).queues.value_or(0), 2u);
    ASSERT_EQ(c.drives.count("ide2"), 1u);
    // The ISO's name carries this cluster's tag, the VMID and the NodeClaim.
    EXPECT_EQ(c.drives.at("ide2").volume,
              "local:iso/" +
                  ownership::iso_file_name("test-cluster", r.vmid, "pool-a-" + std::to_string(i)));
    EXPECT_EQ(c.cores.value_or(0), 2u);
    auto st = await<proxmox::vm_status>(
        [&](auto cb) { clients_.front()->vm_status(r.zone, r.vmid, cb); });
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->status, "running");
  }
  EXPECT_EQ(ids.size(), 3u);
  for (auto id : ids) EXPECT_GE(id, 20000u);
  auto made = writes(stats()) - writes(before);
  EXPECT_LE(made, 3 * 6) << "more than 6 requests per VM";
  EXPECT_EQ(made, 3 * 4) << "clone, upload, config, start per VM";
}

TEST_F(RegionActorSim, LaunchingTheSameNodeClaimTwiceAdoptsTheFirstVm) {
  auto a = spawn();
  auto first = launch(a, request("adopt-me"));
  ASSERT_TRUE(first.ok) << first.error.message;
  auto before = writes(stats());
  auto second = launch(a, request("adopt-me"));
  ASSERT_TRUE(second.ok) << second.error.message;
  EXPECT_TRUE(second.adopted);
  EXPECT_EQ(second.vmid, first.vmid);
  EXPECT_EQ(writes(stats()), before) << "adoption clones nothing";
  // A new actor (a restarted controller) adopts it from the inventory too.
  auto b = spawn();
  auto third = launch(b, request("adopt-me"));
  EXPECT_TRUE(third.adopted);
  EXPECT_EQ(third.vmid, first.vmid);
}

TEST_F(RegionActorSim, DeletesARunningVmAndItsIsoAndCallsAMissingVmGone) {
  auto a = spawn();
  auto vm = launch(a, request("to-delete"));
  ASSERT_TRUE(vm.ok) << vm.error.message;
  auto volid = config_of(vm.zone, vm.vmid).drives.at("ide2").volume;
  auto d = remove(a, {vm.vmid, "to-delete"});
  ASSERT_TRUE(d.ok) << d.error.message;
  EXPECT_FALSE(d.already_gone);
  for (const auto& r : vms()) EXPECT_NE(r.vmid, vm.vmid);
  auto content = await<std::vector<proxmox::storage_content>>([&](auto cb) {
    clients_.front()->storage_content(vm.zone, volid.substr(0, volid.find(':')), "iso", cb);
  });
  ASSERT_TRUE(content.ok());
  for (const auto& c : *content) EXPECT_NE(c.volid, volid) << "the ISO was left behind";
  auto again = remove(a, {vm.vmid, "to-delete"});
  EXPECT_TRUE(again.ok);
  EXPECT_TRUE(again.already_gone);
  auto by_name = remove(a, {0, "never-existed"});
  EXPECT_TRUE(by_name.ok);
  EXPECT_TRUE(by_name.already_gone);
}

TEST_F(RegionActorSim, NeverMoreThanTheCreditLimitInFlight) {
  auto a = spawn(false, 2);
  // The first launch lists Proxmox before it allocates; the burst then goes straight in.
  ASSERT_TRUE(launch(a, request("limited-first", false)).ok);
  caf::scoped_actor self{*sys_};
  std::vector<caf::response_handle<caf::blocking_actor, caf::detail::type_list<launch_reply>, true>>
      handles;
  for (int i = 0; i < 5; ++i) {
    handles.push_back(
        self->request(a, 120s, launch_atom::value, request("limited-" + std::to_string(i), false)));
  }
  auto during = inventory(a);
  EXPECT_LE(during.in_flight, 2u);
  EXPECT_EQ(during.in_flight + during.queued, 5u);
  for (auto& h : handles) {
    h.receive([&](launch_reply& r) { EXPECT_TRUE(r.ok) << r.error.message; },
              [&](caf::error& e) { FAIL() << sys_->render(e); });
  }
  auto after = inventory(a);
  EXPECT_EQ(after.peak_in_flight, 2u);
  EXPECT_EQ(after.in_flight + after.queued, 0u);
  EXPECT_EQ(stats()["POST /nodes/{node}/qemu/{vmid}/clone"], 6);
}

TEST_F(RegionActorSim, AFailingConfigCallLeavesNoVmBehind) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  auto f = sim_call("PUT", "/sim/v1/faults",
                    R"({"errors":[{"path":"/nodes/{node}/qemu/{vmid}/config","method":"POST",)"
                    R"("rate":1.0,"status":500,"message":"injected","count":1}]})");
  ASSERT_TRUE(f.ok() && f->status == 200);
  auto r = launch(a, request("doomed"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "proxmox");
  for (const auto& vm : vms()) EXPECT_NE(vm.name, "doomed");
  EXPECT_TRUE(owned(a).empty());
}

TEST_F(RegionActorSim, NoCapacityAndAMissingTemplateAreTypedErrors) {
  auto a = spawn();
  auto big = request("too-big", false);
  big.vcpus = 64;
  auto r = launch(a, big);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "no_capacity");
  EXPECT_NE(r.error.message.find("pve1"), std::string::npos) << r.error.message;
  auto t = request("no-template", false);
  t.template_name = "missing-template";
  r = launch(a, t);
  EXPECT_EQ(r.error.code, "template_missing");
}

std::vector<int> cpus_of(const proxmox::vm_config& c) {
  std::vector<int> out;
  if (c.affinity) {
    for (auto x : *c.affinity) out.push_back(static_cast<int>(x));
  } else if (c.description) {
    auto plan = ownership::description_affinity(*c.description);
    if (auto s = kp::placement::cpu_set::parse(plan)) out = s->members();
  }
  return out;
}

TEST_F(RegionActorSim, StaticPolicyWithRootPinsDisjointCpusAndARestartKeepsThemDisjoint) {
  auto a = spawn(true);
  std::vector<launch_reply> made;
  for (int i = 0; i < 2; ++i) {
    auto r = request("pinned-" + std::to_string(i), false);
    r.static_cpu_policy = true;
    r.vcpus = 4;
    r.zones = {"pve1"};
    made.push_back(launch(a, r));
    ASSERT_TRUE(made.back().ok) << made.back().error.message;
  }
  // A new actor over the same Proxmox rebuilds the allocations from the VM configs.
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  auto b = spawn(true);
  auto r = request("pinned-2", false);
  r.static_cpu_policy = true;
  r.vcpus = 4;
  r.zones = {"pve1"};
  made.push_back(launch(b, r));
  ASSERT_TRUE(made.back().ok) << made.back().error.message;
  std::set<int> seen;
  for (const auto& m : made) {
    EXPECT_EQ(m.zone, "pve1");
    auto c = config_of(m.zone, m.vmid);
    ASSERT_TRUE(c.affinity.has_value()) << "root sets affinity";
    EXPECT_TRUE(c.numa.value_or(false));
    EXPECT_FALSE(c.numa_nodes.empty());
    auto cpus = cpus_of(c);
    EXPECT_EQ(cpus.size(), 4u);
    std::string listed;
    for (int cpu : cpus) listed += std::to_string(cpu) + " ";
    SCOPED_TRACE("vm " + std::to_string(m.vmid) + ": " + listed);
    for (int cpu : cpus) EXPECT_TRUE(seen.insert(cpu).second) << "CPU " << cpu << " pinned twice";
  }
}

TEST_F(RegionActorSim, StaticPolicyWithATokenWritesThePlanIntoTheDescription) {
  auto a = spawn(false);
  std::set<int> seen;
  for (int i = 0; i < 2; ++i) {
    auto r = request("token-pinned-" + std::to_string(i), false);
    r.static_cpu_policy = true;
    r.vcpus = 2;
    r.zones = {"pve2"};
    auto reply = launch(a, r);
    ASSERT_TRUE(reply.ok) << reply.error.message;
    auto c = config_of(reply.zone, reply.vmid);
    EXPECT_FALSE(c.affinity.has_value()) << "a token cannot set affinity";
    auto plan = ownership::description_affinity(c.description.value_or(""));
    EXPECT_EQ(plan, reply.affinity);
    auto cpus = cpus_of(c);
    EXPECT_EQ(cpus.size(), 2u);
    SCOPED_TRACE("vm " + std::to_string(reply.vmid) + ": " + c.description.value_or("") +
                 " numa0: " + c.raw["numa0"]);
    for (int cpu : cpus) EXPECT_TRUE(seen.insert(cpu).second);
  }
}

TEST_F(RegionActorSim, AnotherClustersVmsAreNeverListedAsOurs) {
  auto other = spawn(false, 8, "other-cluster");
  auto theirs = request("their-node", false);
  auto t = launch(other, theirs);
  ASSERT_TRUE(t.ok) << t.error.message;
  auto ours = spawn(false, 8, "test-cluster");
  auto o = launch(ours, request("our-node", false));
  ASSERT_TRUE(o.ok) << o.error.message;
  auto list = owned(ours);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].nodeclaim, "our-node");
  EXPECT_EQ(list[0].vmid, o.vmid);
  EXPECT_TRUE(list[0].collectable);
  // Deleting by NodeClaim name never touches the other cluster's VM of that name.
  auto d = remove(ours, {0, "their-node"});
  EXPECT_TRUE(d.already_gone);
  bool still_there = false;
  for (const auto& vm : vms()) still_there |= vm.vmid == t.vmid;
  EXPECT_TRUE(still_there);
}

TEST_F(RegionActorSim, AVmidTakenBehindTheActorsBackMakesTheCloneTryTheNextId) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  clone_directly(20000, "someone-else", "made by hand");
  auto r = launch(a, request("after-conflict", false));
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_EQ(r.vmid, 20001u);
}

TEST_F(RegionActorSim, GoProviderVmsAreListedForAdoptionButNeverCollectable) {
  auto a = spawn();
  ASSERT_TRUE(inventory(a).refreshed);
  clone_directly(30000, "legacy-node",
                 "Karpenter managed instance, class=default, capacity-type=on-demand");
  clone_directly(30001, "hand-made", "made by hand");
  caf::anon_send(a, refresh_atom::value);
  auto list = owned(a);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].nodeclaim, "legacy-node");
  EXPECT_EQ(list[0].vmid, 30000u);
  EXPECT_FALSE(list[0].collectable);
}

TEST_F(RegionActorSim, AnUnreachableProxmoxGivesATypedErrorNotAHang) {
  proxmox::client_settings cs;
  cs.url = "https://127.0.0.1:1";
  cs.transport.connect_timeout = 2s;
  cs.credentials = proxmox::token_credentials{"kubernetes@pve!karpenter", "unused"};
  auto c = std::make_shared<proxmox::client>(io_->context(), cs);
  clients_.push_back(c);
  region_settings s;
  s.region = "down";
  s.cluster_name = "test-cluster";
  auto a = spawn_region_actor(*sys_, c, s);
  actors_.push_back(a);
  auto r = launch(a, request("nowhere", false));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "proxmox");
  auto inv = inventory(a);
  EXPECT_FALSE(inv.refreshed);
  EXPECT_FALSE(inv.detail.empty());
}

TEST_F(RegionActorSim, ReleasingTheIsoDetachesTheCdromAndDeletesTheVolumeOnce) {
  auto a = spawn();
  auto r = launch(a, request("release-me"));
  ASSERT_TRUE(r.ok) << r.error.message;
  auto volume = config_of(r.zone, r.vmid).drives.at("ide2").volume;
  auto before = stats();
  caf::scoped_actor self{*sys_};
  release_iso_reply reply;
  self->request(a, 60s, release_iso_atom::value, release_iso_request{r.vmid, "release-me"})
      .receive([&](release_iso_reply& x) { reply = x; },
               [&](caf::error& e) { FAIL() << sys_->render(e); });
  ASSERT_TRUE(reply.ok) << reply.error.message;
  EXPECT_FALSE(reply.nothing_to_do);
  EXPECT_EQ(config_of(r.zone, r.vmid).drives.count("ide2"), 0u);
  auto content = await<std::vector<proxmox::storage_content>>(
      [&](auto cb) { clients_.front()->storage_content(r.zone, "local", "iso", cb); });
  ASSERT_TRUE(content.ok());
  for (const auto& item : *content) EXPECT_NE(item.volid, volume);
  auto after = stats();
  EXPECT_EQ(after["DELETE /nodes/{node}/storage/{storage}/content/{volume}"] -
                before["DELETE /nodes/{node}/storage/{storage}/content/{volume}"],
            1);
  EXPECT_EQ(after["POST /nodes/{node}/qemu/{vmid}/clone"],
            before["POST /nodes/{node}/qemu/{vmid}/clone"]);
  // Again: nothing left to release, no Proxmox write.
  auto writes_before = writes(stats());
  self->request(a, 60s, release_iso_atom::value, release_iso_request{r.vmid, "release-me"})
      .receive([&](release_iso_reply& x) { reply = x; },
               [&](caf::error& e) { FAIL() << sys_->render(e); });
  EXPECT_TRUE(reply.ok);
  EXPECT_TRUE(reply.nothing_to_do);
  EXPECT_EQ(writes(stats()), writes_before);
}

TEST_F(RegionActorSim, ARefreshDeletesOnlyThisClustersLeftoverIsosWhoseVmIsGone) {
  // A leftover of this cluster for VM 31999 (never existed), one of another cluster, one of an
  // earlier version's name and one a person uploaded; and the ISO of a live VM.
  auto iso = cloudinit::write_nocloud_iso({"#cloud-config\n", "instance-id: x\n", {}, {}});
  ASSERT_TRUE(iso.ok());
  auto ours = ownership::iso_file_name("test-cluster", 31999, "gone-claim");
  auto theirs = ownership::iso_file_name("other-cluster", 31998, "their-claim");
  for (const std::string& name :
       {ours, theirs, std::string("user-data-31997.iso"), std::string("debian-12.iso")}) {
    proxmox::iso_upload up;
    up.node = "pve1";
    up.storage = "local";
    up.filename = name;
    up.data = *iso;
    auto task = await<proxmox::upid>([&](auto cb) { client(false)->upload(up, cb); });
    ASSERT_TRUE(task.ok()) << task.error().message;
    proxmox::task_wait_options w;
    w.initial_interval = 20ms;
    auto stored =
        await<proxmox::task_status>([&](auto cb) { clients_.front()->wait_task(*task, w, cb); });
    ASSERT_TRUE(stored.ok()) << stored.error().message;
  }
  auto live = spawn();
  auto r = launch(live, request("keep-my-iso"));
  ASSERT_TRUE(r.ok) << r.error.message;
  auto live_volume = config_of(r.zone, r.vmid).drives.at("ide2").volume;

  region_settings s = settings();
  s.refresh_interval = 100ms;
  s.leftover_iso_grace = 0s;
  s.leftover_iso_every = 1;
  auto sweeper = spawn_with(s);
  auto names = [&] {
    std::set<std::string> out;
    auto c = await<std::vector<proxmox::storage_content>>(
        [&](auto cb) { clients_.front()->storage_content("pve1", "local", "iso", cb); });
    if (c.ok()) {
      for (const auto& item : *c) out.insert(item.volid);
    }
    return out;
  };
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (names().count("local:iso/" + ours) != 0 && std::chrono::steady_clock::now() < deadline) {
    inventory(sweeper);  // one round trip through the actor between polls
  }
  auto left = names();
  EXPECT_EQ(left.count("local:iso/" + ours), 0u) << "this cluster's leftover ISO stayed";
  EXPECT_EQ(left.count("local:iso/" + theirs), 1u) << "another cluster's ISO was deleted";
  EXPECT_EQ(left.count("local:iso/user-data-31997.iso"), 1u) << "an unmarked ISO was deleted";
  EXPECT_EQ(left.count("local:iso/debian-12.iso"), 1u) << "someone's ISO was deleted";
  if (r.zone == "pve1") {
    EXPECT_EQ(left.count(live_volume), 1u) << "the ISO of a live VM was deleted";
  }
  EXPECT_EQ(config_of(r.zone, r.vmid).drives.count("ide2"), 1u);
}

}  // namespace
}  // namespace kp::actors::region
