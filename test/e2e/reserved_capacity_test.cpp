// Reserved capacity from INSTANCE_TYPES_FILE: with one reserved VM of r1.2VCPU-4GB, the first
// NodeClaim takes the reservation (capacity type reserved, the reservation id) and the second
// is on-demand c1.2VCPU-4GB; once the reserved NodeClaim is deleted and gone, the slot serves a
// new NodeClaim.
#include <boost/json.hpp>

#include <fstream>
#include <string>

#include "test/e2e/e2e_support.hpp"

namespace kp::e2e {
namespace {

namespace json = boost::json;

constexpr const char* instance_types = R"([
  {"name": "c1.2VCPU-4GB", "capacity": {"cpu": "2", "memory": "4Gi"}},
  {"name": "r1.2VCPU-4GB", "capacity": {"cpu": "2", "memory": "4Gi"},
   "capacitytype": "reserved", "reservations": [{"id": "lab-slot", "count": 1}]}
])";

// Pods that each need a node of their own.
const pod_shape own_node{.cpu = "500m", .memory = "512Mi", .own_node = true};

std::string label_of(const json::value& claim, const char* key) {
  const auto* labels = claim.as_object().at("metadata").as_object().if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return "";
  const auto* v = labels->as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

struct claim_labels {
  std::string name, instance_type, capacity_type, reservation;
  bool deleting = false;
};

class reserved_capacity : public e2e_test {
 protected:
  std::vector<claim_labels> claims() {
    std::vector<claim_labels> out;
    auto list = world->list("/apis/karpenter.sh/v1/nodeclaims");
    if (!list) return out;
    for (const auto& c : *list) {
      const auto& md = c.as_object().at("metadata").as_object();
      out.push_back({std::string(md.at("name").as_string()),
                     label_of(c, "node.kubernetes.io/instance-type"),
                     label_of(c, "karpenter.sh/capacity-type"),
                     label_of(c, "karpenter.proxmox.sinextra.dev/reservation-id"),
                     md.contains("deletionTimestamp")});
    }
    return out;
  }
};

TEST_F(reserved_capacity, oneSlotServesTheFirstNodeClaimTheSecondIsOnDemandAndDeletingFreesIt) {
  KP_E2E_START();
  const std::string file = world->work_dir() + "/instance-types.json";
  std::ofstream(file) << instance_types;
  start_controller({{"instance-types-file", file}});
  scale("res", 2, own_node);

  std::vector<claim_labels> seen;
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        seen = claims();
        return v.running() == 2 && seen.size() == 2 && !seen[0].capacity_type.empty() &&
               !seen[1].capacity_type.empty();
      },
      90s))
      << diagnose();
  const claim_labels* reserved = nullptr;
  const claim_labels* on_demand = nullptr;
  for (const auto& c : seen) (c.capacity_type == "reserved" ? reserved : on_demand) = &c;
  ASSERT_NE(reserved, nullptr) << diagnose();
  ASSERT_NE(on_demand, nullptr) << diagnose();
  EXPECT_EQ(reserved->instance_type, "r1.2VCPU-4GB");
  EXPECT_EQ(reserved->reservation, "lab-slot");
  EXPECT_EQ(on_demand->instance_type, "c1.2VCPU-4GB");
  EXPECT_EQ(on_demand->capacity_type, "on-demand");
  EXPECT_EQ(on_demand->reservation, "");
  const std::string first = reserved->name;

  // Deleting the reserved NodeClaim releases the slot once it is gone; a third pod (and the
  // first pod's replacement) need nodes, and exactly one of the new NodeClaims takes the slot.
  ASSERT_TRUE(world->remove("karpenter.sh/v1", "NodeClaim", first).ok());
  ASSERT_TRUE(wait_for(
      [&](const cluster_view&) {
        for (const auto& c : claims())
          if (c.name == first) return false;
        return true;
      },
      90s))
      << diagnose();
  scale("res", 3, own_node);
  ASSERT_TRUE(wait_for(
      [&](const cluster_view& v) {
        seen = claims();
        if (v.running() != 3 || seen.size() != 3) return false;
        for (const auto& c : seen)
          if (c.capacity_type.empty()) return false;
        return true;
      },
      120s))
      << diagnose();
  int holding = 0;
  for (const auto& c : seen) {
    EXPECT_NE(c.name, first);
    if (c.capacity_type == "reserved") {
      ++holding;
      EXPECT_EQ(c.reservation, "lab-slot");
      EXPECT_EQ(c.instance_type, "r1.2VCPU-4GB");
    } else {
      EXPECT_EQ(c.instance_type, "c1.2VCPU-4GB") << c.name;
    }
  }
  EXPECT_EQ(holding, 1) << diagnose();
  EXPECT_EQ(settled_leaks(), "");
}

}  // namespace
}  // namespace kp::e2e
