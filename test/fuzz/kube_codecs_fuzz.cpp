// The Kubernetes codecs for Pod, Node, NodeClaim, NodePool and ProxmoxNodeClass, from any
// body an API server (or a watch line) could send: decoding never crashes, what decodes
// encodes into JSON that decodes again, and the translation into the scheduler's model either
// succeeds or names what is wrong.
#include "core/model/pod.hpp"
#include "protocol/kube/codec.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/karpenter_v1.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "test/fuzz/fuzz_check.hpp"

namespace {

template <class T>
const T* decoded(std::string_view json, kp::result<T>& slot) {
  slot = kp::kube::decode<T>(json);
  if (!slot) return nullptr;
  auto again = kp::kube::decode<T>(kp::kube::encode(*slot));
  kp::fuzz::check(again.ok(), "a decoded object encodes into JSON that decodes");
  return &*slot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto json = kp::fuzz::text_of(data, size);
  kp::result<kp::kube::pod> pod = kp::make_error("", "");
  if (const auto* p = decoded(json, pod)) {
    if (auto m = kp::kube::to_model(*p)) (void)kp::model::checked_pod_requests(*m);
  }
  kp::result<kp::kube::node> node = kp::make_error("", "");
  if (const auto* n = decoded(json, node)) (void)kp::kube::to_model(*n);
  kp::result<kp::kube::node_claim> claim = kp::make_error("", "");
  if (const auto* c = decoded(json, claim)) (void)kp::kube::to_model(*c);
  kp::result<kp::kube::node_pool> pool = kp::make_error("", "");
  if (const auto* p = decoded(json, pool)) (void)kp::kube::to_model(*p);
  kp::result<kp::kube::proxmox_node_class> node_class = kp::make_error("", "");
  (void)decoded(json, node_class);
  return 0;
}
