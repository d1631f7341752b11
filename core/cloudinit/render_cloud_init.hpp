#pragma once
// Renders the NoCloud documents of one VM: each of user-data, meta-data, network-config and
// vendor-data from the node class's template Secret when it has that key, else from the
// built-in default (vendor-data has none and is then left out; network-config is left out when
// the VM has no interface data).
#include <map>
#include <string>

#include "core/cloudinit/nocloud_iso.hpp"
#include "core/cloudinit/template_data.hpp"
#include "core/result.hpp"

namespace kp::cloudinit {

struct template_sources {
  std::string origin;  // where the templates come from, for errors: "Secret kube-system/tmpl"
  std::map<std::string, std::string> documents;  // key ("user-data", ...) -> template text
};

// A template that fails to parse or execute is a "template_error" naming the origin, the key,
// the line and Go's reason: `Secret kube-system/tmpl key user-data: template: user-data:3: ...`.
result<nocloud_files> render_cloud_init(const template_sources& sources,
                                        const cloud_init_inputs& inputs);

}  // namespace kp::cloudinit
