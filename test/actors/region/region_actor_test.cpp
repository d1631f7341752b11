// The region actor in virtual time: CAF's test coordinator drives it over an in-memory Proxmox
// (fake_proxmox.hpp) through the same seam the REST client implements. No wall clock, no threads:
// task polls, retries and deadlines run on the actor clock and advance only when the test says.
#include <gtest/gtest.h>

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "actors/region/region_actor.hpp"
#include "core/ownership/iso_name.hpp"
#include "core/ownership/vm_mark.hpp"
#include "test/actors/region/region_actor_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace std::chrono_literals;
using namespace kp::protocol;
using kp::test::fake_proxmox;

std::string mark(const std::string& claim,
                 const std::string& of_cluster = region_actor_fixture::cluster) {
  return ownership::format_ownership_mark({of_cluster, claim, "default", ""});
}

class RegionActor : public region_actor_fixture {
 protected:
  double refusals(const std::string& operation) {
    auto& family = prometheus::BuildCounter()
                       .Name("karpenter_proxmox_foreign_vm_refusals_total")
                       .Register(registry);
    return family.Add({{"region", "r1"}, {"operation", operation}}).Value();
  }

  std::uint32_t vmid_named(const std::string& name) {
    for (const auto& [id, v] : pve->vms) {
      if (v.config.name.value_or("") == name) return id;
    }
    return 0;
  }
  int vms_named(const std::string& name) {
    int n = 0;
    for (const auto& [id, v] : pve->vms) n += v.config.name.value_or("") == name ? 1 : 0;
    return n;
  }
};

// --- the launch sequence -----------------------------------------------------------------------

TEST_F(RegionActor, ALaunchClonesUploadsConfiguresAndStartsWithFourWrites) {
  auto a = spawn();
  pve->reset_counts();
  auto r = launch(a, request("claim-a"));
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_FALSE(r.adopted);
  EXPECT_EQ(r.provider_id, "proxmox://r1/" + std::to_string(r.vmid));
  const auto& vm = pve->vms.at(r.vmid);
  EXPECT_EQ(vm.status, "running");
  auto parsed = ownership::parse_ownership_mark(vm.config.description.value_or(""));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->nodeclaim, "claim-a");
  EXPECT_EQ(vm.config.drives.at("ide2").volume,
            "local:iso/" + ownership::iso_file_name(cluster, r.vmid, "claim-a"));
  EXPECT_EQ(pve->writes(), 4) << "clone, upload, config, start";
  EXPECT_EQ(pve->calls["clone_vm"], 1);
  EXPECT_EQ(pve->calls["upload"], 1);
  EXPECT_EQ(pve->calls["update_vm_config"], 1);
  EXPECT_EQ(pve->calls["start_vm"], 1);
  // Within one launch our own replies are the proof; the one config read is the inventory's
  // refresh after the launch, reading the new VM's real config.
  EXPECT_LE(pve->calls["vm_config"], 1);
}

