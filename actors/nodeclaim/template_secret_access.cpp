#include "actors/nodeclaim/template_secret_access.hpp"

#include <algorithm>

#include "config/secret_namespaces.hpp"

namespace kp::actors::nodeclaim {

template_secret_scope template_secret_scope_of(const config::settings& s) {
  return {s.system_namespace, config::template_secret_namespaces(s, "")};
}

std::string secret_namespace(const kube::secret_reference& ref,
                             const template_secret_scope& scope) {
  return ref.namespace_.empty() ? scope.system_namespace : ref.namespace_;
}

std::optional<std::string> refuse_template_secret(std::string_view field,
                                                  const kube::secret_reference& ref,
                                                  const template_secret_scope& scope) {
  const auto ns = secret_namespace(ref, scope);
  const auto& allowed = scope.namespaces;
  if (std::find(allowed.begin(), allowed.end(), ns) != allowed.end()) return std::nullopt;
  std::string list;
  for (const auto& n : allowed) list += (list.empty() ? "" : ", ") + n;
  return std::string(field) + " Secret " + ns + "/" + ref.name +
         " is outside TEMPLATE_SECRET_NAMESPACES (" + list +
         "): move the Secret there or add namespace " + ns + " to the setting";
}

}  // namespace kp::actors::nodeclaim
