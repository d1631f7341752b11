// A node class with pciDevices from pve-sim's `gpu` mapping (one device on pve2, two on pve3):
// pods requesting nvidia.com/gpu get VMs only where a device is free, each VM holds its device
// through `hostpciN: mapping=gpu` written in the launch's one config write, the NodeClaim lists
// the resource, and the Node (whose simulated device plugin advertises it) becomes Initialized.
// Three devices hold three such pods; a fourth waits until a VM is deleted and frees one.
#include <boost/json.hpp>

#include <map>
#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

class pci_devices : public e2e_test {
 protected:
  void apply_gpu_class() {
    apply(lab::node_class_yaml("  pciDevices: [{mapping: gpu, resourceName: nvidia.com/gpu}]\n"));
  }

  void gpu_pods(int replicas) {
    scale("cuda", replicas,
          {.cpu = "250m", .memory = "256Mi", .extended = {{"nvidia.com/gpu", "1"}}});
  }

  boost::json::value get(const std::string& path) {
    auto r = world->kube().call("GET", path);
    EXPECT_TRUE(r.ok() && r->ok()) << path;
    return r.ok() ? r->json() : boost::json::value{};
  }

  // The hostpciN values of a VM's config.
  std::map<std::string, std::string> hostpci_of(const lab::vm_entry& vm) {
    std::map<std::string, std::string> out;
    auto config = pve_vm_config(vm.node, vm.vmid);
    if (!config.ok()) return out;
    for (const auto& [key, value] : *config)
      if (key.starts_with("hostpci") && value.is_string())
        out[std::string(key)] = std::string(value.as_string());
    return out;
  }
};

TEST_F(pci_devices, aPodRequestingAGpuLandsOnAHostWithAFreeMappedDeviceAndItsNodeInitializes) {
  KP_E2E_START();
  apply_gpu_class();
  start_controller();
  gpu_pods(1);
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 1 && v.vms.size() == 1; }, 90s))
      << diagnose();
  const auto vm = view().vms.at(0);
  EXPECT_TRUE(vm.node == "pve2" || vm.node == "pve3") << vm.node << " has no gpu device";
  EXPECT_EQ(hostpci_of(vm), (std::map<std::string, std::string>{{"hostpci0", "mapping=gpu"}}));
  EXPECT_EQ(pve_requests("POST /nodes/{node}/qemu/{vmid}/config"), 1)
      << "the device rides in the launch's one config write";

  auto claim = get("/apis/karpenter.sh/v1/nodeclaims/" + vm.name);
  const auto& status = claim.at("status").as_object();
  EXPECT_EQ(status.at("capacity").at("nvidia.com/gpu").as_string(), "1");
  EXPECT_EQ(status.at("allocatable").at("nvidia.com/gpu").as_string(), "1");
  EXPECT_EQ(claim.at("spec").at("resources").at("requests").at("nvidia.com/gpu").as_string(), "1");
  bool zones_limited = false;
  for (const auto& r : claim.at("spec").at("requirements").as_array())
    if (r.at("key").as_string() == "topology.kubernetes.io/zone") {
      zones_limited = true;
      for (const auto& z : r.at("values").as_array())
        EXPECT_TRUE(z.as_string() == "pve2" || z.as_string() == "pve3")
            << "offered on " << z.as_string() << ", which has no gpu device";
    }
  EXPECT_TRUE(zones_limited) << boost::json::serialize(claim);
  ASSERT_TRUE(wait_for(
      [&](const cluster_view&) {
        auto c = get("/apis/karpenter.sh/v1/nodeclaims/" + vm.name);
        for (const auto& cond : c.at("status").at("conditions").as_array())
          if (cond.at("type").as_string() == "Initialized")
            return cond.at("status").as_string() == "True";
        return false;
      },
      30s))
      << diagnose();
  EXPECT_EQ(settled_leaks(), "");
}

TEST_F(pci_devices, threeDevicesHoldThreeGpuPodsAndADeletedVmFreesItsDeviceForTheFourth) {
  KP_E2E_START();
  apply_gpu_class();
  start_controller();
  gpu_pods(4);
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 3 && v.vms.size() == 3; }, 120s))
      << diagnose();
  auto hosts_of = [](const cluster_view& v) {
    std::map<std::string, int> out;
    for (const auto& vm : v.vms) ++out[vm.node];
    return out;
  };
  auto v = view();
  EXPECT_EQ(hosts_of(v), (std::map<std::string, int>{{"pve2", 1}, {"pve3", 2}}))
      << "two VMs were given one device" << v.text();
  // The fourth finds no free device: it stays pending, and no fourth VM appears.
  EXPECT_FALSE(lab::lab_world::eventually(
      [&] {
        auto now = view();
        return now.running() > 3 || now.vms.size() > 3;
      },
      5s))
      << diagnose();

  // Deleting one VM's NodeClaim deletes the VM; its device goes to the waiting pod.
  const auto freed = v.vms.front();
  ASSERT_TRUE(world->remove("karpenter.sh/v1", "NodeClaim", freed.name).ok());
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& now) {
        for (const auto& vm : now.vms)
          if (vm.vmid == freed.vmid) return false;
        return now.running() == 3 && now.vms.size() == 3;
      },
      120s))
      << diagnose();
  EXPECT_EQ(hosts_of(view()), (std::map<std::string, int>{{"pve2", 1}, {"pve3", 2}}));
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