TEST_F(RegionActor, ALaunchReplyCarriesItsStepTimesOnTheActorClock) {
  auto a = spawn();
  // clone_wait polls at once, then at 0.1, 0.3, 0.7 s: the clone ends at 0.7 s of virtual time.
  pve->task_running_polls["qmclone"] = 3;
  pve->task_running_polls["qmstart"] = 1;  // the start ends at its 0.1 s poll
  auto r = launch(a, request("claim-t"));
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_TRUE(r.steps.measured);
  EXPECT_FALSE(r.steps.full_clone) << "a linked clone of a template on thin storage";
  EXPECT_EQ(r.steps.clone_us, 700'000);
  EXPECT_EQ(r.steps.configure_us, 0) << "upload and config end at their first poll";
  EXPECT_EQ(r.steps.boot_us, 100'000);
  EXPECT_EQ(r.steps.after_boot_us, 0);
}

TEST_F(RegionActor, ALaunchThatResumesAVmItDidNotCloneReportsNoStepTimes) {
  auto first = launch(spawn(), request("claim-r"));
  ASSERT_TRUE(first.ok);
  EXPECT_TRUE(first.steps.measured);
  auto again = launch(spawn(), request("claim-r"));  // a restarted controller
  ASSERT_TRUE(again.ok) << again.error.message;
  EXPECT_TRUE(again.adopted);
  EXPECT_FALSE(again.steps.measured) << "its clone ran before this launch";
}

TEST_F(RegionActor, ALaunchForAClaimWhoseVmRunsAdoptsItWithoutAWrite) {
  auto a = spawn();
  auto first = launch(a, request("claim-b"));
  ASSERT_TRUE(first.ok);
  pve->reset_counts();
  auto again = launch(spawn(), request("claim-b"));  // a restarted controller
  ASSERT_TRUE(again.ok) << again.error.message;
  EXPECT_TRUE(again.adopted);
  EXPECT_EQ(again.vmid, first.vmid);
  EXPECT_EQ(again.resumed_at, "");
  EXPECT_EQ(pve->writes(), 0);
  EXPECT_EQ(vms_named("claim-b"), 1);
}

struct interruption {
  const char* hangs;  // the call under way when the controller died
  const char* resumes_at;
  int writes_after;  // the writes the resumed launch makes
};

class RegionResume : public RegionActor, public ::testing::WithParamInterface<interruption> {};

TEST_P(RegionResume, ALaunchInterruptedAtAStepResumesFromTheFirstMissingOne) {
  const auto& p = GetParam();
  auto req = request("claim-r");
  req.disk_gib = 20;  // the template's disk is 10G: the resize is a step
  req.security_groups = {{"net0", "kubernetes"}};
  auto first = spawn();
  pve->hanging.insert(p.hangs);
  auto lost = ask<launch_reply>(first, launch_atom::value, req);
  sched().run();
  ASSERT_FALSE(lost->has_value()) << "the launch hangs in " << p.hangs;
  caf::anon_send_exit(first, caf::exit_reason::kill);  // the controller dies
  sched().run();
  pve->hanging.clear();
  pve->reset_counts();

  auto r = launch(spawn(), req);
  ASSERT_TRUE(r.ok) << r.error.code << ": " << r.error.message;
  EXPECT_TRUE(r.adopted);
  EXPECT_EQ(r.resumed_at, p.resumes_at);
  EXPECT_EQ(pve->calls["clone_vm"], 0) << "no second VM";
  EXPECT_EQ(vms_named("claim-r"), 1);
  EXPECT_EQ(pve->writes(), p.writes_after);
  const auto& vm = pve->vms.at(r.vmid);
  EXPECT_EQ(vm.status, "running");
  EXPECT_EQ(vm.config.cores.value_or(0), 2u);
  EXPECT_EQ(vm.config.drives.count("ide2"), 1u);
  EXPECT_EQ(vm.config.drives.at("scsi0").option("size").value_or(""), "20G");
  ASSERT_EQ(vm.rules.size(), 1u);
  EXPECT_EQ(vm.rules[0].action, "kubernetes");
}

INSTANTIATE_TEST_SUITE_P(
    EachStep, RegionResume,
    ::testing::Values(interruption{"upload", "upload", 6},  // upload config resize fw start
                      interruption{"update_vm_config", "upload", 6},  // the ISO is made again
                      interruption{"resize_disk", "resize", 4},       // resize options rule start
                      interruption{"add_firewall_rule", "firewall", 3},  // options rule start
                      interruption{"start_vm", "start", 1}),
    [](const auto& info) { return std::string(info.param.hangs); });

TEST_F(RegionActor, AVmStillBeingClonedIsWaitedForAndNeverClonedTwice) {
  pve->task_outcomes["qmclone"] = fake_proxmox::task_outcome::never_ends;
  auto first = spawn();
  auto lost = ask<launch_reply>(first, launch_atom::value, request("claim-c"));
  sched().run();
  caf::anon_send_exit(first, caf::exit_reason::kill);  // a leader change mid-clone
  sched().run();
  ASSERT_EQ(vms_named("claim-c"), 1);
  ASSERT_TRUE(pve->vms.at(vmid_named("claim-c")).config.lock.has_value());
  auto reply = ask<launch_reply>(spawn(), launch_atom::value, request("claim-c"));
  sched().run();
  sched().advance_time(3s);
  sched().run();
  EXPECT_FALSE(reply->has_value()) << "the clone still runs";
  pve->vms.at(vmid_named("claim-c")).config.lock.reset();  // the old leader's clone ends
  auto r = await(reply);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_TRUE(r.adopted);
  EXPECT_EQ(vms_named("claim-c"), 1);
}

// --- task deadlines and retries
// -------------------------------------------------------------------

TEST_F(RegionActor, ACloneTaskThatNeverEndsFailsAtItsDeadlineAndTheVmIsRemoved) {
  auto a = spawn();
  pve->task_outcomes["qmclone"] = fake_proxmox::task_outcome::never_ends;
  auto reply = ask<launch_reply>(a, launch_atom::value, request("claim-t"));
  sched().run();
  sched().advance_time(9s);
  sched().run();
  EXPECT_FALSE(reply->has_value()) << "still within the 10 s clone wait";
  pve->task_outcomes.clear();  // the destroy task ends
  auto r = await(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "proxmox");
  EXPECT_NE(r.error.message.find("timeout"), std::string::npos) << r.error.message;
  EXPECT_EQ(vms_named("claim-t"), 0) << "no half-made VM is left behind";
}

// A fault inside a step (here the client throws) ends that launch with an error, once: the VM
// it made is removed, its credit serves the next launch, and the NodeClaim can launch anew.
TEST_F(RegionActor, AFaultInALaunchStepEndsThatLaunchOnceAndItsCreditServesTheNext) {
  auto s = settings();
  s.max_in_flight = 1;
  auto a = spawn(s);
  pve->throwing = {"update_vm_config"};  // the config step, after the clone
  auto failed = launch(a, request("claim-f"));
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error.code, "internal");
  EXPECT_NE(failed.error.message.find("a fault in the client"), std::string::npos)
      << failed.error.message;
  EXPECT_EQ(pve->calls["clone_vm"], 1);
  EXPECT_EQ(vms_named("claim-f"), 0) << "the VM the launch made is removed";
  pve->throwing.clear();
  auto next = launch(a, request("claim-g"));
  ASSERT_TRUE(next.ok) << "the one credit came back: " << next.error.message;
  auto again = launch(a, request("claim-f"));
  ASSERT_TRUE(again.ok) << again.error.message;
  EXPECT_EQ(vms_named("claim-f"), 1);
}

// A fault at the clone (nothing made yet) and a fault in the clean-up after a first fault: each
// launch is still answered, and no credit is lost.
TEST_F(RegionActor, AFaultAtTheCloneOrInTheCleanUpStillAnswersAndKeepsTheCredit) {
  auto s = settings();
  s.max_in_flight = 1;
  auto a = spawn(s);
  pve->throwing = {"clone_vm"};
  auto before_clone = launch(a, request("claim-h"));
  EXPECT_FALSE(before_clone.ok);
  EXPECT_EQ(before_clone.error.code, "internal");
  EXPECT_EQ(vms_named("claim-h"), 0);
  pve->throwing = {"update_vm_config", "delete_vm"};  // the launch, then its clean-up
  auto in_cleanup = launch(a, request("claim-i"));
  EXPECT_FALSE(in_cleanup.ok);
  EXPECT_EQ(in_cleanup.error.code, "internal");
  EXPECT_EQ(vms_named("claim-i"), 1) << "the VM stays, marked ours, for the next launch";
  pve->throwing.clear();
  auto resumed = launch(a, request("claim-i"));
  ASSERT_TRUE(resumed.ok) << resumed.error.message;
  EXPECT_EQ(vms_named("claim-i"), 1) << "the next launch resumes the VM it left";
  EXPECT_EQ(pve->calls["clone_vm"], 2);
}

// A fault in an inventory refresh (the client throws at the listing, or at a VM's config read
// within it) ends that refresh as failed: the launch waiting for it is answered, and the next
// refresh runs, so the region never waits for a refresh that cannot finish.
TEST_F(RegionActor, AFaultInAnInventoryRefreshEndsThatRefreshAndTheNextOneRuns) {
  for (std::string method : {"cluster_resources", "vm_config"}) {
    SCOPED_TRACE(method);
    pve->add_vm(150, "pve1", "someone-elses", "not ours", true);
    pve->throwing = {method};
    auto a = spawn();
    auto failed = launch(a, request("claim-r-" + method));
    EXPECT_FALSE(failed.ok);
    EXPECT_EQ(vms_named("claim-r-" + method), 0);
    pve->throwing.clear();
    auto next = launch(a, request("claim-r-" + method));
    ASSERT_TRUE(next.ok) << next.error.message;
    EXPECT_EQ(vms_named("claim-r-" + method), 1);
    EXPECT_EQ(pve->vms.at(150).config.name.value_or(""), "someone-elses");
  }
}

TEST_F(RegionActor, ATransientTaskPollErrorIsRetriedUntilTheTaskEnds) {
  auto a = spawn();
  // The shared task list fails too, so the waits fall back to their own (failing) polls.
  pve->fail_next("cluster_tasks", make_error("unavailable", "503 Service Unavailable"), 0, 2);
  pve->fail_next("task_status", make_error("unavailable", "503 Service Unavailable"), 0, 2);
  auto r = launch(a, request("claim-u"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(pve->vms.at(r.vmid).status, "running");
}

TEST_F(RegionActor, AVmidTakenBehindTheActorsBackMakesTheCloneTakeTheNextOne) {
  auto a = spawn();
  // Someone took 20000 between the region's listing and its clone.
  pve->fail_next("clone_vm", make_error("conflict", "500 VM 20000 already exists"), 20000);
  auto r = launch(a, request("claim-v"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.vmid, 20001u);
  EXPECT_EQ(pve->calls["clone_vm"], 2);
}

// --- VMIDs that NodeClaims name
// -------------------------------------------------------------------

TEST_F(RegionActor, NothingIsAllocatedBeforeTheClaimedVmidsAreKnown) {
  auto a = spawn(settings(), false);
  auto reply = ask<launch_reply>(a, launch_atom::value, request("claim-w"));
  sched().run();
  sched().advance_time(5s);
  sched().run();
  EXPECT_FALSE(reply->has_value());
  EXPECT_EQ(pve->calls["clone_vm"], 0);
  // 20000 and 20001 belong to NodeClaims whose VMs vanished: never handed out again.
  caf::anon_send(a, claimed_vmids{{20000, 20001}});
  auto r = await(reply);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.vmid, 20002u);
}

TEST_F(RegionActor, ALaunchWaitingForClaimedVmidsGivesUpAtTheWait) {
  auto a = spawn(settings(), false);
  auto r = await(ask<launch_reply>(a, launch_atom::value, request("claim-x")));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, "not_ready");
  EXPECT_EQ(pve->calls["clone_vm"], 0);
}

// --- the door: never touch a VM that is not ours ------------------------------------------------

TEST_F(RegionActor, AForeignVmReusingOurVmidIsRefusedOnDeleteSyncAndIsoRelease) {
  auto a = spawn();
  auto ours = launch(a, request("claim-f"));
  ASSERT_TRUE(ours.ok);
  // Our VM goes out of band; an admin makes `precious-db` with the same VMID.
  pve->vms.erase(ours.vmid);
  pve->add_vm(ours.vmid, "pve1", "precious-db", "the production database");
  pve->vms.at(ours.vmid).config.drives["ide2"] =
      proxmox::cdrom_drive("local:iso/" + ownership::iso_file_name(cluster, ours.vmid, "claim-f"));
  pve->reset_counts();

  auto d = await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{ours.vmid, "claim-f"}));
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.error.code, "foreign_vm");
  sync_vm_request sync;
  sync.vmid = ours.vmid;
  sync.nodeclaim = "claim-f";
  sync.tags = {"team-b"};
  auto s = await(ask<sync_vm_reply>(a, sync_vm_atom::value, sync));
  EXPECT_EQ(s.error.code, "foreign_vm");
  auto i = await(ask<release_iso_reply>(a, release_iso_atom::value,
                                        release_iso_request{ours.vmid, "claim-f"}));
  EXPECT_EQ(i.error.code, "foreign_vm");

  EXPECT_EQ(pve->writes(), 0) << "nothing was written to the foreign VM";
  ASSERT_EQ(pve->vms.count(ours.vmid), 1u);
  EXPECT_EQ(pve->vms.at(ours.vmid).status, "running");
  EXPECT_EQ(pve->vms.at(ours.vmid).config.drives.count("ide2"), 1u);
  EXPECT_EQ(refusals("delete"), 1);
  EXPECT_EQ(refusals("sync"), 1);
  EXPECT_EQ(refusals("release_iso"), 1);
}

