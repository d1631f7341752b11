#include "sim/pve/guest_join_plan.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <exception>
#include <sstream>

#include "core/text/base64.hpp"
#include "sim/pve/number_text.hpp"

namespace kp::sim::pve {

namespace {

void add_labels(const std::string& list, std::map<std::string, std::string>& out) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
}

void add_taints(const std::string& list, std::vector<node_taint>& out) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos) continue;
    node_taint t;
    t.effect = item.substr(colon + 1);
    auto kv = item.substr(0, colon);
    auto eq = kv.find('=');
    t.key = kv.substr(0, eq);
    if (eq != std::string::npos) t.value = kv.substr(eq + 1);
    out.push_back(t);
  }
}

// Finds "--flag=value" (value up to whitespace or a quote) in free text.
std::string flag_value(const std::string& text, const std::string& flag) {
  auto p = text.find(flag + "=");
  if (p == std::string::npos) return "";
  p += flag.size() + 1;
  auto end = text.find_first_of(" \t\n\"'", p);
  return text.substr(p, end == std::string::npos ? std::string::npos : end - p);
}

std::string scalar(const YAML::Node& n) {
  return n && n.IsScalar() ? n.as<std::string>() : std::string();
}

}  // namespace

std::int64_t parse_cpu_millis(const std::string& text) {
  if (text.empty()) return 0;
  if (text.back() == 'm')
    return parse_number<std::int64_t>(std::string_view(text).substr(0, text.size() - 1))
        .value_or(0);
  auto cores = parse_number<double>(text);
  if (!cores || *cores < 0 || *cores > 1e12) return 0;
  return static_cast<std::int64_t>(*cores * 1000);
}

std::int64_t parse_memory_bytes(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  auto number = parse_number<double>(std::string_view(text).substr(0, i));
  if (!number) return 0;
  double v = *number;
  std::string unit = text.substr(i);
  double f = 1;
  if (unit == "Ki")
    f = 1024.0;
  else if (unit == "Mi")
    f = 1024.0 * 1024;
  else if (unit == "Gi")
    f = 1024.0 * 1024 * 1024;
  else if (unit == "Ti")
    f = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "k" || unit == "K")
    f = 1e3;
  else if (unit == "M")
    f = 1e6;
  else if (unit == "G")
    f = 1e9;
  else if (unit == "T")
    f = 1e12;
  return static_cast<std::int64_t>(v * f);
}

result<join_plan> join_plan_from_user_data(const std::string& user_data) {
  if (user_data.rfind("#cloud-config", 0) != 0)
    return make_error("not_cloud_config", "user-data is not a #cloud-config document");
  join_plan plan;
  std::string kubeconfig, kubelet_config, all_text;
  try {
    YAML::Node doc = YAML::Load(user_data);
    for (const auto& f : doc["write_files"]) {
      std::string path = scalar(f["path"]);
      std::string content = scalar(f["content"]);
      std::string encoding = scalar(f["encoding"]);
      if (encoding == "b64" || encoding == "base64")
        content = text::base64_decode(content).value_or("");
      if (path == "/var/lib/kubelet/bootstrap-kubeconfig") kubeconfig = content;
      if (path == "/var/lib/kubelet/config.yaml") kubelet_config = content;
      all_text += content + "\n";
    }
    for (const auto& cmd : doc["runcmd"]) {
      if (cmd.IsScalar())
        all_text += cmd.as<std::string>() + "\n";
      else
        for (const auto& part : cmd) all_text += scalar(part) + " ";
    }
  } catch (const std::exception& e) {
    return make_error("invalid_user_data", std::string("user-data is not valid YAML: ") + e.what());
  }
  if (kubeconfig.empty())
    return make_error("missing_file", "user-data writes no /var/lib/kubelet/bootstrap-kubeconfig");
  if (kubelet_config.empty())
    return make_error("missing_file", "user-data writes no /var/lib/kubelet/config.yaml");
  try {
    YAML::Node kc = YAML::Load(kubeconfig);
    auto cluster = kc["clusters"][0]["cluster"];
    plan.server = scalar(cluster["server"]);
    plan.ca_pem = text::base64_decode(scalar(cluster["certificate-authority-data"])).value_or("");
    plan.token = scalar(kc["users"][0]["user"]["token"]);
  } catch (const std::exception& e) {
    return make_error("invalid_kubeconfig", std::string("bootstrap-kubeconfig: ") + e.what());
  }
  if (plan.server.empty())
    return make_error("invalid_kubeconfig", "bootstrap-kubeconfig has no server");
  if (plan.token.empty())
    return make_error("invalid_kubeconfig", "bootstrap-kubeconfig has no token");
  try {
    YAML::Node kc = YAML::Load(kubelet_config);
    plan.provider_id = scalar(kc["providerID"]);
    for (const auto& t : kc["registerWithTaints"])
      plan.taints.push_back({scalar(t["key"]), scalar(t["value"]), scalar(t["effect"])});
    if (kc["maxPods"]) plan.max_pods = kc["maxPods"].as<int>();
    for (const char* section : {"kubeReserved", "systemReserved"}) {
      plan.reserved_cpu_millis += parse_cpu_millis(scalar(kc[section]["cpu"]));
      plan.reserved_memory_bytes += parse_memory_bytes(scalar(kc[section]["memory"]));
    }
    plan.reserved_memory_bytes +=
        parse_memory_bytes(scalar(kc["evictionHard"]["memory.available"]));
    for (const auto& kv : kc["nodeLabels"])
      plan.labels[kv.first.as<std::string>()] = scalar(kv.second);
  } catch (const std::exception& e) {
    return make_error("invalid_kubelet_config", std::string("kubelet config.yaml: ") + e.what());
  }
  add_labels(flag_value(all_text, "--node-labels"), plan.labels);
  add_taints(flag_value(all_text, "--register-with-taints"), plan.taints);
  return plan;
}

result<join_plan> join_plan_from_command(const std::string& command) {
  auto p = command.find("kube-join");
  if (p == std::string::npos) return make_error("not_join", "not a kube-join command");
  std::stringstream ss(command.substr(p + 9));
  std::string word;
  join_plan plan;
  while (ss >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    auto key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "server")
      plan.server = value;
    else if (key == "token")
      plan.token = value;
    else if (key == "ca")
      plan.ca_pem = text::base64_decode(value).value_or("");
    else if (key == "labels")
      add_labels(value, plan.labels);
    else if (key == "taints")
      add_taints(value, plan.taints);
    else if (key == "max-pods")
      plan.max_pods = parse_number<int>(value).value_or(plan.max_pods);
  }
  if (plan.server.empty() || plan.token.empty())
    return make_error("invalid_join", "kube-join needs server= and token=");
  return plan;
}

}  // namespace kp::sim::pve
