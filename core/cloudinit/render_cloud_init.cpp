#include "core/cloudinit/render_cloud_init.hpp"

#include "core/cloudinit/default_templates.hpp"
#include "core/gotemplate/template_set.hpp"

namespace kp::cloudinit {

namespace {

result<std::string> render_document(const template_sources& sources, const std::string& key,
                                    std::string_view fallback, const gotemplate::value& data) {
  auto found = sources.documents.find(key);
  bool from_user = found != sources.documents.end();
  std::string_view text = from_user ? std::string_view(found->second) : fallback;
  auto rendered = gotemplate::render_template(key, text, data);
  if (!rendered) {
    std::string where =
        from_user ? sources.origin + " key " + key : "built-in " + key + " template";
    return make_error("template_error", where + ": " + rendered.error().message);
  }
  return rendered;
}

}  // namespace

result<nocloud_files> render_cloud_init(const template_sources& sources,
                                        const cloud_init_inputs& inputs) {
  nocloud_files files;
  auto user_data =
      render_document(sources, "user-data", default_user_data, user_data_values(inputs));
  if (!user_data) return user_data.error();
  files.user_data = std::move(*user_data);

  auto meta_data =
      render_document(sources, "meta-data", default_meta_data, meta_data_values(inputs));
  if (!meta_data) return meta_data.error();
  files.meta_data = std::move(*meta_data);

  if (sources.documents.count("network-config") || !inputs.interfaces.empty()) {
    auto network = render_document(sources, "network-config", default_network_config,
                                   network_config_values(inputs));
    if (!network) return network.error();
    files.network_config = std::move(*network);
  }
  if (sources.documents.count("vendor-data")) {
    auto vendor = render_document(sources, "vendor-data", "", meta_data_values(inputs));
    if (!vendor) return vendor.error();
    files.vendor_data = std::move(*vendor);
  }
  return files;
}

}  // namespace kp::cloudinit
