// JSON fields of karpenter.sh/v1alpha1 NodeOverlay.
// GCC 12 reports false -Warray-bounds / -Wstringop-overflow / -Wstringop-overread in
// std::string's small-buffer copy when decode_list builds "NodeOverlayList" (15 characters,
// exactly the small-buffer size) into an error text (GCC bugs 105329, 105651); nothing here
// reads or writes out of bounds.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include "protocol/kube/codec_impl.hpp"

namespace kp::kube::codec {

template <class IO>
void fields(IO& io, node_overlay_spec& v) {
  io("requirements", v.requirements);
  io("priceAdjustment", v.price_adjustment);
  io("price", v.price);
  io("capacity", v.capacity, {.number_as_text = true});
  io("weight", v.weight);
}

template <class IO>
void fields(IO& io, node_overlay_status& v) {
  io("conditions", v.conditions);
}

template <class IO>
void fields(IO& io, node_overlay& v) {
  io("metadata", v.metadata);
  io("spec", v.spec, {.required = true});
  io("status", v.status);
}

}  // namespace kp::kube::codec

KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_overlay_spec)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_overlay_status)
KP_KUBE_INSTANTIATE_FIELDS(kp::kube::node_overlay)
KP_KUBE_INSTANTIATE_CODEC(kp::kube::node_overlay)
