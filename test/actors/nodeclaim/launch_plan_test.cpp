// The pure half of the NodeClaim lifecycle: resolving node class and template, the region, the
// cheapest compatible instance type, zones, labels, the rendered ISO (read back the way a
// simulated guest reads it), conditions, and the Node sync at registration and initialization.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/status_conditions.hpp"
#include "actors/nodeclaim/launch_plan.hpp"
#include "actors/nodeclaim/node_sync.hpp"
#include "core/cloudinit/nocloud_iso.hpp"
#include "core/cloudinit/vm_render.hpp"
#include "protocol/provider_id.hpp"
#include "protocol/region_messages.hpp"
#include "sim/pve/guest_join_plan.hpp"

namespace kp::actors::nodeclaim {
namespace {

using protocol::cluster_snapshot;

// Where the region put the VM (no NICs).
cloudinit::vm_placement at(const std::string& region, const std::string& zone, std::uint32_t vmid) {
  return {region, zone, vmid, protocol::format_provider_id(region, vmid), {}};
}

template <class T>
protocol::shared_objects<T> one(T object) {
  auto m = std::make_shared<protocol::object_map<T>>();
  auto key = protocol::object_key_of(object);
  (*m)[key] = std::make_shared<const T>(std::move(object));
  return m;
}

kube::node_claim claim(const std::string& node_class = "default") {
  kube::node_claim c;
  c.metadata.name = "default-x7k2p";
  c.metadata.uid = "uid-1";
  c.metadata.labels["karpenter.sh/nodepool"] = "default";
  c.spec.node_class_ref = {"karpenter.proxmox.sinextra.dev", "ProxmoxNodeClass", node_class};
  c.spec.requirements.push_back({"karpenter.sh/nodepool", "In", {"default"}, std::nullopt});
  c.spec.requirements.push_back({"kubernetes.io/arch", "In", {"amd64"}, std::nullopt});
  c.spec.resource_requests = {{"cpu", "500m"}, {"memory", "512Mi"}};
  return c;
}

cluster_snapshot world() {
  cluster_snapshot s;
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", "k8s"};
  nc.spec.metadata.type = "cdrom";
  nc.spec.excluded_zones = {"pve3"};
  s.node_classes = one(nc);
  kube::proxmox_unmanaged_template t;
  t.metadata.name = "k8s";
  t.spec.template_name = "k8s-template";
  s.unmanaged_templates = one(t);
  return s;
}

TEST(LaunchPlan, OnlyClaimsOfThisProvidersGroupAreOurs) {
  EXPECT_TRUE(is_ours(claim()));
  auto other = claim();
  other.spec.node_class_ref.group = "karpenter.k8s.aws";
  EXPECT_FALSE(is_ours(other));
}

TEST(LaunchPlan, TheNodeClassAndItsUnmanagedTemplateGiveTheTemplateName) {
  auto s = world();
  auto choice = resolve_template(s, claim());
  ASSERT_TRUE(choice.ok()) << choice.error().message;
  EXPECT_EQ(choice->template_name, "k8s-template");
  EXPECT_EQ(choice->node_class->metadata.name, "default");
}

TEST(LaunchPlan, TheImageIdIsTheManagedTemplatesStatusImageIdWhichImageDriftComparesWith) {
  auto s = world();
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.spec.instance_template_ref = {"ProxmoxTemplate", "noble"};
  s.node_classes = one(nc);
  kube::proxmox_template t;
  t.metadata.name = "noble";
  t.status.image_id = "noble-server-cloudimg-amd64-42.img";
  s.templates = one(t);
  auto managed = resolve_template(s, claim());
  ASSERT_TRUE(managed.ok()) << managed.error().message;
  EXPECT_EQ(managed->template_name, "noble");
  EXPECT_EQ(managed->image_id, "noble-server-cloudimg-amd64-42.img");

  auto unmanaged = resolve_template(world(), claim());
  ASSERT_TRUE(unmanaged.ok());
  EXPECT_EQ(unmanaged->image_id, "k8s-template");
}

TEST(LaunchPlan, AMissingNodeClassOrTemplateIsATypedErrorNamingIt) {
  auto s = world();
  auto missing = resolve_template(s, claim("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "node_class_missing");
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
  s.unmanaged_templates = nullptr;
  auto no_template = resolve_template(s, claim());
  ASSERT_FALSE(no_template.ok());
  EXPECT_EQ(no_template.error().code, "template_missing");
  EXPECT_NE(no_template.error().message.find("ProxmoxUnmanagedTemplate k8s"), std::string::npos);
}

TEST(LaunchPlan, TheRegionComesFromTheRequirementThenTheNodeClassThenTheFirstRegion) {
  template_choice any;
  EXPECT_EQ(*pick_region(claim(), any, {"r1", "r2"}), "r1");
  auto c = claim();
  c.spec.requirements.push_back({"topology.kubernetes.io/region", "In", {"r2"}, std::nullopt});
  EXPECT_EQ(*pick_region(c, any, {"r1", "r2"}), "r2");
  template_choice pinned;
  pinned.region = "r2";
  EXPECT_EQ(*pick_region(claim(), pinned, {"r1", "r2"}), "r2");
  pinned.region = "r9";
  EXPECT_EQ(pick_region(claim(), pinned, {"r1"}).error().code, "region_missing");
  EXPECT_EQ(pick_region(claim(), any, {}).error().code, "region_missing");
}

TEST(LaunchPlan, TheCheapestTypeThatMatchesAndHoldsTheRequestsWins) {
  auto types = instance_types::builtin_instance_types();
  auto t = cheapest_instance_type(types, claim(), "r1");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->vm_cpus, 1);
  auto pinned = claim();
  pinned.spec.requirements.push_back(
      {"node.kubernetes.io/instance-type", "In", {"t1.2VCPU-6GB"}, std::nullopt});
  EXPECT_EQ(cheapest_instance_type(types, pinned, "r1")->name, "t1.2VCPU-6GB");
  auto big = claim();
  big.spec.resource_requests["cpu"] = "3";
  EXPECT_GE(cheapest_instance_type(types, big, "r1")->vm_cpus, 4);
  auto huge = claim();
  huge.spec.resource_requests["cpu"] = "500";
  auto none = cheapest_instance_type(types, huge, "r1");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "no_capacity");
  auto arm = claim();
  arm.spec.requirements.push_back({"kubernetes.io/arch", "In", {"arm64"}, std::nullopt});
  EXPECT_EQ(cheapest_instance_type(types, arm, "r1").error().code, "no_capacity");
}

TEST(LaunchPlan, ARightSizedNameTheClaimListsIsBuiltWithTheMemoryOverheadAndWinsWhenCheaper) {
  auto types = instance_types::builtin_instance_types();
  auto c = claim();
  c.spec.resource_requests["cpu"] = "3";
  c.spec.resource_requests["memory"] = "5Gi";
  c.spec.requirements.push_back({"node.kubernetes.io/instance-type",
                                 "In",
                                 {"f1.4VCPU-6144MB", "c1.4VCPU-8GB"},
                                 std::nullopt});
  auto t = cheapest_instance_type(types, c, "r1", 0.075);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->name, "f1.4VCPU-6144MB");
  EXPECT_EQ(t->family, "f1");
  EXPECT_EQ(t->vm_cpus, 4);
  EXPECT_EQ(t->vm_memory_bytes, 6144LL * 1024 * 1024);
  EXPECT_LT(t->capacity.milli("memory"), 6144LL * 1024 * 1024 * 1000);
  // A size too small for the requests is never launched, even when it is the only f1 listed.
  c.spec.requirements.back().values = {"f1.3VCPU-6144MB", "c1.4VCPU-8GB"};
  EXPECT_EQ(cheapest_instance_type(types, c, "r1", 0.075)->name, "c1.4VCPU-8GB");
}

TEST(LaunchPlan, ZonesComeFromTheClaimAndTheNodeClassExclusions) {
  auto s = world();
  auto c = claim();
  c.spec.requirements.push_back({"topology.kubernetes.io/zone", "In", {"pve1", "pve2"}, {}});
  c.spec.requirements.push_back({"topology.kubernetes.io/zone", "NotIn", {"pve2"}, {}});
  auto z = zones_for(c, *cluster_snapshot::find(s.node_classes, "default"));
  EXPECT_EQ(z.allowed, (std::vector<std::string>{"pve1", "pve2"}));
  EXPECT_EQ(z.excluded, (std::vector<std::string>{"pve3", "pve2"}));
}

TEST(LaunchPlan, LaunchLabelsNameZoneRegionTypeCapacityFamilyAndNodeClass) {
  auto types = instance_types::builtin_instance_types();
  auto l = launch_labels(claim(), types.front(), "r1", "pve2", "default");
  EXPECT_EQ(l.at("topology.kubernetes.io/zone"), "pve2");
  EXPECT_EQ(l.at("topology.kubernetes.io/region"), "r1");
  EXPECT_EQ(l.at("node.kubernetes.io/instance-type"), types.front().name);
  EXPECT_EQ(l.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(l.at("karpenter.proxmox.sinextra.dev/instance-family"), types.front().family);
  EXPECT_EQ(l.at("karpenter.proxmox.sinextra.dev/proxmoxnodeclass"), "default");
  EXPECT_EQ(l.at("karpenter.sh/nodepool"), "default");
}

TEST(LaunchPlan, TheRenderedIsoJoinsWithTheTokenProviderIdLabelsAndTaints) {
  auto s = world();
  auto c = claim();
  c.spec.startup_taints.push_back({"example.com/warming", "", "NoSchedule", ""});
  auto types = instance_types::builtin_instance_types();
  auto plan =
      make_iso_plan(c, *cluster_snapshot::find(s.node_classes, "default"), types.front(),
                    "abcdef.0123456789abcdef", "https://10.0.0.1:6443",
                    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "v1.32.0");
  auto iso = cloudinit::render_nocloud_iso(plan, at("r1", "pve2", 20007));
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  auto files = cloudinit::read_nocloud_iso(*iso);
  ASSERT_TRUE(files.ok()) << files.error().message;
  auto join = sim::pve::join_plan_from_user_data(files->user_data);
  ASSERT_TRUE(join.ok()) << join.error().message;
  EXPECT_EQ(join->server, "https://10.0.0.1:6443");
  EXPECT_EQ(join->token, "abcdef.0123456789abcdef");
  EXPECT_EQ(join->provider_id, "proxmox://r1/20007");
  EXPECT_EQ(join->labels.at("topology.kubernetes.io/zone"), "pve2");
  bool unregistered = false, warming = false;
  for (const auto& t : join->taints) {
    unregistered = unregistered || t.key == "karpenter.sh/unregistered";
    warming = warming || t.key == "example.com/warming";
  }
  EXPECT_TRUE(unregistered);
  EXPECT_TRUE(warming);
}

TEST(LaunchPlan, TheRegionsNicsBecomeTheNetworkConfigWithTheIpamAddress) {
  auto s = world();
  auto types = instance_types::builtin_instance_types();
  auto plan =
      make_iso_plan(claim(), *cluster_snapshot::find(s.node_classes, "default"), types.front(),
                    "abcdef.0123456789abcdef", "https://10.0.0.1:6443", "", "v1.32.0");
  std::vector<cloudinit::vm_nic> nics = {
      {0, "BC:24:11:0A:0B:0C", "vmbr0", "ip=192.168.10.14/24,gw=192.168.10.1", "192.168.10.11/24",
       "192.168.10.1"},
      {1, "BC:24:11:0D:0E:0F", "vmbr1", "ip=dhcp,ip6=auto", "", ""}};
  auto data = cloudinit::network_of(nics);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0].name, "eth0");
  EXPECT_FALSE(data[0].dhcp4);
  EXPECT_EQ(data[0].address4, std::vector<std::string>{"192.168.10.14/24"});
  EXPECT_EQ(data[0].gateway4, "192.168.10.1");
  EXPECT_EQ(data[0].node_address4, "192.168.10.11/24");
  EXPECT_TRUE(data[1].dhcp4);
  EXPECT_TRUE(data[1].slaac);
  auto where = at("r1", "pve1", 20008);
  where.nics = nics;
  auto iso = cloudinit::render_nocloud_iso(plan, where);
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  auto files = cloudinit::read_nocloud_iso(*iso);
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_TRUE(files->network_config.has_value());
  EXPECT_NE(files->network_config->find("bc:24:11:0a:0b:0c"), std::string::npos)
      << *files->network_config;
  EXPECT_NE(files->network_config->find("192.168.10.14/24"), std::string::npos);
  auto plain = cloudinit::render_nocloud_iso(plan, at("r1", "pve1", 20008));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(cloudinit::read_nocloud_iso(*plain)->network_config.has_value())
      << "without NICs nothing changes";
}

