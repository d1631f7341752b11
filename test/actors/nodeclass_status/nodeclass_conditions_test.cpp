// The node class conditions from the snapshot, the regions' inventories and the Secrets: each
// reason a person can act on, with a message that says what is wrong and where.
#include <gtest/gtest.h>

#include "actors/nodeclass_status/nodeclass_conditions.hpp"

namespace kp::actors::nodeclass_status {
namespace {

template <class T>
protocol::shared_objects<T> one(T object) {
  auto m = std::make_shared<protocol::object_map<T>>();
  auto key = protocol::object_key_of(object);
  (*m)[key] = std::make_shared<const T>(std::move(object));
  return m;
}

kube::proxmox_node_class node_class(const std::string& tmpl = "k8s") {
  kube::proxmox_node_class nc;
  nc.metadata.name = "default";
  nc.spec.instance_template_ref = {"ProxmoxUnmanagedTemplate", tmpl};
  nc.spec.metadata.type = "cdrom";
  return nc;
}

protocol::cluster_snapshot snapshot(const std::string& template_name) {
  protocol::cluster_snapshot s;
  kube::proxmox_unmanaged_template t;
  t.metadata.name = "k8s";
  t.spec.template_name = template_name;
  s.unmanaged_templates = one(t);
  return s;
}

// TEMPLATE_SECRET_NAMESPACES by default when the controller runs in kube-system.
nodeclaim::template_secret_scope scope() {
  return {"kube-system", {"kube-system"}};
}

std::vector<protocol::region_inventory> inventory() {
  protocol::region_inventory inv;
  inv.region = "r1";
  inv.refreshed = true;
  inv.hosts_online = {"pve1", "pve2"};
  inv.hosts_offline = {"pve3"};
  inv.templates["pve1"] = {"k8s-template"};
  inv.templates["pve3"] = {"k8s-templat"};  // offline: does not count
  return {inv};
}

TEST(NodeClassConditions, ATemplateOnAnOnlineHostMakesTheClassReady) {
  auto v = evaluate_node_class(node_class(), snapshot("k8s-template"), inventory(), {}, scope());
  EXPECT_EQ(v.template_ready.status, "True");
  EXPECT_NE(v.template_ready.message.find("pve1"), std::string::npos);
  EXPECT_EQ(v.metadata_ready.status, "True");
  EXPECT_EQ(v.metadata_ready.reason.view(), "DefaultTemplates");
  EXPECT_EQ(v.ready.status, "True");
}

TEST(NodeClassConditions, AGuestAgentClassIsReadyAndABadNodeLabelTemplateIsNamed) {
  auto nc = node_class();
  nc.spec.metadata.type = "guestAgent";
  auto v = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), {}, scope());
  EXPECT_EQ(v.metadata_ready.status, "True");
  EXPECT_EQ(v.metadata_ready.reason.view(), "GuestAgentJoin");
  EXPECT_EQ(v.ready.status, "True");

  nc.spec.node_labels["kp-host"] = "{{ .TargetHost";
  v = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), {}, scope());
  EXPECT_EQ(v.metadata_ready.status, "False");
  EXPECT_EQ(v.metadata_ready.reason.view(), "InvalidNodeClass");
  EXPECT_NE(v.metadata_ready.message.find("nodeLabels[\"kp-host\"]"), std::string::npos)
      << v.metadata_ready.message;
  EXPECT_EQ(v.ready.status, "False");
}

TEST(NodeClassConditions, AMisspelledTemplateSaysWhatTheHostsHave) {
  auto v = evaluate_node_class(node_class(), snapshot("k8s-templat"), inventory(), {}, scope());
  EXPECT_EQ(v.template_ready.status, "False");
  EXPECT_EQ(v.template_ready.reason.view(), "TemplateNotFound");
  EXPECT_EQ(v.template_ready.message,
            "template k8s-templat not found on any online host of region r1; hosts have: "
            "k8s-template");
  EXPECT_EQ(v.ready.status, "False");
  EXPECT_EQ(v.ready.reason.view(), "TemplateNotFound");
}

TEST(NodeClassConditions, AMissingTemplateObjectOrRegionOrInventoryIsNamed) {
  auto missing =
      evaluate_node_class(node_class("other"), snapshot("k8s-template"), inventory(), {}, scope());
  EXPECT_EQ(missing.template_ready.reason.view(), "TemplateNotFound");
  EXPECT_NE(missing.template_ready.message.find("ProxmoxUnmanagedTemplate other"),
            std::string::npos);
  auto nc = node_class();
  nc.spec.region = "r9";
  auto region = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), {}, scope());
  EXPECT_EQ(region.template_ready.reason.view(), "RegionNotFound");
  EXPECT_NE(region.template_ready.message.find("r9"), std::string::npos);
  auto inv = inventory();
  inv[0].refreshed = false;
  inv[0].detail = "connection refused";
  auto unknown = evaluate_node_class(node_class(), snapshot("k8s-template"), inv, {}, scope());
  EXPECT_EQ(unknown.template_ready.status, "Unknown");
  EXPECT_EQ(unknown.ready.status, "Unknown");
  EXPECT_NE(unknown.template_ready.message.find("connection refused"), std::string::npos);
}