TEST_F(RegionActor, AVmMarkedForAnotherNodeClaimOrClusterIsRefusedToo) {
  auto a = spawn();
  pve->add_vm(20100, "pve1", "claim-other", mark("claim-other"));
  pve->add_vm(20101, "pve2", "claim-g", mark("claim-g", "other-cluster"));
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  auto d1 = await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{20100, "claim-g"}));
  EXPECT_EQ(d1.error.code, "foreign_vm");
  auto d2 = await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{20101, "claim-g"}));
  EXPECT_EQ(d2.error.code, "foreign_vm");
  EXPECT_EQ(pve->vms.count(20100) + pve->vms.count(20101), 2u);
  // Ours, named right: deleted, and then gone.
  auto d3 =
      await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{20100, "claim-other"}));
  EXPECT_TRUE(d3.ok) << d3.error.message;
  EXPECT_EQ(pve->vms.count(20100), 0u);
}

TEST_F(RegionActor, AGoProviderVmIsDeletedForItsNodeClaimButNeverCollected) {
  auto a = spawn();
  pve->add_vm(20200, "pve1", "legacy", "Karpenter managed instance, class=default");
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  delete_request collect{20200, "legacy", true};
  auto refused = await(ask<delete_reply>(a, vm_delete_atom::value, collect));
  EXPECT_EQ(refused.error.code, "foreign_vm");
  EXPECT_EQ(pve->vms.count(20200), 1u);
  auto d = await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{20200, "legacy"}));
  EXPECT_TRUE(d.ok) << d.error.message;
  EXPECT_EQ(pve->vms.count(20200), 0u);
}