TEST(LaunchPlan, ALaunchRequestIsPlainDataThatSurvivesCafsSerializer) {
  auto s = world();
  auto types = instance_types::builtin_instance_types();
  protocol::launch_request req;
  req.nodeclaim = "default-x1";
  req.security_groups = {{"net0", "kubernetes"}};
  req.cloud_init =
      make_iso_plan(claim(), *cluster_snapshot::find(s.node_classes, "default"), types.front(),
                    "abcdef.0123456789abcdef", "https://10.0.0.1:6443", "", "v1.32.0");
  req.cloud_init->inputs.kubelet.cpu_manager_policy = "static";
  std::vector<char> bytes;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::binary_serializer out{sys, bytes};
  ASSERT_FALSE(out(req));
  protocol::launch_request back;
  caf::binary_deserializer in{sys, bytes};
  ASSERT_FALSE(in(back));
  EXPECT_EQ(caf::deep_to_string(back), caf::deep_to_string(req));
  ASSERT_TRUE(back.cloud_init);
  EXPECT_EQ(back.cloud_init->inputs.kubelet.cpu_manager_policy, "static");
  EXPECT_FALSE(back.cloud_init->inputs.kubelet.topology_manager_policy.has_value());
  EXPECT_EQ(back.cloud_init->inputs.bootstrap_token, "abcdef.0123456789abcdef");
  EXPECT_EQ(back.cloud_init->inputs.kubelet.kube_reserved,
            req.cloud_init->inputs.kubelet.kube_reserved);
  // Rendered in the region, the round-tripped plan gives the same ISO.
  auto a = cloudinit::render_nocloud_iso(*req.cloud_init, at("r1", "pve1", 20008));
  auto b = cloudinit::render_nocloud_iso(*back.cloud_init, at("r1", "pve1", 20008));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(cloudinit::read_nocloud_iso(*a)->user_data, cloudinit::read_nocloud_iso(*b)->user_data);
}