TEST(NodeClassConditions, TemplatesRefNeedsItsSecretAndTemplatesThatParse) {
  auto nc = node_class();
  nc.spec.metadata.templates_ref = kube::secret_reference{"tmpl", ""};
  EXPECT_EQ(secrets_needed(nc, scope()), (std::vector<std::string>{"kube-system/tmpl"}));
  secret_map secrets;
  secrets["kube-system/tmpl"] = {std::nullopt, "not_found", "secrets \"tmpl\" not found"};
  auto gone = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), secrets, scope());
  EXPECT_EQ(gone.metadata_ready.status, "False");
  EXPECT_EQ(gone.metadata_ready.reason.view(), "SecretNotFound");
  EXPECT_NE(gone.metadata_ready.message.find("kube-system/tmpl"), std::string::npos);

  kube::secret s;
  s.metadata.name = "tmpl";
  s.metadata.namespace_ = "kube-system";
  s.data["user-data"].value = "#cloud-config\n\nhostname: {{ .Metadata.Hostname }\n";
  secrets["kube-system/tmpl"] = {s, "", ""};
  auto broken = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), secrets, scope());
  EXPECT_EQ(broken.metadata_ready.status, "False");
  EXPECT_EQ(broken.metadata_ready.reason.view(), "TemplateError");
  EXPECT_NE(broken.metadata_ready.message.find("Secret kube-system/tmpl key user-data"),
            std::string::npos)
      << broken.metadata_ready.message;
  EXPECT_NE(broken.metadata_ready.message.find("user-data:3"), std::string::npos)
      << broken.metadata_ready.message;
  EXPECT_EQ(broken.ready.status, "False");

  s.data["user-data"].value = "#cloud-config\nhostname: {{ .Metadata.Hostname }}\n";
  secrets["kube-system/tmpl"] = {s, "", ""};
  auto fine = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), secrets, scope());
  EXPECT_EQ(fine.metadata_ready.status, "True");
  EXPECT_EQ(fine.metadata_ready.reason.view(), "TemplatesParsed");
  EXPECT_EQ(fine.ready.status, "True");
}

TEST(NodeClassConditions, ASecretOutsideTemplateSecretNamespacesIsNeitherReadNorAccepted) {
  auto nc = node_class();
  nc.spec.metadata.templates_ref = kube::secret_reference{"tmpl", "kube-system"};
  nc.spec.metadata.values_ref = kube::secret_reference{"db-password", "payments"};
  // The Secret in another namespace is never fetched, so no read can leak it.
  EXPECT_EQ(secrets_needed(nc, scope()), (std::vector<std::string>{"kube-system/tmpl"}));
  kube::secret s;
  s.metadata.name = "tmpl";
  s.data["user-data"].value = "#cloud-config\n";
  secret_map secrets;
  secrets["kube-system/tmpl"] = {s, "", ""};
  auto v = evaluate_node_class(nc, snapshot("k8s-template"), inventory(), secrets, scope());
  EXPECT_EQ(v.metadata_ready.status, "False");
  EXPECT_EQ(v.metadata_ready.reason.view(), "NotInTemplateSecretNamespaces");
  EXPECT_EQ(v.metadata_ready.message,
            "valuesRef Secret payments/db-password is outside TEMPLATE_SECRET_NAMESPACES "
            "(kube-system): move the Secret there or add namespace payments to the setting");
  EXPECT_EQ(v.ready.status, "False");
  EXPECT_EQ(v.ready.reason.view(), "NotInTemplateSecretNamespaces");

  // Allowed once the setting names the namespace.
  nodeclaim::template_secret_scope wider{"kube-system", {"kube-system", "payments"}};
  EXPECT_EQ(secrets_needed(nc, wider),
            (std::vector<std::string>{"kube-system/tmpl", "payments/db-password"}));
}

TEST(NodeClassConditions, APciDevicesMappingThatNoRegionListsMakesTheClassNotReadyAndNamesIt) {
  auto nc = node_class();
  kube::node_class_pci_device gpu;
  gpu.mapping = "gpu";
  gpu.resource_name = "nvidia.com/gpu";
  nc.spec.pci_devices = {gpu};
  auto inv = inventory();
  inv[0].pci_mappings["nic"] = {{"pve1", 1}};
  auto v = evaluate_node_class(nc, snapshot("k8s-template"), inv, {}, scope());
  EXPECT_EQ(v.template_ready.status, "True") << "the template itself is fine";
  EXPECT_EQ(v.ready.status, "False");
  EXPECT_EQ(v.ready.reason.view(), "PCIMappingNotFound");
  EXPECT_EQ(v.ready.message,
            "pciDevices[0].mapping \"gpu\": no Proxmox PCI resource mapping of that id in "
            "region(s) r1 (or the token lacks Mapping.Use on /mapping/pci/gpu)");

  // Another region's mapping of that id is no use to a class pinned to r1.
  nc.spec.region = "r1";
  auto other_region = inv[0];
  other_region.region = "r2";
  other_region.pci_mappings["gpu"] = {{"pve9", 2}};
  inv.push_back(other_region);
  v = evaluate_node_class(nc, snapshot("k8s-template"), inv, {}, scope());
  EXPECT_EQ(v.ready.reason.view(), "PCIMappingNotFound");
  inv.pop_back();

  // Listed in /cluster/mapping/pci: the class is ready.
  inv[0].pci_mappings["gpu"] = {{"pve1", 2}};
  v = evaluate_node_class(nc, snapshot("k8s-template"), inv, {}, scope());
  EXPECT_EQ(v.ready.status, "True") << v.ready.reason.view() << ": " << v.ready.message;

  // A region that has not read its mappings yet judges nothing: the class waits for it.
  inv[0].pci_mappings.clear();
  inv[0].refreshed = false;
  v = evaluate_node_class(nc, snapshot("k8s-template"), inv, {}, scope());
  EXPECT_EQ(v.ready.status, "Unknown");
  EXPECT_NE(v.ready.reason.view(), "PCIMappingNotFound");
}

}  // namespace
}  // namespace kp::actors::nodeclass_status