TEST_F(RegionActor, AConfigReadThatFailsLeavesTheVmUntouched) {
  auto a = spawn();
  auto ours = launch(a, request("claim-h"));
  ASSERT_TRUE(ours.ok);
  pve->reset_counts();
  pve->fail_next("vm_config", make_error("server_error", "500 injected"), ours.vmid);
  auto d = await(ask<delete_reply>(a, vm_delete_atom::value, delete_request{ours.vmid, "claim-h"}));
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.error.code, "unknown");
  EXPECT_EQ(pve->writes(), 0);
  EXPECT_EQ(pve->vms.at(ours.vmid).status, "running");
}

// --- unknown is not gone ------------------------------------------------------------------------

TEST_F(RegionActor, TheListingSaysUnknownForUnreadableConfigsAndOfflineHostsNeverGone) {
  pve->add_vm(20300, "pve1", "claim-1", mark("claim-1"));
  pve->add_vm(20301, "pve1", "claim-2", mark("claim-2"));
  pve->add_vm(20302, "pve2", "claim-3", mark("claim-3"));
  pve->add_vm(20303, "pve1", "precious-db", "");
  pve->host_status["pve2"] = "offline";
  pve->fail_next("vm_config", make_error("server_error", "500 injected"), 20301, 100);
  auto a = spawn();
  auto l = await(ask<owned_vm_listing>(a, list_owned_atom::value));
  ASSERT_TRUE(l.fresh) << l.detail;
  ASSERT_EQ(l.vms.size(), 1u);
  EXPECT_EQ(l.vms[0].vmid, 20300u);
  std::set<std::uint32_t> unknown;
  for (const auto& u : l.unknown) unknown.insert(u.vmid);
  EXPECT_EQ(unknown, (std::set<std::uint32_t>{20301, 20302}));
  EXPECT_EQ(l.unknown_hosts, std::vector<std::string>{"pve2"});

  // A listing that fails is not fresh: nothing in it proves anything missing.
  pve->fail_next("cluster_resources", make_error("server_error", "500 injected"));
  auto failed = await(ask<owned_vm_listing>(a, list_owned_atom::value));
  EXPECT_FALSE(failed.fresh);
  EXPECT_TRUE(failed.vms.empty());
}

