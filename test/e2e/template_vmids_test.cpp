// A ProxmoxTemplate built while a burst of launches runs: the template builder and the launches
// take their VMIDs from the region's one allocator, so no VMID is ever seen on two VMs (a template
// VM and a node VM, or two node VMs), every NodeClaim names its own VMID, and every VM ends with a
// distinct VMID: three template VMs and one node VM per NodeClaim.
#include <chrono>
#include <map>
#include <set>
#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

constexpr const char* template_name = "e2e-image";

std::string template_yaml() {
  return std::string(R"(apiVersion: karpenter.proxmox.sinextra.dev/v1alpha1
kind: ProxmoxTemplate
metadata: {name: )") +
         template_name + R"(}
spec:
  sourceImage: {url: "https://images.example.com/e2e-image.img", imageName: e2e-image.img}
  storageIDs: [local-lvm, local]
  network: [{bridge: vmbr0}]
)";
}

class template_vmids : public e2e_test {
 protected:
  // Every name each VMID was seen with (a VM still being cloned has none yet).
  std::map<int, std::set<std::string>> names_by_vmid;

  void record(const cluster_view& v) {
    for (const auto& vm : v.vms) {
      if (!vm.name.empty()) names_by_vmid[vm.vmid].insert(vm.name);
    }
  }
  static std::size_t template_vms(const cluster_view& v) {
    std::size_t n = 0;
    for (const auto& vm : v.vms) n += vm.name == template_name && vm.templated ? 1 : 0;
    return n;
  }
};

TEST_F(template_vmids, aTemplateBuiltDuringABurstOfLaunchesNeverSharesAVmidWithThem) {
  KP_E2E_START();
  start_controller();
  apply(template_yaml());
  scale("small", 8, "250m", "512Mi");
  scale("medium", 4, "1", "2Gi");

  // Watch the whole run: whether the template was being built while launches were under way.
  bool built_during_launches = false;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        record(v);
        bool building = false;
        for (const auto& vm : v.vms) building = building || vm.name == template_name;
        if (building && v.running() < 12) built_during_launches = true;
        return v.pods.size() == 12 && v.running() == 12 && template_vms(v) == 3;
      },
      90s))
      << diagnose();
  auto v = view();
  record(v);

  for (const auto& [vmid, names] : names_by_vmid) {
    EXPECT_EQ(names.size(), 1u) << "VMID " << vmid << " was seen on " << names.size()
                                << " VMs: " << *names.begin() << ", " << *names.rbegin()
                                << diagnose();
  }
  EXPECT_TRUE(built_during_launches)
      << "the template was not built while launches ran; the test proves nothing" << diagnose();

  std::set<int> vmids;
  std::set<int> template_ids;
  for (const auto& vm : v.vms) {
    EXPECT_TRUE(vmids.insert(vm.vmid).second) << "VMID " << vm.vmid << " listed twice";
    if (vm.name == template_name) template_ids.insert(vm.vmid);
  }
  EXPECT_EQ(template_ids.size(), 3u) << diagnose();
  std::set<std::string> provider_ids;
  for (const auto& [name, claim] : v.nodeclaims) {
    ASSERT_FALSE(claim.provider_id.empty()) << name << diagnose();
    EXPECT_TRUE(provider_ids.insert(claim.provider_id).second)
        << claim.provider_id << " is named by two NodeClaims" << diagnose();
    for (int id : template_ids) {
      EXPECT_NE(claim.provider_id, "proxmox://pve-sim/" + std::to_string(id))
          << name << " names a template VM's VMID" << diagnose();
    }
  }
  EXPECT_EQ(v.vms.size(), v.nodeclaims.size() + 3) << diagnose();
  // Apart from the template VMs, every VM is a NodeClaim's: no orphan, no duplicate.
  auto nodes_only = v;
  std::erase_if(nodes_only.vms, [](const auto& vm) { return vm.name == template_name; });
  EXPECT_EQ(leaks(nodes_only), "");
}

}  // namespace
}  // namespace kp::e2e
