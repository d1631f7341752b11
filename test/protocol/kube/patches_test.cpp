// Patch bodies: exact JSON shapes for labels, finalizers, cordon, taints, NodeClaim status and
// the conditions other status writers own.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/kube/patches.hpp"

namespace kp::kube {
namespace {

namespace bj = boost::json;

TEST(KubePatches, labelPatchesSetAndDeleteKeys) {
  EXPECT_EQ(bj::parse(labels_merge_patch({{"karpenter.sh/registered", "true"}}, {"old"})),
            bj::parse(R"({"metadata":{"labels":{"karpenter.sh/registered":"true","old":null}}})"));
  EXPECT_EQ(bj::parse(annotations_merge_patch({{"a", "b"}}, {}, "12")),
            bj::parse(R"({"metadata":{"annotations":{"a":"b"},"resourceVersion":"12"}})"));
}

TEST(KubePatches, finalizerPatchesReplaceTheListUnderAVersion) {
  EXPECT_EQ(
      bj::parse(finalizers_merge_patch({"karpenter.sh/termination"}, "7")),
      bj::parse(
          R"({"metadata":{"finalizers":["karpenter.sh/termination"],"resourceVersion":"7"}})"));
  EXPECT_EQ(bj::parse(finalizers_merge_patch({}, "8")),
            bj::parse(R"({"metadata":{"finalizers":[],"resourceVersion":"8"}})"));
}

TEST(KubePatches, cordonAndTaintPatches) {
  EXPECT_EQ(unschedulable_merge_patch(true), R"({"spec":{"unschedulable":true}})");
  EXPECT_EQ(bj::parse(taints_json_patch({{"karpenter.sh/disrupted", "", "NoSchedule", ""}}, "42")),
            bj::parse(R"([{"op":"test","path":"/metadata/resourceVersion","value":"42"},
                          {"op":"add","path":"/spec/taints","value":[{"key":"karpenter.sh/disrupted","effect":"NoSchedule"}]}])"));
}

TEST(KubePatches, nodeClaimStatusPatchCarriesOnlyTheStatus) {
  node_claim c;
  c.metadata.name = "x";
  c.spec.node_class_ref = {"g", "K", "n"};
  c.status.provider_id = "proxmox://r1/101";
  c.status.conditions.push_back(
      {"Launched", "True", "Launched", "", "2025-01-01T00:00:00Z", "", 0});
  EXPECT_EQ(
      bj::parse(node_claim_status_merge_patch(c)),
      bj::parse(
          R"({"status":{"providerID":"proxmox://r1/101","conditions":[{"type":"Launched","status":"True",
                          "reason":"Launched","message":"","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"));
}

TEST(KubePatches, aConditionsStatusPatchCarriesTheOtherFieldsThenEveryConditionInFull) {
  std::vector<condition> conditions{
      {"Ready", "False", "", "", "2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", 0},
      {"ValidationSucceeded", "True", "Valid", "ok", "2025-01-01T00:00:00Z", "", 3}};
  EXPECT_EQ(conditions_status_merge_patch(conditions, bj::object{{"nodes", 2}}),
            R"({"status":{"nodes":2,"conditions":[)"
            R"({"type":"Ready","status":"False","reason":"","message":"",)"
            R"("lastTransitionTime":"2025-01-01T00:00:00Z"},)"
            R"({"type":"ValidationSucceeded","status":"True","reason":"Valid","message":"ok",)"
            R"("lastTransitionTime":"2025-01-01T00:00:00Z","observedGeneration":3}]}})")
      << "the heartbeat is not written; observedGeneration only when set";
  EXPECT_EQ(conditions_status_merge_patch({}), R"({"status":{"conditions":[]}})");
}

}  // namespace
}  // namespace kp::kube