TEST_F(RegionActor, EveryListingIsMadeAfterTheRequest) {
  auto a = spawn();
  auto before = pve->calls["cluster_resources"];
  pve->add_vm(20400, "pve1", "claim-late", mark("claim-late"));
  auto l = await(ask<owned_vm_listing>(a, list_owned_atom::value));
  EXPECT_EQ(pve->calls["cluster_resources"], before + 1);
  ASSERT_EQ(l.vms.size(), 1u);
  EXPECT_EQ(l.vms[0].nodeclaim, "claim-late");
}

// --- leader handover
// -------------------------------------------------------------------------------

TEST_F(RegionActor, ANewLeaderListsBeforeItAllocatesAndResumesTheOldLeadersVm) {
  auto a = spawn();
  // The old leader's VM appeared after this actor's last listing: only a fresh one shows it.
  pve->add_vm(20500, "pve1", "claim-l", mark("claim-l"), false);
  auto before = pve->calls["cluster_resources"];
  // The new leader's fleet announces itself (another sender than the last one).
  sys().spawn([a](caf::event_based_actor* self) { self->send(a, claimed_vmids{{20500}}); });
  sched().run();
  pve->reset_counts();
  auto r = launch(a, request("claim-l"));
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.vmid, 20500u);
  EXPECT_TRUE(r.adopted);
  EXPECT_EQ(pve->calls["clone_vm"], 0) << "a name collision never makes a second VM";
  EXPECT_GE(pve->calls["cluster_resources"], 1) << before;
  EXPECT_EQ(vms_named("claim-l"), 1);
}

