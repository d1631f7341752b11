// A NodePool that allows the right-sized family f1: a pod of 3 CPUs and 5Gi gets a NodeClaim of
// an f1 type sized to it (with the overheads), and the VM in Proxmox (pve-sim) has that size.
#include <boost/json.hpp>

#include <charconv>
#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

constexpr const char* right_sized_pool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: rightsized}
spec:
  weight: 50
  template:
    spec:
      nodeClassRef: {group: karpenter.proxmox.sinextra.dev, kind: ProxmoxNodeClass, name: default}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: karpenter.proxmox.sinextra.dev/instance-family, operator: In, values: [f1]}
  disruption:
    consolidateAfter: Never
)";

std::string text_at(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* cur = &v;
  for (const char* key : path) {
    if (!cur->is_object()) return "";
    cur = cur->as_object().if_contains(key);
    if (cur == nullptr) return "";
  }
  return cur->is_string() ? std::string(cur->as_string()) : "";
}

std::int64_t number_in(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return -1;
  if (v->is_int64()) return v->as_int64();
  if (v->is_string()) {
    std::string_view s = v->as_string();
    std::int64_t n = -1;
    std::from_chars(s.data(), s.data() + s.size(), n);
    return n;
  }
  return -1;
}

// "5632Mi", "5767168Ki" or plain bytes, in MiB (the forms the controller and kube-sim write).
double quantity_mib(const std::string& q) {
  double n = 0;
  auto [end, ec] = std::from_chars(q.data(), q.data() + q.size(), n);
  if (ec != std::errc{}) return -1;
  std::string_view unit(end, static_cast<std::size_t>(q.data() + q.size() - end));
  if (unit == "Ki") return n / 1024;
  if (unit == "Mi") return n;
  if (unit == "Gi") return n * 1024;
  if (unit.empty()) return n / (1024 * 1024);
  return -1;
}

class right_sized : public e2e_test {};

TEST_F(right_sized, aPodOfThreeCpusAndFiveGiGetsAnF1NodeClaimOfAtMostFourVcpusAndSevenAndAHalfGi) {
  KP_E2E_START();
  apply(right_sized_pool);
  start_controller();
  scale("sized", 1, "3", "5Gi");
  ASSERT_TRUE(
      wait_for([](const cluster_view& v) { return v.running() == 1 && v.vms.size() == 1; }, 90s))
      << diagnose();

  auto claims = world->list("/apis/karpenter.sh/v1/nodeclaims");
  ASSERT_TRUE(claims.ok()) << claims.error().message;
  ASSERT_EQ(claims->size(), 1u) << view().text();
  const auto& claim = claims->at(0);
  const std::string type =
      text_at(claim, {"metadata", "labels", "node.kubernetes.io/instance-type"});
  ASSERT_EQ(type.rfind("f1.", 0), 0u) << "instance type " << type << diagnose();
  // f1.<vcpu>VCPU-<MiB>MB
  int vcpus = 0, mib = 0;
  auto v_end = type.find("VCPU-");
  ASSERT_NE(v_end, std::string::npos) << type;
  std::from_chars(type.data() + 3, type.data() + v_end, vcpus);
  std::from_chars(type.data() + v_end + 5, type.data() + type.size() - 2, mib);
  EXPECT_GE(vcpus, 3);
  EXPECT_LE(vcpus, 4) << type;
  EXPECT_GE(mib, 5 * 1024);
  EXPECT_LE(mib, 7680) << type;
  EXPECT_EQ(mib % 256, 0) << type;
  EXPECT_EQ(
      text_at(claim, {"metadata", "labels", "karpenter.proxmox.sinextra.dev/instance-family"}),
      "f1");
  // The NodeClaim's capacity is the type's: its vCPUs and at most 7.5Gi.
  EXPECT_EQ(text_at(claim, {"status", "capacity", "cpu"}), std::to_string(vcpus));
  const double capacity_mib = quantity_mib(text_at(claim, {"status", "capacity", "memory"}));
  EXPECT_GT(capacity_mib, 5 * 1024.0);
  EXPECT_LE(capacity_mib, 7680.0);

  // The VM has that size.
  const auto vm = view().vms.at(0);
  auto config = pve_vm_config(vm.node, vm.vmid);
  ASSERT_TRUE(config.ok()) << config.error().message;
  const std::int64_t sockets = std::max<std::int64_t>(1, number_in(*config, "sockets"));
  EXPECT_EQ(sockets * number_in(*config, "cores"), vcpus) << boost::json::serialize(*config);
  EXPECT_EQ(number_in(*config, "memory"), mib) << boost::json::serialize(*config);
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
