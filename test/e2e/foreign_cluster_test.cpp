// Another cluster's VMs in the same Proxmox are never touched: VMs marked for another cluster, a
// hand-made VM and a Go provider VM live beside ours; the garbage collector removes an orphan of
// this cluster (so it has run past its grace period) and leaves the others as they were.
#include <boost/json.hpp>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

std::string form_escape(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

class foreign_cluster : public e2e_test {
 protected:
  void create_vm(const std::string& node, int vmid, const std::string& name,
                 const std::string& description, bool start) {
    auto r =
        world->pve_api("POST", "/nodes/" + node + "/qemu", "/nodes/{node}/qemu",
                       "vmid=" + std::to_string(vmid) + "&name=" + name + "&memory=2048&cores=2" +
                           "&description=" + form_escape(description));
    ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->body : r.error().message);
    wait_task(node, std::string(r->json().at("data").as_string()));
    if (!start) return;
    auto s =
        world->pve_api("POST", "/nodes/" + node + "/qemu/" + std::to_string(vmid) + "/status/start",
                       "/nodes/{node}/qemu/{vmid}/status/start");
    ASSERT_TRUE(s.ok() && s->ok()) << (s.ok() ? s->body : s.error().message);
    wait_task(node, std::string(s->json().at("data").as_string()));
  }
  // Waits for a Proxmox task to end successfully (the create task holds the VM's lock).
  void wait_task(const std::string& node, const std::string& upid) {
    std::string exit_status;
    ASSERT_TRUE(lab::lab_world::eventually(
        [&] {
          auto t =
              world->pve_api("GET", "/nodes/" + node + "/tasks/" + form_escape(upid) + "/status",
                             "/nodes/{node}/tasks/{upid}/status");
          if (!t.ok() || !t->ok()) return false;
          auto body = t->json();
          const auto& data = body.at("data").as_object();
          if (data.at("status").as_string() != "stopped") return false;
          exit_status = std::string(data.at("exitstatus").as_string());
          return true;
        },
        10s));
    ASSERT_EQ(exit_status, "OK") << upid;
  }
  std::string config_digest(const std::string& node, int vmid) {
    auto r = world->pve_api("GET", "/nodes/" + node + "/qemu/" + std::to_string(vmid) + "/config",
                            "/nodes/{node}/qemu/{vmid}/config");
    if (!r.ok() || !r->ok()) return "gone";
    return std::string(r->json().at("data").at("digest").as_string());
  }
};

TEST_F(foreign_cluster, anotherClustersVmsInTheSameProxmoxAreNeverTouched) {
  auto options = e2e_options();
  options.controller_settings["orphan-vm-grace-period"] = "2s";
  options.controller_settings["garbage-collection-interval"] = "1s";
  KP_E2E_START(options);
  ASSERT_NO_FATAL_FAILURE(create_vm(
      "pve1", 500, "default-other1",
      "karpenter-proxmox: cluster=other, nodeclaim=default-other1, nodepool=default", true));
  ASSERT_NO_FATAL_FAILURE(create_vm(
      "pve2", 501, "default-other2",
      "karpenter-proxmox: cluster=other, nodeclaim=default-other2, nodepool=default", false));
  ASSERT_NO_FATAL_FAILURE(create_vm("pve3", 502, "hand-made", "a VM somebody made by hand", true));
  ASSERT_NO_FATAL_FAILURE(
      create_vm("pve2", 504, "default-go1", "Karpenter managed instance, class=default", false));
  ASSERT_NO_FATAL_FAILURE(create_vm(
      "pve1", 503, "default-orphan",
      "karpenter-proxmox: cluster=lab, nodeclaim=default-orphan, nodepool=default", false));
  std::map<int, std::pair<std::string, std::string>> foreign{
      {500, {"pve1", config_digest("pve1", 500)}},
      {501, {"pve2", config_digest("pve2", 501)}},
      {502, {"pve3", config_digest("pve3", 502)}},
      {504, {"pve2", config_digest("pve2", 504)}}};
  start_controller();
  scale("web", 4, "500m", "1Gi");
  ASSERT_TRUE(wait_for([](const cluster_view& v) { return v.running() == 4; }, 45s)) << diagnose();
  // Our orphan goes once older than the grace period: the collector has looked at every VM.
  ASSERT_TRUE(wait_for(
      [](const cluster_view& v) {
        for (const auto& vm : v.vms)
          if (vm.vmid == 503) return false;
        return true;
      },
      20s))
      << "this cluster's orphan VM 503 was not collected" << diagnose();
  for (const auto& [vmid, where] : foreign)
    EXPECT_EQ(config_digest(where.first, vmid), where.second)
        << "VM " << vmid << " was changed or deleted";
  for (const auto& [name, claim] : view().nodeclaims)
    EXPECT_TRUE(name.find("other") == std::string::npos && name != "hand-made")
        << name << " adopted";
}

}  // namespace
}  // namespace kp::e2e