// --- timers: task polling and the inventory refresh ---------------------------------------------

TEST_F(RegionActor, ATaskIsPolledAtOnceThenAtDoublingIntervalsCappedAtTheMaximum) {
  auto a = spawn();
  pve->task_outcomes["qmclone"] = fake_proxmox::task_outcome::never_ends;
  pve->reset_counts();
  auto reply = ask<launch_reply>(a, launch_atom::value, request("claim-p"));
  sched().run();
  auto polls_after = [&](caf::timespan step) {
    sched().advance_time(step);
    sched().run();
    return pve->task_reads();
  };
  EXPECT_EQ(pve->task_reads(), 1) << "the first poll is at once";
  // clone_wait: 100 ms, doubling, at most 1 s; polls at 0.1, 0.3, 0.7, 1.5, 2.5, 3.5 s.
  EXPECT_EQ(polls_after(99ms), 1);
  EXPECT_EQ(polls_after(1ms), 2);
  EXPECT_EQ(polls_after(199ms), 2);
  EXPECT_EQ(polls_after(1ms), 3);
  EXPECT_EQ(polls_after(399ms), 3);
  EXPECT_EQ(polls_after(1ms), 4);
  EXPECT_EQ(polls_after(799ms), 4);
  EXPECT_EQ(polls_after(1ms), 5);
  EXPECT_EQ(polls_after(999ms), 5);
  EXPECT_EQ(polls_after(1ms), 6) << "the interval stops growing at max_interval";
  EXPECT_EQ(polls_after(1s), 7);
  EXPECT_FALSE(reply->has_value()) << "still inside the 10 s clone wait";
}

TEST_F(RegionActor, TheInventoryIsListedEveryRefreshIntervalAndARefreshOnDemandRestartsIt) {
  auto a = spawn();  // refresh_interval 10 min
  auto listings_after = [&](caf::timespan step) {
    sched().advance_time(step);
    sched().run();
    return pve->calls["cluster_resources"];
  };
  auto first = pve->calls["cluster_resources"];
  ASSERT_GE(first, 1) << "a region lists its inventory when it starts";
  EXPECT_EQ(listings_after(10min - 1ms), first);
  EXPECT_EQ(listings_after(1ms), first + 1);
  EXPECT_EQ(listings_after(4min), first + 1);
  caf::anon_send(a, refresh_atom::value);
  sched().run();
  EXPECT_EQ(pve->calls["cluster_resources"], first + 2);
  // The timer counts from the refresh on demand: nothing at 10 min after the timed one.
  EXPECT_EQ(listings_after(6min), first + 2);
  EXPECT_EQ(listings_after(4min - 1ms), first + 2);
  EXPECT_EQ(listings_after(1ms), first + 3);
}

}  // namespace
}  // namespace kp::actors::region