TEST(LaunchPlan, ABrokenUserTemplateIsATemplateErrorNamingSecretKeyAndLine) {
  auto s = world();
  auto types = instance_types::builtin_instance_types();
  auto plan = make_iso_plan(claim(), *cluster_snapshot::find(s.node_classes, "default"),
                            types.front(), "abcdef.0123456789abcdef", "https://e", "", "v1");
  plan.sources.origin = "Secret kube-system/tmpl";
  plan.sources.documents["user-data"] = "#cloud-config\nhostname: {{ .Metadata.Hostname\n";
  auto iso = cloudinit::render_nocloud_iso(plan, at("r1", "pve1", 1));
  ASSERT_FALSE(iso.ok());
  EXPECT_NE(iso.error().message.find("Secret kube-system/tmpl key user-data"), std::string::npos)
      << iso.error().message;
  EXPECT_NE(iso.error().message.find("user-data:3"), std::string::npos) << iso.error().message;
}

TEST(LaunchPlan, ProviderIdsParseIntoRegionAndVmid) {
  auto p = parse_provider_id("proxmox://region-1/20005");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->region, "region-1");
  EXPECT_EQ(p->vmid, 20005u);
  EXPECT_FALSE(parse_provider_id("aws:///us-east-1a/i-123").has_value());
  EXPECT_FALSE(parse_provider_id("proxmox://region-1/").has_value());
  EXPECT_FALSE(parse_provider_id("proxmox://region-1/12x").has_value());
}

