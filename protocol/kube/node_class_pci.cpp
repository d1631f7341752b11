#include "protocol/kube/node_class_pci.hpp"

#include <cctype>
#include <string>
#include <string_view>

namespace kp::kube {
namespace {

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Proxmox's pve-configid: a letter, then letters, digits, '_' or '-'.
bool config_id(std::string_view id) {
  if (id.size() < 2 || id.size() > 128 || !std::isalpha(static_cast<unsigned char>(id[0])))
    return false;
  for (char c : id)
    if (!alnum(c) && c != '_' && c != '-') return false;
  return true;
}

// A DNS-1123 subdomain: dot-separated labels of lowercase letters, digits and inner '-'.
bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto dot = s.find('.', start);
    auto label = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || label.size() > 63 || !lower_alnum(label.front()) ||
        !lower_alnum(label.back()))
      return false;
    for (char c : label)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

// The name part of a qualified name: alphanumerics with inner '-', '_' or '.', at most 63.
bool qualified_name_part(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

// An extended resource name: domain/name with the domain outside kubernetes.io, which
// Kubernetes keeps for its own resources.
bool extended_resource_name(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos || s.find('/', slash + 1) != std::string_view::npos)
    return false;
  auto domain = s.substr(0, slash);
  if (!dns_subdomain(domain) || !qualified_name_part(s.substr(slash + 1))) return false;
  constexpr std::string_view reserved = "kubernetes.io";
  const bool in_reserved = domain == reserved ||
                           (domain.size() > reserved.size() &&
                            domain.substr(domain.size() - reserved.size() - 1) == ".kubernetes.io");
  return !in_reserved;
}

bool mdev_type(std::string_view s) {
  if (s.empty() || s.size() > 64 || !alnum(s.front())) return false;
  for (char c : s)
    if (!alnum(c) && c != '_' && c != '-') return false;
  return true;
}

kp::error invalid(const std::string& field, const std::string& value, const std::string& why) {
  return make_error("invalid_node_class", field + " \"" + value + "\": " + why);
}

}  // namespace

result<std::vector<placement::pci_device_need>> pci_device_needs(const proxmox_node_class& nc) {
  std::vector<placement::pci_device_need> out;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < nc.spec.pci_devices.size(); ++i) {
    const auto& d = nc.spec.pci_devices[i];
    const auto field = "pciDevices[" + std::to_string(i) + "]";
    if (!config_id(d.mapping))
      return invalid(field + ".mapping", d.mapping,
                     "not a Proxmox resource mapping id (a letter, then letters, digits, '_' or "
                     "'-')");
    if (!extended_resource_name(d.resource_name))
      return invalid(field + ".resourceName", d.resource_name,
                     "not a qualified extended resource name outside kubernetes.io (domain/name, "
                     "e.g. nvidia.com/gpu)");
    const std::int64_t count = d.count.value_or(1);
    if (count < 1 || count > max_pci_devices)
      return invalid(field + ".count", std::to_string(count),
                     "must be between 1 and " + std::to_string(max_pci_devices));
    if (!d.mdev.empty() && !mdev_type(d.mdev))
      return invalid(field + ".mdev", d.mdev,
                     "not a mediated device type (letters, digits, '_' or '-', e.g. "
                     "i915-GVTg_V5_4)");
    total += count;
    if (total > max_pci_devices)
      return invalid(field + ".count", std::to_string(count),
                     "the class's devices add up to more than Proxmox's " +
                         std::to_string(max_pci_devices) + " hostpci slots");
    out.push_back(
        {d.mapping, d.resource_name, static_cast<int>(count), d.pcie.value_or(false), d.mdev});
  }
  return out;
}

}  // namespace kp::kube
