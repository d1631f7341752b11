#pragma once
// TEMPLATE_SECRET_NAMESPACES: the namespaces whose Secrets a node class may name as templatesRef
// or valuesRef. The controller reads those Secrets with `get` only and only there, so creating a
// ProxmoxNodeClass never lets anyone make it copy a Secret from elsewhere onto a Proxmox ISO.
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "core/result.hpp"

namespace kp::config {

// "a, b,c" -> {a, b, c}: each a namespace name (DNS-1123 label), no duplicates; "" -> {}.
result<std::vector<std::string>> parse_namespace_list(std::string_view text);
std::string format_namespace_list(const std::vector<std::string>& names);

// The namespaces in force: the setting when given, else SYSTEM_NAMESPACE followed by
// `own_namespace` (the controller's, when known and different).
std::vector<std::string> template_secret_namespaces(const settings& s,
                                                    const std::string& own_namespace);

}  // namespace kp::config