kube::proxmox_node_class provider_class() {
  kube::proxmox_node_class nc;
  nc.metadata.name = "guarded";
  nc.spec.zone_balance = "Pack";
  nc.spec.excluded_zones = {"pve3"};
  nc.spec.min_free_cpu = 2;
  nc.spec.min_free_memory = "4Gi";
  nc.spec.boot.size = "30G";
  nc.spec.tags = {"team-a", "prod"};
  nc.spec.security_groups = {{"", "kubernetes"}, {"net1", "storage"}};
  nc.spec.resource_pool = "k8s/workers";
  return nc;
}

TEST(LaunchPlan, TheNodeClassGivesStrategyFiltersDiskTagsSecurityGroupsAndPool) {
  protocol::launch_request r;
  r.excluded_zones = {"pve2"};  // from the claim's NotIn
  ASSERT_TRUE(apply_node_class(r, provider_class()).ok());
  EXPECT_EQ(r.strategy, "Pack");
  EXPECT_EQ(r.excluded_zones, (std::vector<std::string>{"pve2", "pve3"}));
  EXPECT_EQ(r.min_free_cpu, 2);
  EXPECT_EQ(r.min_free_memory_mib, 4096u);
  EXPECT_EQ(r.disk_gib, 30u);
  EXPECT_EQ(r.tags, (std::vector<std::string>{"team-a", "prod"}));
  ASSERT_EQ(r.security_groups.size(), 2u);
  EXPECT_EQ(r.security_groups[0].iface, "net0") << "the interface defaults to net0";
  EXPECT_EQ(r.security_groups[0].group, "kubernetes");
  EXPECT_EQ(r.security_groups[1].iface, "net1");
  EXPECT_EQ(r.resource_pool, "k8s/workers");
  auto sync = sync_request_for(20001, "default-x7k2p", provider_class());
  EXPECT_EQ(sync.vmid, 20001u);
  EXPECT_EQ(sync.tags, r.tags);
  ASSERT_EQ(sync.security_groups.size(), 2u);
  EXPECT_EQ(sync.security_groups[0].iface, "net0");
  EXPECT_EQ(sync.resource_pool, "k8s/workers");
}

