#pragma once
// Whether the controller may read a node class's templatesRef/valuesRef Secret: only from the
// namespaces of TEMPLATE_SECRET_NAMESPACES (config/secret_namespaces.hpp). The node class status
// and the launch refuse a Secret elsewhere with the same words.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "protocol/kube/meta_types.hpp"

namespace kp::actors::nodeclaim {

struct template_secret_scope {
  std::string system_namespace;         // stands in for a reference without a namespace
  std::vector<std::string> namespaces;  // TEMPLATE_SECRET_NAMESPACES in force
};

// The scope the settings give; the controller resolves TEMPLATE_SECRET_NAMESPACES into its
// settings at start, and without it only SYSTEM_NAMESPACE is allowed.
template_secret_scope template_secret_scope_of(const config::settings& s);

// The namespace the reference points at.
std::string secret_namespace(const kube::secret_reference& ref, const template_secret_scope& scope);

// Why the Secret `field` names ("templatesRef", "valuesRef") may not be read; nothing when it may.
std::optional<std::string> refuse_template_secret(std::string_view field,
                                                  const kube::secret_reference& ref,
                                                  const template_secret_scope& scope);

}  // namespace kp::actors::nodeclaim
