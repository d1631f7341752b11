// The template VM work through the region actor against pve-sim: observe, download, create with
// import, convert, clone, retire and delete as typed messages; VMIDs from the region's one
// allocator (never one a launch holds); every step that changes or destroys a VM refused when its
// template mark does not name this cluster and template. And the door for node VMs: a foreign VM
// that took our VMID is refused on delete, sync and ISO release, and left as it was.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include "core/ownership/template_mark.hpp"
#include "test/actors/region/region_sim_fixture.hpp"

namespace kp::actors::region {
namespace {

using namespace kp::actors::region::sim_fixture;
using namespace std::chrono_literals;
using namespace kp::protocol;

class RegionTemplateSim : public RegionActorSim {
 protected:
  prometheus::Registry registry_;

  region_actor spawn_counted() {
    auto s = settings();
    s.metrics = &registry_;
    return spawn_with(s);
  }
  double refusals(const std::string& operation) {
    auto& family = prometheus::BuildCounter()
                       .Name("karpenter_proxmox_foreign_vm_refusals_total")
                       .Register(registry_);
    return family.Add({{"region", region_name}, {"operation", operation}}).Value();
  }
  static std::string mark(const std::string& template_name, bool retired = false) {
    ownership::template_mark m;
    m.cluster = "test-cluster";
    m.template_name = template_name;
    m.image = "ubuntu-test-1.qcow2";
    m.retired = retired;
    return "Managed by karpenter-proxmox.\n" + ownership::format_template_mark(m);
  }
  template_observation observe(region_actor a) {
    template_observe_request req;
    req.import_storages = {"local"};
    req.template_names = {"ubuntu-test"};
    auto out = std::make_shared<template_observation>();
    caf::scoped_actor self{*sys_};
    self->request(a, 60s, template_atom::value, req)
        .receive([&](template_observation& o) { *out = std::move(o); },
                 [&](caf::error& e) { ADD_FAILURE() << sys_->render(e); });
    return *out;
  }
  const template_vm* find(const template_observation& o, std::uint32_t vmid) {
    for (const auto& vm : o.vms) {
      if (vm.vmid == vmid) return &vm;
    }
    return nullptr;
  }
};

TEST_F(RegionTemplateSim, TemplateStepsRunThroughTheRegionWithItsVmidsAndChecks) {
  auto a = spawn();
  auto seen = observe(a);
  ASSERT_TRUE(seen.ok) << seen.error;
  EXPECT_EQ(seen.hosts.size(), 3u);
  EXPECT_TRUE(seen.vms.empty()) << "k8s-template carries no mark of ours";

  template_download_request download;
  download.download.node = "pve1";
  download.download.storage = "local";
  download.download.filename = "ubuntu-test-1.qcow2";
  download.download.url = "https://images.example.com/ubuntu.qcow2";
  auto d = ask<template_step_reply>(a, template_atom::value, download);
  ASSERT_TRUE(d.ok) << d.error.message;
  seen = observe(a);
  bool imported = false;
  for (const auto& h : seen.hosts) {
    for (const auto& v : h.import_volids) imported |= v == "local:import/ubuntu-test-1.qcow2";
  }
  EXPECT_TRUE(imported);

  // A node launch and the template's creation at once: one allocator, two VMIDs.
  template_create_request create;
  create.host = "pve1";
  create.template_name = "ubuntu-test";
  create.config = {{"name", "ubuntu-test"},
                   {"description", mark("ubuntu-test")},
                   {"memory", "1024"},
                   {"scsi0", "local-lvm:0,import-from=local:import/ubuntu-test-1.qcow2"}};
  caf::scoped_actor self{*sys_};
  auto launch_handle =
      self->request(a, 120s, launch_atom::value, request("beside-template", false));
  auto created = ask<template_step_reply>(a, template_atom::value, create);
  launch_reply launched;
  launch_handle.receive([&](launch_reply& r) { launched = r; },
                        [&](caf::error& e) { FAIL() << sys_->render(e); });
  ASSERT_TRUE(created.ok) << created.error.message;
  ASSERT_TRUE(launched.ok) << launched.error.message;
  EXPECT_GE(created.vmid, 20000u) << "from the region's allocator (PROXMOX_VMID up)";
  EXPECT_NE(created.vmid, launched.vmid);

  auto converted = ask<template_step_reply>(
      a, template_atom::value, template_convert_request{"pve1", created.vmid, "ubuntu-test"});
  ASSERT_TRUE(converted.ok) << converted.error.message;
  seen = observe(a);
  const auto* t = find(seen, created.vmid);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->is_template);

  template_clone_request clone;
  clone.host = "pve1";
  clone.source_vmid = created.vmid;
  clone.template_name = "ubuntu-test";
  clone.name = "ubuntu-test";
  clone.description = mark("ubuntu-test");
  clone.full = false;
  auto cloned = ask<template_step_reply>(a, template_atom::value, clone);
  ASSERT_TRUE(cloned.ok) << cloned.error.message;
  EXPECT_NE(cloned.vmid, created.vmid);
  EXPECT_NE(cloned.vmid, launched.vmid);