TEST(LaunchPlan, BootDiskSizesAreGibAndNonsenseIsAnErrorNamingTheField) {
  auto nc = provider_class();
  protocol::launch_request r;
  nc.spec.boot.size = "1Ti";
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  EXPECT_EQ(r.disk_gib, 1024u);
  nc.spec.boot.size = "";
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  EXPECT_EQ(r.disk_gib, 0u) << "no size: keep the template's disk";
  nc.spec.boot.size = "30M";
  protocol::launch_request untouched;
  auto bad = apply_node_class(untouched, nc);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "invalid_node_class");
  EXPECT_NE(bad.error().message.find("bootDevice.size"), std::string::npos);
  EXPECT_TRUE(untouched.security_groups.empty());
  nc = provider_class();
  nc.spec.min_free_memory = "lots";
  bad = apply_node_class(untouched, nc);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("minFreeMemory"), std::string::npos);
}

TEST(LaunchPlan, AdditionalDisksAreSizedInGibAndTakeTheBootDevicesStorageByDefault) {
  auto nc = provider_class();
  nc.spec.boot.storage = "zfs";
  nc.spec.additional_disks.push_back({"20Gi", "local-lvm", "none", true, true, true});
  nc.spec.additional_disks.push_back({"1T", "", "", std::nullopt, false, std::nullopt});
  protocol::launch_request r;
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  ASSERT_EQ(r.data_disks.size(), 2u);
  EXPECT_EQ(r.data_disks[0], (protocol::data_disk{20, "local-lvm", "none", true, true, true}));
  EXPECT_EQ(r.data_disks[1], (protocol::data_disk{1024, "zfs", "", false, false, false}));
  nc.spec.boot.storage.clear();
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  EXPECT_EQ(r.data_disks[1].storage, "") << "the region takes the template's disk's storage";
}

TEST(LaunchPlan, TheCloneModeGoesToTheRegionAndAnUnknownOneIsAnError) {
  auto nc = provider_class();
  protocol::launch_request r;
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  EXPECT_EQ(r.clone_mode, "") << "none: the region chooses by the template's storage";
  nc.spec.clone_mode = "full";
  ASSERT_TRUE(apply_node_class(r, nc).ok());
  EXPECT_EQ(r.clone_mode, "full");
  nc.spec.clone_mode = "thin";
  auto bad = apply_node_class(r, nc);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("cloneMode \"thin\""), std::string::npos);
}

TEST(LaunchPlan, ABadAdditionalDiskIsAnErrorNamingItsIndexAndField) {
  auto nc = provider_class();
  nc.spec.additional_disks.push_back({"20Gi", "", "", {}, {}, {}});
  nc.spec.additional_disks.push_back({"20MB", "", "", {}, {}, {}});
  protocol::launch_request untouched;
  auto bad = apply_node_class(untouched, nc);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "invalid_node_class");
  EXPECT_NE(bad.error().message.find("additionalDisks[1].size \"20MB\""), std::string::npos)
      << bad.error().message;
  EXPECT_TRUE(untouched.data_disks.empty());
  nc.spec.additional_disks[1] = {"0G", "", "", {}, {}, {}};
  EXPECT_FALSE(apply_node_class(untouched, nc).ok()) << "a disk of 0 GiB is no disk";
  nc.spec.additional_disks[1] = {"10G", "", "fast", {}, {}, {}};
  bad = apply_node_class(untouched, nc);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("additionalDisks[1].cache"), std::string::npos);
}

