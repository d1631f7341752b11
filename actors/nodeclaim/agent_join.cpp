#include "actors/nodeclaim/agent_join.hpp"

#include <string_view>

#include "actors/nodeclaim/launch_plan.hpp"
#include "core/gotemplate/template_set.hpp"

namespace kp::actors::nodeclaim {

namespace {

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool all_of(std::string_view s, bool (*ok)(char)) {
  for (char c : s) {
    if (!ok(c)) return false;
  }
  return true;
}

// The key type of an OpenSSH public key: ssh-<x>, ecdsa-sha2-<x> or sk-<x>.
bool key_type(std::string_view t) {
  auto tail_ok = [](std::string_view tail, bool (*ok)(char)) {
    return !tail.empty() && all_of(tail, ok);
  };
  if (t.rfind("ecdsa-sha2-", 0) == 0) return tail_ok(t.substr(11), lower_alnum);
  if (t.rfind("ssh-", 0) == 0) return tail_ok(t.substr(4), lower_alnum);
  if (t.rfind("sk-", 0) == 0) {
    return tail_ok(t.substr(3),
                   [](char c) { return lower_alnum(c) || c == '@' || c == '.' || c == '-'; });
  }
  return false;
}

// Base64 data: [A-Za-z0-9+/]+ then at most three '='.
bool key_data(std::string_view d) {
  auto pad = d.find('=');
  auto body = d.substr(0, pad);
  if (body.empty()) return false;
  for (char c : body) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
          c == '/')) {
      return false;
    }
  }
  if (pad == std::string_view::npos) return true;
  auto padding = d.substr(pad);
  return padding.size() <= 3 && padding.find_first_not_of('=') == std::string_view::npos;
}

// "ssh-ed25519 AAAA... comment": a type, base64 data, an optional comment, one line.
bool looks_like_public_key(std::string_view key) {
  if (key.find_first_of("\r\n") != std::string_view::npos) return false;
  auto first = key.find(' ');
  if (first == std::string_view::npos) return false;
  auto rest = key.substr(first + 1);
  auto second = rest.find(' ');
  return key_type(key.substr(0, first)) && key_data(rest.substr(0, second));
}

kp::error invalid(const kube::proxmox_node_class& nc, const std::string& field,
                  const std::string& why) {
  return make_error("invalid_node_class",
                    "ProxmoxNodeClass " + nc.metadata.name + " " + field + ": " + why);
}

}  // namespace

status validate_kproximate_fields(const kube::proxmox_node_class& node_class) {
  const auto& spec = node_class.spec;
  const auto& md = spec.metadata;
  if (!md.type.empty() && md.type != "none" && md.type != "cdrom" && md.type != "guestAgent") {
    return invalid(node_class, "metadataOptions.type",
                   "\"" + md.type + "\" is not one of none, cdrom, guestAgent");
  }
  if (!md.join_command.empty()) {
    if (md.type != "guestAgent") {
      return invalid(node_class, "metadataOptions.joinCommand",
                     "is only used with metadataOptions.type guestAgent");
    }
    auto parsed = gotemplate::template_set::parse("metadataOptions.joinCommand", md.join_command);
    if (!parsed) return invalid(node_class, "metadataOptions.joinCommand", parsed.error().message);
  }
  // A sample host name: a template that cannot render or gives an invalid value fails here.
  if (auto labels = cloudinit::render_node_labels(spec.node_labels, node_class.metadata.name,
                                                  "pve1", "nodeclaim-abcde", "region");
      !labels) {
    return labels.error();
  }
  for (std::size_t i = 0; i < spec.ssh_keys.size(); ++i) {
    const auto& k = spec.ssh_keys[i];
    auto field = "sshKeys[" + std::to_string(i) + "]";
    if (!looks_like_public_key(k)) {
      return invalid(node_class, field,
                     "not one SSH public key (\"<type> <base64> [comment]\" on one line)");
    }
    if (md.type == "cdrom" && k.find(',') != std::string::npos) {
      return invalid(node_class, field,
                     "contains a comma, which the cloud-init SSHAuthorizedKeys value separates "
                     "keys with");
    }
  }
  return {};
}

cloudinit::join_plan make_join_plan(const kube::node_claim& claim,
                                    const kube::proxmox_node_class& node_class,
                                    std::string instance_type, std::string instance_family,
                                    std::string bootstrap_token, std::string endpoint,
                                    std::string ca_pem, std::map<std::string, std::string> values) {
  cloudinit::join_plan p;
  p.node_class = node_class.metadata.name;
  p.command_template = node_class.spec.metadata.join_command.empty()
                           ? std::string(cloudinit::default_join_command)
                           : node_class.spec.metadata.join_command;
  p.node_name = claim.metadata.name;
  p.endpoint = std::move(endpoint);
  p.bootstrap_token = std::move(bootstrap_token);
  p.ca_pem = std::move(ca_pem);
  p.labels = claim.metadata.labels;
  p.labels[instance_type_label] = instance_type;
  p.labels[capacity_type_label] = "on-demand";
  if (!instance_family.empty()) p.labels[instance_family_label] = instance_family;
  p.labels[node_class_label] = node_class.metadata.name;
  for (const auto& t : claim.spec.taints) p.taints.push_back({t.key, t.value, t.effect});
  for (const auto& t : claim.spec.startup_taints) p.taints.push_back({t.key, t.value, t.effect});
  if (node_class.spec.kubelet && node_class.spec.kubelet->max_pods) {
    p.max_pods = *node_class.spec.kubelet->max_pods;
  }
  p.values = std::move(values);
  p.node_label_templates = node_class.spec.node_labels;
  return p;
}

void add_ssh_keys_to_values(std::map<std::string, std::string>& values,
                            const std::vector<std::string>& ssh_keys) {
  if (ssh_keys.empty()) return;
  auto& joined = values["SSHAuthorizedKeys"];
  for (const auto& k : ssh_keys) joined += (joined.empty() ? "" : ",") + k;
}

std::map<std::string, std::string> node_labels_to_apply(
    const kube::node& node, const kube::node_claim& claim,
    const kube::proxmox_node_class& node_class) {
  std::map<std::string, std::string> out;
  auto zone = claim.metadata.labels.find(zone_label);
  if (node_class.spec.node_labels.empty() || zone == claim.metadata.labels.end()) return out;
  auto region = claim.metadata.labels.find(region_label);
  auto rendered = cloudinit::render_node_labels(
      node_class.spec.node_labels, node_class.metadata.name, zone->second, claim.metadata.name,
      region == claim.metadata.labels.end() ? "" : region->second);
  if (!rendered) return out;
  for (const auto& [k, v] : *rendered) {
    auto have = node.metadata.labels.find(k);
    if (have == node.metadata.labels.end() || have->second != v) out[k] = v;
  }
  return out;
}

}  // namespace kp::actors::nodeclaim