  template_retire_request retire;
  retire.host = "pve1";
  retire.vmid = created.vmid;
  retire.template_name = "ubuntu-test";
  retire.config = {{"name", "ubuntu-test-retired"}, {"description", mark("ubuntu-test", true)}};
  auto retired = ask<template_step_reply>(a, template_atom::value, retire);
  ASSERT_TRUE(retired.ok) << retired.error.message;
  seen = observe(a);
  t = find(seen, created.vmid);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->linked_clones_known);
  EXPECT_EQ(t->linked_clones, 1u) << "the clone sits on the retired template's base volume";

  auto clone_gone = ask<template_step_reply>(
      a, template_atom::value, template_delete_request{"pve1", cloned.vmid, "ubuntu-test"});
  EXPECT_TRUE(clone_gone.ok) << clone_gone.error.message;
  auto template_gone = ask<template_step_reply>(
      a, template_atom::value, template_delete_request{"pve1", created.vmid, "ubuntu-test"});
  EXPECT_TRUE(template_gone.ok) << template_gone.error.message;
  for (const auto& vm : vms()) {
    EXPECT_NE(vm.vmid, created.vmid);
    EXPECT_NE(vm.vmid, cloned.vmid);
  }
}

TEST_F(RegionTemplateSim, AStepOnATemplateVmThatIsNotOursIsRefusedAndChangesNothing) {
  auto a = spawn_counted();
  auto before = config_of("pve1", 9001);
  auto writes_before = writes(stats());
  auto convert = ask<template_step_reply>(a, template_atom::value,
                                          template_convert_request{"pve1", 9001, "k8s-template"});
  EXPECT_EQ(convert.error.code, "foreign_vm");
  template_retire_request retire;
  retire.host = "pve1";
  retire.vmid = 9001;
  retire.template_name = "k8s-template";
  retire.config = {{"name", "gone"}};
  EXPECT_EQ(ask<template_step_reply>(a, template_atom::value, retire).error.code, "foreign_vm");
  auto destroy = ask<template_step_reply>(a, template_atom::value,
                                          template_delete_request{"pve1", 9001, "k8s-template"});
  EXPECT_EQ(destroy.error.code, "foreign_vm");
  template_create_request unmarked;
  unmarked.host = "pve1";
  unmarked.template_name = "ubuntu-test";
  unmarked.config = {{"name", "ubuntu-test"}, {"memory", "1024"}};
  EXPECT_EQ(ask<template_step_reply>(a, template_atom::value, unmarked).error.code,
            "invalid_request");
  EXPECT_EQ(writes(stats()), writes_before);
  EXPECT_EQ(config_of("pve1", 9001).digest, before.digest);
  EXPECT_EQ(refusals("template_convert"), 1);
  EXPECT_EQ(refusals("template_retire"), 1);
  EXPECT_EQ(refusals("template_delete"), 1);
}

TEST_F(RegionTemplateSim, AForeignVmWithTheVmidOfOurVanishedVmIsNeverTouched) {
  auto a = spawn_counted();
  auto ours = launch(a, request("vanishing"));
  ASSERT_TRUE(ours.ok) << ours.error.message;
  // Out of band: our VM is stopped and destroyed, and somebody makes a VM with its VMID.
  auto stop =
      await<proxmox::upid>([&](auto cb) { clients_.front()->stop_vm(ours.zone, ours.vmid, cb); });
  ASSERT_TRUE(stop.ok());
  proxmox::task_wait_options w;
  w.initial_interval = 20ms;
  ASSERT_TRUE(await<proxmox::task_status>([&](auto cb) {
                clients_.front()->wait_task(*stop, w, cb);
              }).ok());
  auto destroy = await<proxmox::upid>(
      [&](auto cb) { clients_.front()->delete_vm(ours.zone, ours.vmid, true, cb); });
  ASSERT_TRUE(destroy.ok());
  ASSERT_TRUE(await<proxmox::task_status>([&](auto cb) {
                clients_.front()->wait_task(*destroy, w, cb);
              }).ok());
  clone_directly(ours.vmid, "precious-db", "the production database");
  auto before = config_of("pve1", ours.vmid);
  auto writes_before = writes(stats());

  auto d = remove(a, {ours.vmid, "vanishing"});
  EXPECT_EQ(d.error.code, "foreign_vm") << d.error.message;
  sync_vm_request sync;
  sync.vmid = ours.vmid;
  sync.nodeclaim = "vanishing";
  sync.tags = {"team-b"};
  EXPECT_EQ(ask<sync_vm_reply>(a, sync_vm_atom::value, sync).error.code, "foreign_vm");
  auto listing_now = listing(a);
  for (const auto& vm : listing_now.vms) EXPECT_NE(vm.vmid, ours.vmid) << "listed as ours";
  EXPECT_EQ(writes(stats()), writes_before) << "the foreign VM got a write";
  EXPECT_EQ(config_of("pve1", ours.vmid).digest, before.digest);
  EXPECT_EQ(refusals("delete"), 1);
  EXPECT_EQ(refusals("sync"), 1);
}

}  // namespace
}  // namespace kp::actors::region
