#include "actors/nodeclaim/agent_join.hpp"

#include <regex>

#include "actors/nodeclaim/launch_plan.hpp"
#include "core/gotemplate/template_set.hpp"

namespace kp::actors::nodeclaim {

const char* const default_join_command =
    "kube-join server={{ .Kubernetes.Endpoint }} token={{ .Kubernetes.BootstrapToken }}"
    "{{ with .Kubernetes.CA }} ca={{ . }}{{ end }}"
    "{{ with .Kubernetes.Labels }} labels={{ . }}{{ end }}"
    "{{ with .Kubernetes.Taints }} taints={{ . }}{{ end }}"
    "{{ with .Kubernetes.MaxPods }} max-pods={{ . }}{{ end }}";

namespace {

using gotemplate::value;

// Label syntax as the API server checks it (apimachinery validation): an optional DNS-subdomain
// prefix and a name of at most 63 characters; values likewise, possibly empty.
bool valid_label_name(const std::string& s) {
  static const std::regex re("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$");
  return !s.empty() && s.size() <= 63 && std::regex_match(s, re);
}

bool valid_label_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return valid_label_name(key);
  auto prefix = key.substr(0, slash);
  static const std::regex dns("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  return !prefix.empty() && prefix.size() <= 253 && std::regex_match(prefix, dns) &&
         valid_label_name(key.substr(slash + 1));
}

// Labels every launch sets from the claim and the placement: a node class may not contradict
// them (the claim and its Node would disagree).
bool set_by_controller(const std::string& key) {
  return key == zone_label || key == region_label || key == instance_type_label ||
         key.rfind("karpenter.sh/", 0) == 0 || key.rfind("karpenter.proxmox.sinextra.dev/", 0) == 0;
}

bool valid_label_value(const std::string& v) {
  return v.empty() || valid_label_name(v);
}

// "ssh-ed25519 AAAA... comment": a type, base64 data, an optional comment, one line.
bool looks_like_public_key(const std::string& key) {
  static const std::regex re(
      "^(ssh-[a-z0-9]+|ecdsa-sha2-[a-z0-9]+|sk-[a-z0-9@.-]+) [A-Za-z0-9+/]+={0,3}( [^\r\n]*)?$");
  return std::regex_match(key, re);
}

kp::error invalid(const kube::proxmox_node_class& nc, const std::string& field,
                  const std::string& why) {
  return make_error("invalid_node_class",
                    "ProxmoxNodeClass " + nc.metadata.name + " " + field + ": " + why);
}

std::string label_field(const std::string& key) {
  return "nodeLabels[\"" + key + "\"]";
}

std::string join_list(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string taint_list(const std::vector<kube::taint>& taints) {
  std::string out;
  for (const auto& t : taints) {
    out +=
        (out.empty() ? "" : ",") + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
  }
  return out;
}

}  // namespace

std::string base64_encode(const std::string& bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
             (static_cast<unsigned char>(bytes[i + 1]) << 8) |
             static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

result<std::map<std::string, std::string>> render_node_labels(
    const kube::proxmox_node_class& node_class, const std::string& target_host,
    const std::string& node_name, const std::string& region) {
  std::map<std::string, std::string> out;
  if (node_class.spec.node_labels.empty()) return out;
  auto data =
      value::map({{"TargetHost", target_host}, {"NodeName", node_name}, {"Region", region}});
  for (const auto& [key, text] : node_class.spec.node_labels) {
    auto field = label_field(key);
    if (!valid_label_key(key)) return invalid(node_class, field, "not a valid label key");
    if (set_by_controller(key)) {
      return invalid(node_class, field, "is set by the controller for every node");
    }
    auto rendered = gotemplate::render_template(field, text, data);
    if (!rendered) return invalid(node_class, field, rendered.error().message);
    if (!valid_label_value(*rendered)) {
      return invalid(node_class, field,
                     "renders to \"" + *rendered + "\" for host " + target_host +
                         ", not a valid label value (at most 63 characters of [A-Za-z0-9._-], "
                         "starting and ending alphanumeric)");
    }
    out[key] = *rendered;
  }
  return out;
}

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
  if (auto labels = render_node_labels(node_class, "pve1", "nodeclaim-abcde", "region"); !labels) {
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

join_plan make_join_plan(const kube::node_claim& claim, const kube::proxmox_node_class& node_class,
                         std::string instance_type, std::string instance_family,
                         std::string bootstrap_token, std::string endpoint, std::string ca_pem,
                         std::map<std::string, std::string> values) {
  join_plan p;
  p.node_class = node_class.metadata.name;
  p.command_template = node_class.spec.metadata.join_command.empty()
                           ? std::string(default_join_command)
                           : node_class.spec.metadata.join_command;
  p.node_name = claim.metadata.name;
  p.endpoint = std::move(endpoint);
  p.bootstrap_token = std::move(bootstrap_token);
  p.ca_pem = std::move(ca_pem);
  p.instance_type = std::move(instance_type);
  p.instance_family = std::move(instance_family);
  p.labels = claim.metadata.labels;
  p.taints = claim.spec.taints;
  for (const auto& t : claim.spec.startup_taints) p.taints.push_back(t);
  if (node_class.spec.kubelet) p.max_pods = node_class.spec.kubelet->max_pods;
  p.values = std::move(values);
  p.node_labels = node_class.spec.node_labels;
  return p;
}

result<std::string> render_join(const join_plan& plan, const std::string& region,
                                const std::string& zone, std::uint32_t vmid) {
  kube::proxmox_node_class nc;
  nc.metadata.name = plan.node_class;
  nc.spec.node_labels = plan.node_labels;
  auto rendered_labels = render_node_labels(nc, zone, plan.node_name, region);
  if (!rendered_labels) {
    return make_error("template_error", rendered_labels.error().message);
  }
  auto labels = plan.labels;
  labels[zone_label] = zone;
  labels[region_label] = region;
  labels[instance_type_label] = plan.instance_type;
  labels[capacity_type_label] = "on-demand";
  if (!plan.instance_family.empty()) labels[instance_family_label] = plan.instance_family;
  labels[node_class_label] = plan.node_class;
  for (const auto& [k, v] : *rendered_labels) labels[k] = v;
  auto provider = protocol::format_provider_id(region, vmid);
  auto k8s = value::map({{"Endpoint", plan.endpoint},
                         {"BootstrapToken", plan.bootstrap_token},
                         {"CA", plan.ca_pem.empty() ? "" : base64_encode(plan.ca_pem)},
                         {"CAPEM", plan.ca_pem},
                         {"Labels", join_list(labels)},
                         {"Taints", taint_list(plan.taints)},
                         {"MaxPods", plan.max_pods ? std::to_string(*plan.max_pods) : ""}});
  auto data = value::map({{"Kubernetes", k8s},
                          {"TargetHost", zone},
                          {"NodeName", plan.node_name},
                          {"Region", region},
                          {"VMID", static_cast<std::int64_t>(vmid)},
                          {"ProviderID", provider},
                          {"Values", value::from_string_map(plan.values)}});
  auto out =
      gotemplate::render_template("metadataOptions.joinCommand", plan.command_template, data);
  if (!out) {
    return make_error("template_error",
                      "node class " + plan.node_class + ": " + out.error().message);
  }
  return out;
}

void attach_join(protocol::launch_request& request, std::shared_ptr<const join_plan> plan) {
  request.render_join = [plan](const std::string& region, const std::string& zone,
                               std::uint32_t vmid) {
    return render_join(*plan, region, zone, vmid);
  };
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
  auto rendered = render_node_labels(node_class, zone->second, claim.metadata.name,
                                     region == claim.metadata.labels.end() ? "" : region->second);
  if (!rendered) return out;
  for (const auto& [k, v] : *rendered) {
    auto have = node.metadata.labels.find(k);
    if (have == node.metadata.labels.end() || have->second != v) out[k] = v;
  }
  return out;
}

}  // namespace kp::actors::nodeclaim
