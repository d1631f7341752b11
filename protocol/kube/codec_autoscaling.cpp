// JSON fields of autoscaling.x-k8s.io/v1beta1 CapacityBuffer and core/v1 PodTemplate, and the
// buffer's status patch.
#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

namespace {
constexpr opts quantity{.number_as_text = true};
}

template <class IO>
void fields(IO& io, pod_template& v) {
  io("metadata", v.metadata);
  io("template", v.template_);
}

template <class IO>
void fields(IO& io, local_object_ref& v) {
  io("name", v.name, {.required = true});
}

template <class IO>
void fields(IO& io, scalable_object_ref& v) {
  io("apiGroup", v.api_group);
  io("kind", v.kind, {.required = true});
  io("name", v.name, {.required = true});
}

template <class IO>
void fields(IO& io, capacity_buffer_spec& v) {
  io("provisioningStrategy", v.provisioning_strategy);
  io("podTemplateRef", v.pod_template_ref);
  io("scalableRef", v.scalable_ref);
  io("replicas", v.replicas);
  io("percentage", v.percentage);
  io("limits", v.limits, quantity);
}

template <class IO>
void fields(IO& io, capacity_buffer_status& v) {
  io("podTemplateRef", v.pod_template_ref);
  io("replicas", v.replicas);
  io("podTemplateGeneration", v.pod_template_generation);
  io("conditions", v.conditions);
  io("provisioningStrategy", v.provisioning_strategy);
}

template <class IO>
void fields(IO& io, capacity_buffer& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

template <class IO>
void fields(IO& io, scale& v) {
  io("metadata", v.metadata);
  io.nested("spec", [&](auto& s) { s("replicas", v.spec_replicas); });
  io.nested("status", [&](auto& s) {
    s("replicas", v.status_replicas);
    s("selector", v.selector);
  });
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::pod_template)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::local_object_ref)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::scalable_object_ref)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::capacity_buffer_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::capacity_buffer_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::capacity_buffer)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::scale)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::pod_template)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::scale)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::capacity_buffer)

namespace kp::kube {

std::string capacity_buffer_status_merge_patch(const capacity_buffer_status& status) {
  capacity_buffer holder;
  holder.status = status;
  auto v = encode_value(holder);
  boost::json::object st;
  if (auto* s = v.as_object().if_contains("status"); s && s->is_object()) st = s->as_object();
  for (const char* key : {"podTemplateRef", "replicas", "podTemplateGeneration", "conditions",
                          "provisioningStrategy"})
    if (!st.contains(key)) st[key] = nullptr;
  boost::json::object out;
  out["status"] = std::move(st);
  return boost::json::serialize(out);
}

}  // namespace kp::kube
