// The token cleaner: deletes bootstrap token Secrets whose `expiration` has passed.
#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {

namespace {

class token_cleaner final : public controller {
 public:
  const char* name() const override { return "token-cleaner"; }

  void reconcile(controller_context& ctx) override {
    const auto* secrets = ctx.ops.store().objects("/secrets");
    if (!secrets) return;
    std::vector<std::string> expired;
    for (auto it = secrets->lower_bound("kube-system/"); it != secrets->end(); ++it) {
      if (it->first.rfind("kube-system/", 0) != 0) break;
      const auto& s = it->second->object;
      if (string_at(s, {"type"}) != "bootstrap.kubernetes.io/token") continue;
      auto enc = string_at(s, {"data", "expiration"});
      if (enc.empty()) continue;
      auto when = parse_time(base64_decode(enc).value_or(""));
      if (when && *when <= ctx.now) expired.emplace_back(meta_name(s));
    }
    const auto& secret_type = builtin_type(ctx.ops, "", "secrets");
    for (const auto& name : expired) (void)ctx.ops.remove(secret_type, "kube-system", name, {});
  }
};

}  // namespace

std::unique_ptr<controller> make_token_cleaner() {
  return std::make_unique<token_cleaner>();
}

}  // namespace kp::sim::kube
