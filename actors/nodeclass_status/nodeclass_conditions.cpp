#include "actors/nodeclass_status/nodeclass_conditions.hpp"

#include <algorithm>
#include <set>

#include "actors/nodeclaim/agent_join.hpp"
#include "core/cloudinit/render_cloud_init.hpp"
#include "protocol/kube/node_class_pci.hpp"

namespace kp::actors::nodeclass_status {
namespace {

condition_update make(std::string type, std::string status, condition_reason reason,
                      std::string message) {
  return {std::move(type), std::move(status), reason, std::move(message)};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string key_of(const kube::secret_reference& ref,
                   const nodeclaim::template_secret_scope& scope) {
  return nodeclaim::secret_namespace(ref, scope) + "/" + ref.name;
}

constexpr const char* template_type = "InstanceTemplateReady";
constexpr const char* metadata_type = "InstanceMetadataOptionsReady";

condition_update template_condition(const kube::proxmox_node_class& nc,
                                    const protocol::cluster_snapshot& snapshot,
                                    const std::vector<protocol::region_inventory>& inventories) {
  const auto& ref = nc.spec.instance_template_ref;
  if (ref.kind == "ProxmoxTemplate") {
    const auto* t = protocol::cluster_snapshot::find(snapshot.templates, ref.name);
    if (t == nullptr) {
      return make(template_type, "False", "TemplateNotFound",
                  "ProxmoxTemplate " + ref.name + " not found");
    }
    for (const auto& c : t->status.conditions) {
      if (c.type == "Ready" && c.status == "True") {
        return make(template_type, "True", "TemplateReady", "ProxmoxTemplate " + ref.name);
      }
    }
    return make(template_type, "False", "TemplateNotReady",
                "ProxmoxTemplate " + ref.name + " is not Ready yet");
  }
  const auto* t = protocol::cluster_snapshot::find(snapshot.unmanaged_templates, ref.name);
  if (t == nullptr) {
    return make(template_type, "False", "TemplateNotFound",
                "ProxmoxUnmanagedTemplate " + ref.name + " not found");
  }
  const auto& name = t->spec.template_name;
  if (name.empty()) {
    return make(template_type, "False", "TemplateValidation",
                "ProxmoxUnmanagedTemplate " + ref.name + " has no templateName");
  }
  std::string region = !nc.spec.region.empty() ? nc.spec.region : t->spec.region;
  std::vector<const protocol::region_inventory*> considered;
  std::vector<std::string> known;
  for (const auto& inv : inventories) {
    known.push_back(inv.region);
    if (region.empty() || inv.region == region) considered.push_back(&inv);
  }
  if (considered.empty()) {
    if (inventories.empty()) {
      return make(template_type, "Unknown", "InventoryUnavailable",
                  "no Proxmox region has reported its inventory yet");
    }
    return make(template_type, "False", "RegionNotFound",
                "region " + region + " is not configured (regions: " + join(known) + ")");
  }
  std::vector<std::string> found, regions, unavailable;
  std::set<std::string> others;
  for (const auto* inv : considered) {
    regions.push_back(inv->region);
    if (!inv->refreshed) {
      unavailable.push_back(inv->region + (inv->detail.empty() ? "" : " (" + inv->detail + ")"));
      continue;
    }
    for (const auto& host : inv->hosts_online) {
      auto it = inv->templates.find(host);
      if (it == inv->templates.end()) continue;
      for (const auto& tn : it->second) {
        if (tn == name) {
          found.push_back(host);
        } else {
          others.insert(tn);
        }
      }
    }
  }
  if (!found.empty()) {
    return make(template_type, "True", "TemplateFound",
                "template " + name + " on " + join(found) + " (region " + join(regions) + ")");
  }
  if (unavailable.size() == considered.size()) {
    return make(template_type, "Unknown", "InventoryUnavailable",
                "no inventory of region " + join(unavailable) + " yet");
  }
  std::string message = "template " + name + " not found on any online host of region " +
                        join(regions) + "; hosts have: ";
  message += others.empty() ? "no templates" : join({others.begin(), others.end()});
  return make(template_type, "False", "TemplateNotFound", message);
}

// A sample VM to render user templates with, so syntax and execution errors show up before any
// VM needs them. Contains no credential.
cloudinit::cloud_init_inputs sample_inputs(const kube::proxmox_node_class& nc) {
  cloudinit::cloud_init_inputs in;
  in.hostname = "sample-nodeclaim";
  in.instance_id = "100";
  in.instance_type = "t1.2VCPU-4GB";
  in.provider_id = "proxmox://region/100";
  in.region = "region";
  in.zone = "host";
  in.node_class = nc.metadata.name;
  in.cpus = 2;
  in.memory_bytes = std::int64_t{4} << 30;
  in.bootstrap_token = "abcdef.0123456789abcdef";
  in.endpoint = "https://127.0.0.1:6443";
  in.kubelet.provider_id = in.provider_id;
  return in;
}

condition_update metadata_condition(const kube::proxmox_node_class& nc, const secret_map& secrets,
                                    const nodeclaim::template_secret_scope& scope) {
  const auto& md = nc.spec.metadata;
  // kproximate's fields (join command, nodeLabels, sshKeys) are checked before any VM exists.
  if (auto valid = nodeclaim::validate_kproximate_fields(nc); !valid) {
    return make(metadata_type, "False", "InvalidNodeClass", valid.error().message);
  }
  if (md.type == "guestAgent") {
    return make(metadata_type, "True", "GuestAgentJoin",
                md.join_command.empty()
                    ? "nodes join through the QEMU guest agent with the built-in kube-join command"
                    : "nodes join through the QEMU guest agent with metadataOptions.joinCommand");
  }
  if (md.type != "cdrom") {
    return make(metadata_type, "True", "MetadataNone",
                "metadataOptions type " + (md.type.empty() ? std::string("none") : md.type) +
                    ": no cloud-init CD-ROM");
  }
  auto fetched = [&](const kube::secret_reference& ref,
                     const char* field) -> std::optional<condition_update> {
    if (auto refused = nodeclaim::refuse_template_secret(field, ref, scope)) {
      return make(metadata_type, "False", "NotInTemplateSecretNamespaces", *refused);
    }
    auto key = key_of(ref, scope);
    auto it = secrets.find(key);
    if (it == secrets.end()) {
      return make(metadata_type, "Unknown", "SecretUnread", "Secret " + key + " not read yet");
    }
    if (it->second.secret) return std::nullopt;
    if (it->second.error_code == "not_found") {
      return make(metadata_type, "False", "SecretNotFound",
                  std::string(field) + " Secret " + key + " not found");
    }
    return make(metadata_type, "Unknown", "SecretUnreadable",
                std::string(field) + " Secret " + key + ": " + it->second.error_message);
  };
  cloudinit::template_sources sources;
  if (md.templates_ref) {
    if (auto bad = fetched(*md.templates_ref, "templatesRef")) return *bad;
    const auto& s = *secrets.at(key_of(*md.templates_ref, scope)).secret;
    sources.origin = "Secret " + key_of(*md.templates_ref, scope);
    for (const auto& [k, v] : s.data) sources.documents[k] = v.value;
  }
  auto in = sample_inputs(nc);
  if (md.values_ref) {
    if (auto bad = fetched(*md.values_ref, "valuesRef")) return *bad;
    const auto& s = *secrets.at(key_of(*md.values_ref, scope)).secret;
    for (const auto& [k, v] : s.data) in.values[k] = v.value;
  }
  auto rendered = cloudinit::render_cloud_init(sources, in);
  if (!rendered) {
    return make(metadata_type, "False", "TemplateError", rendered.error().message);
  }
  if (!md.templates_ref) {
    return make(metadata_type, "True", "DefaultTemplates", "built-in cloud-init templates");
  }
  return make(metadata_type, "True", "TemplatesParsed",
              "cloud-init templates from " + sources.origin);
}

// pciDevices that cannot be launched: an entry the checks refuse, or a mapping no region that
// has read its mappings lists (Proxmox lists only the mappings the token may use). Regions
// that have not reported yet judge nothing.
std::optional<condition_update> pci_problem(
    const kube::proxmox_node_class& nc,
    const std::vector<protocol::region_inventory>& inventories) {
  auto needs = kube::pci_device_needs(nc);
  if (!needs) return make("Ready", "False", "InvalidPCIDevices", needs.error().message);
  std::vector<std::string> regions;
  for (const auto& inv : inventories)
    if (inv.refreshed && (nc.spec.region.empty() || inv.region == nc.spec.region))
      regions.push_back(inv.region);
  if (regions.empty()) return std::nullopt;
  for (std::size_t i = 0; i < needs->size(); ++i) {
    const auto& mapping = (*needs)[i].mapping;
    bool listed = false;
    for (const auto& inv : inventories) {
      const bool ours = std::find(regions.begin(), regions.end(), inv.region) != regions.end();
      listed = listed || (ours && inv.pci_mappings.count(mapping) != 0);
    }
    if (!listed)
      return make("Ready", "False", "PCIMappingNotFound",
                  "pciDevices[" + std::to_string(i) + "].mapping \"" + mapping +
                      "\": no Proxmox PCI resource mapping of that id in region(s) " +
                      join(regions) + " (or the token lacks Mapping.Use on /mapping/pci/" +
                      mapping + ")");
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> secrets_needed(const kube::proxmox_node_class& nc,
                                        const nodeclaim::template_secret_scope& scope) {
  std::vector<std::string> out;
  const auto& md = nc.spec.metadata;
  if (md.type != "cdrom") return out;
  for (const auto& ref : {md.templates_ref, md.values_ref}) {
    if (ref && !nodeclaim::refuse_template_secret("", *ref, scope)) {
      out.push_back(key_of(*ref, scope));
    }
  }
  return out;
}

nodeclass_verdict evaluate_node_class(const kube::proxmox_node_class& nc,
                                      const protocol::cluster_snapshot& snapshot,
                                      const std::vector<protocol::region_inventory>& inventories,
                                      const secret_map& secrets,
                                      const nodeclaim::template_secret_scope& scope) {
  auto t = template_condition(nc, snapshot, inventories);
  auto m = metadata_condition(nc, secrets, scope);
  auto ready = [&] {
    if (t.status == "True" && m.status == "True") return make("Ready", "True", "Ready", "");
    if (t.status == "False" || m.status == "False") {
      const auto& bad = t.status == "False" ? t : m;
      return make("Ready", "False", bad.reason, bad.message);
    }
    const auto& unknown = t.status != "True" ? t : m;
    return make("Ready", "Unknown", unknown.reason, unknown.message);
  }();
  if (ready.status != "False")
    if (auto pci = pci_problem(nc, inventories)) ready = std::move(*pci);
  return {std::move(t), std::move(m), std::move(ready)};
}

}  // namespace kp::actors::nodeclass_status
