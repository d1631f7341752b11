// The node class status actor on CAF's test coordinator: which snapshots make it evaluate the
// node classes again (each pass asks every region for its inventory and renders every class's
// templates).
#include <gtest/gtest.h>

#include <memory>

#include "actors/nodeclass_status/nodeclass_conditions.hpp"
#include "actors/nodeclass_status/nodeclass_status.hpp"
#include "actors/status_conditions.hpp"
#include "core/model/drift_hash.hpp"
#include "protocol/kube/drift_hash.hpp"
#include "test/actors/caf_test_fixture.hpp"
#include "test/actors/fake_region.hpp"

namespace kp::actors::nodeclass_status {
namespace {

using namespace protocol;

template <class T>
shared_objects<T> one(T object) {
  auto m = std::make_shared<object_map<T>>();
  auto key = object_key_of(object);
  (*m)[key] = std::make_shared<const T>(std::move(object));
  return m;
}

kube::proxmox_unmanaged_template unmanaged_template() {
  kube::proxmox_unmanaged_template t;
  t.metadata.name = "k8s";
  t.spec.template_name = "k8s-template";
  return t;
}

// The region's inventory: its one host holds `template_name`.
region_inventory inventory(const std::string& template_name) {
  region_inventory inv;
  inv.region = "r1";
  inv.refreshed = true;
  inv.hosts_online = {"pve1"};
  inv.templates["pve1"] = {template_name};
  return inv;
}

// A region that counts the inventory requests, one per evaluation pass.
region_actor::behavior_type counting_region(region_actor::pointer, std::shared_ptr<int> asked,
                                            std::shared_ptr<std::string> template_name) {
  return test::fake_region_behavior(
      [](launch_atom, const launch_request&) { return launch_reply{}; },
      [](vm_delete_atom, const delete_request&) { return delete_reply{}; },
      [](list_owned_atom) { return owned_vm_listing{}; },
      [asked, template_name](inventory_atom) {
        ++*asked;
        return inventory(*template_name);
      });
}

class NodeClassStatusActor : public test::caf_test {
 protected:
  std::shared_ptr<int> inventories_asked = std::make_shared<int>(0);
  // What the region's host holds; the node classes reference "k8s-template".
  std::shared_ptr<std::string> template_on_host = std::make_shared<std::string>("k8s-template");
  controller_context ctx;
  nodeclass_status_actor status;

  void SetUp() override {
    ctx.regions["r1"] = keep(sys().spawn(counting_region, inventories_asked, template_on_host));
    ctx.settings.system_namespace = "kube-system";
    status = keep(spawn_nodeclass_status(sys(), ctx));
    sched().run();
  }

  // A node class whose status and hash annotations already say what an evaluation finds, so a
  // pass writes nothing (no Kubernetes client here).
  kube::proxmox_node_class settled_node_class(const cluster_snapshot& s) {
    kube::proxmox_node_class nc;
    nc.metadata.name = "default";
    nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", "k8s"};
    nc.spec.metadata.type = "cdrom";
    nc.metadata.annotations[std::string(model::annotations::nodeclass_hash)] =
        kube::nodeclass_hash(nc);
    nc.metadata.annotations[std::string(model::annotations::nodeclass_hash_version)] =
        std::string(model::drift_hash_versions::nodeclass);
    auto v = evaluate_node_class(nc, s, {inventory(*template_on_host)}, {},
                                 nodeclaim::template_secret_scope_of(ctx.settings));
    for (const auto* c : {&v.template_ready, &v.metadata_ready, &v.ready})
      set_condition(nc.status.conditions, c->type, c->status, c->reason, c->message,
                    "2025-01-01T00:00:00Z", nc.metadata.generation);
    return nc;
  }

  snapshot_ptr first_snapshot() {
    auto s = std::make_shared<cluster_snapshot>();
    s->synced = true;
    s->generation = 1;
    s->unmanaged_templates = one(unmanaged_template());
    s->node_classes = one(settled_node_class(*s));
    return s;
  }

  // The next snapshot of cluster_state: `previous`'s collections, shared, and whatever changed.
  static std::shared_ptr<cluster_snapshot> next(const cluster_snapshot& previous) {
    auto s = std::make_shared<cluster_snapshot>(previous);
    ++s->generation;
    return s;
  }

  // The next snapshot with a Node and a NodeClaim more, as a burst publishes them.
  static std::shared_ptr<cluster_snapshot> with_a_new_node(const cluster_snapshot& previous) {
    auto s = next(previous);
    kube::node node;
    node.metadata.name = "worker-1";
    s->nodes = one(node);
    kube::node_claim claim;
    claim.metadata.name = "default-abcde";
    s->node_claims = one(claim);
    return s;
  }

  // Inventory requests (one per pass) once the actor handled `snapshot`.
  int passes_after(snapshot_ptr snapshot) {
    caf::anon_send(status, std::move(snapshot));
    sched().run();
    return *inventories_asked;
  }
};

TEST_F(NodeClassStatusActor, ASnapshotThatChangedOnlyNodesAndNodeClaimsIsNotEvaluatedAgain) {
  auto first = first_snapshot();
  ASSERT_EQ(passes_after(first), 1);

  auto nodes_changed = with_a_new_node(*first);
  EXPECT_EQ(passes_after(nodes_changed), 1);

  auto class_changed = next(*nodes_changed);
  class_changed->node_classes = one(settled_node_class(*class_changed));
  EXPECT_EQ(passes_after(class_changed), 2);

  auto template_changed = next(*class_changed);
  template_changed->unmanaged_templates = one(unmanaged_template());
  EXPECT_EQ(passes_after(template_changed), 3);
}

TEST_F(NodeClassStatusActor, WhileANodeClassIsNotReadyEverySnapshotEvaluatesAgain) {
  *template_on_host = "another-template";  // the class's template is nowhere: not Ready
  auto first = first_snapshot();
  ASSERT_EQ(passes_after(first), 1);
  EXPECT_EQ(passes_after(with_a_new_node(*first)), 2);
}

TEST_F(NodeClassStatusActor, TheTimerEvaluatesAgainWithoutANewSnapshot) {
  ASSERT_EQ(passes_after(first_snapshot()), 1);
  advance(ctx.settings.proxmox_inventory_interval);
  EXPECT_EQ(*inventories_asked, 2);
}

}  // namespace
}  // namespace kp::actors::nodeclass_status
