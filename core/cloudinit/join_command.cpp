#include "core/cloudinit/join_command.hpp"

#include "core/gotemplate/template_set.hpp"
#include "core/model/labels.hpp"
#include "core/text/base64.hpp"

namespace kp::cloudinit {

const char* const default_join_command =
    "kube-join server={{ .Kubernetes.Endpoint }} token={{ .Kubernetes.BootstrapToken }}"
    "{{ with .Kubernetes.CA }} ca={{ . }}{{ end }}"
    "{{ with .Kubernetes.Labels }} labels={{ . }}{{ end }}"
    "{{ with .Kubernetes.Taints }} taints={{ . }}{{ end }}"
    "{{ with .Kubernetes.MaxPods }} max-pods={{ . }}{{ end }}";

namespace {

using gotemplate::value;

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// A label name: at most 63 characters of [A-Za-z0-9._-], starting and ending alphanumeric.
bool valid_label_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// A DNS subdomain: dot-separated labels of [a-z0-9-], each starting and ending alphanumeric.
bool valid_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  while (true) {
    auto dot = s.find('.');
    auto part = s.substr(0, dot);
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// Labels every launch sets from the claim and the placement: a node class may not contradict
// them (the claim and its Node would disagree).
bool set_by_controller(const std::string& key) {
  return key == model::labels::zone || key == model::labels::region ||
         key == model::labels::instance_type || key.rfind("karpenter.sh/", 0) == 0 ||
         key.rfind("karpenter.proxmox.sinextra.dev/", 0) == 0;
}

kp::error invalid(const std::string& node_class, const std::string& field, const std::string& why) {
  return make_error("invalid_node_class",
                    "ProxmoxNodeClass " + node_class + " " + field + ": " + why);
}

std::string join_list(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string taint_list(const std::vector<kubelet_taint>& taints) {
  std::string out;
  for (const auto& t : taints) {
    out +=
        (out.empty() ? "" : ",") + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect;
  }
  return out;
}

}  // namespace

bool valid_label_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return valid_label_name(key);
  return valid_dns_subdomain(std::string_view(key).substr(0, slash)) &&
         valid_label_name(std::string_view(key).substr(slash + 1));
}

bool valid_label_value(const std::string& v) {
  return v.empty() || valid_label_name(v);
}

result<std::map<std::string, std::string>> render_node_labels(
    const std::map<std::string, std::string>& templates, const std::string& node_class,
    const std::string& target_host, const std::string& node_name, const std::string& region) {
  std::map<std::string, std::string> out;
  if (templates.empty()) return out;
  auto data =
      value::map({{"TargetHost", target_host}, {"NodeName", node_name}, {"Region", region}});
  for (const auto& [key, text] : templates) {
    auto field = "nodeLabels[\"" + key + "\"]";
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

result<std::string> render_join_command(const join_plan& plan, const vm_placement& where) {
  auto rendered_labels = render_node_labels(plan.node_label_templates, plan.node_class, where.zone,
                                            plan.node_name, where.region);
  if (!rendered_labels) return make_error("template_error", rendered_labels.error().message);
  auto labels = plan.labels;
  labels[std::string(model::labels::zone)] = where.zone;
  labels[std::string(model::labels::region)] = where.region;
  for (const auto& [k, v] : *rendered_labels) labels[k] = v;
  auto k8s = value::map({{"Endpoint", plan.endpoint},
                         {"BootstrapToken", plan.bootstrap_token},
                         {"CA", plan.ca_pem.empty() ? "" : text::base64_encode(plan.ca_pem)},
                         {"CAPEM", plan.ca_pem},
                         {"Labels", join_list(labels)},
                         {"Taints", taint_list(plan.taints)},
                         {"MaxPods", plan.max_pods > 0 ? std::to_string(plan.max_pods) : ""}});
  auto data = value::map({{"Kubernetes", k8s},
                          {"TargetHost", where.zone},
                          {"NodeName", plan.node_name},
                          {"Region", where.region},
                          {"VMID", static_cast<std::int64_t>(where.vmid)},
                          {"ProviderID", where.provider_id},
                          {"Values", value::from_string_map(plan.values)}});
  auto out =
      gotemplate::render_template("metadataOptions.joinCommand", plan.command_template, data);
  if (!out) {
    return make_error("template_error",
                      "node class " + plan.node_class + ": " + out.error().message);
  }
  return out;
}

}  // namespace kp::cloudinit