TEST(ClaimConditions, TheTransitionTimeMovesOnlyWhenTheStatusChanges) {
  std::vector<kube::condition> cs;
  EXPECT_TRUE(set_condition(cs, "Launched", "False", "TemplateNotFound", "m", "t1"));
  EXPECT_FALSE(set_condition(cs, "Launched", "False", "TemplateNotFound", "m", "t2"));
  EXPECT_EQ(cs[0].last_transition_time, "t1");
  EXPECT_TRUE(set_condition(cs, "Launched", "False", "ProxmoxError", "m2", "t3"));
  EXPECT_EQ(cs[0].last_transition_time, "t1");
  EXPECT_TRUE(set_condition(cs, "Launched", "True", "Launched", "", "t4"));
  EXPECT_EQ(cs[0].last_transition_time, "t4");
  EXPECT_TRUE(condition_is_true(cs, "Launched"));
  auto copy = cs;
  copy[0].last_transition_time = "other";
  EXPECT_TRUE(same_conditions(cs, copy));
  copy[0].reason = "x";
  EXPECT_FALSE(same_conditions(cs, copy));
}

TEST(NodeSync, RegistrationCopiesLabelsAndTaintsAddsTheFinalizerAndDropsUnregistered) {
  auto c = claim();
  c.spec.taints.push_back({"dedicated", "db", "NoSchedule", ""});
  kube::node n;
  n.metadata.name = c.metadata.name;
  n.spec.taints.push_back({"karpenter.sh/unregistered", "", "NoExecute", ""});
  ASSERT_TRUE(sync_registered_node(n, c));
  EXPECT_EQ(n.metadata.labels.at("karpenter.sh/nodepool"), "default");
  EXPECT_EQ(n.metadata.labels.at("karpenter.sh/registered"), "true");
  ASSERT_EQ(n.spec.taints.size(), 1u);
  EXPECT_EQ(n.spec.taints[0].key, "dedicated");
  EXPECT_EQ(n.metadata.finalizers, (std::vector<std::string>{"karpenter.sh/termination"}));
  ASSERT_EQ(n.metadata.owner_references.size(), 1u);
  EXPECT_EQ(n.metadata.owner_references[0].uid, "uid-1");
  EXPECT_FALSE(sync_registered_node(n, c)) << "a second sync changes nothing";
}

TEST(NodeSync, ANodeIsInitializedWhenReadyWithoutStartupOrEphemeralTaints) {
  auto c = claim();
  c.spec.startup_taints.push_back({"example.com/warming", "", "NoSchedule", ""});
  kube::node n;
  EXPECT_EQ(not_initialized_reason(n, c).value().view(), "NodeNotReady");
  n.status.conditions.push_back({"Ready", "True", "KubeletReady", "", "", "", 0});
  n.spec.taints.push_back({"example.com/warming", "", "NoSchedule", ""});
  EXPECT_EQ(not_initialized_reason(n, c).value().view(), "StartupTaintsExist");
  n.spec.taints = {{"node.kubernetes.io/not-ready", "", "NoSchedule", ""}};
  EXPECT_EQ(not_initialized_reason(n, c).value().view(), "KnownEphemeralTaintsExist");
  n.spec.taints.clear();
  EXPECT_FALSE(not_initialized_reason(n, c).has_value());
}

TEST(NodeSync, ANodeWhoseClaimRequestsAGpuIsInitializedOnlyOnceItsAllocatableShowsOne) {
  auto c = claim();
  c.spec.resource_requests["nvidia.com/gpu"] = "1";
  kube::node n;
  n.status.conditions.push_back({"Ready", "True", "KubeletReady", "", "", "", 0});
  EXPECT_EQ(not_initialized_reason(n, c).value().view(), "ResourceNotRegistered");
  n.status.allocatable["nvidia.com/gpu"] = "0";
  EXPECT_EQ(not_initialized_reason(n, c).value().view(), "ResourceNotRegistered")
      << "the kubelet zeroes a device plugin's resource until the plugin registers";
  n.status.allocatable["nvidia.com/gpu"] = "1";
  EXPECT_FALSE(not_initialized_reason(n, c).has_value());
}

}  // namespace
}  // namespace kp::actors::nodeclaim
