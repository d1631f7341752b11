// The CSR approver and signer: kubelet client CSRs (signer
// kubernetes.io/kube-apiserver-client-kubelet) asking for CN=system:node:<name>,
// O=system:nodes are approved automatically when a bootstrapper (or that very node, renewing)
// asked; every approved CSR for a client signer is then signed by the cluster CA, so the
// certificate authenticates as system:node:<name> over mTLS.
#include <algorithm>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

constexpr std::string_view kKubeletSigner = "kubernetes.io/kube-apiserver-client-kubelet";
constexpr std::string_view kClientSigner = "kubernetes.io/kube-apiserver-client";

bool has_condition(const json::object& csr, std::string_view type) {
  if (const auto* cs = array_at(csr, {"status", "conditions"}))
    for (const auto& c : *cs)
      if (c.is_object() && string_at(c.get_object(), {"type"}) == type) return true;
  return false;
}

class csr_signer final : public controller {
 public:
  const char* name() const override { return "csr-signer"; }

  void reconcile(controller_context& ctx) override {
    const auto* csrs = ctx.ops.store().objects("certificates.k8s.io/certificatesigningrequests");
    if (!csrs || csrs->empty()) return;
    std::vector<object_ptr> work;
    for (const auto& [k, c] : *csrs)
      if (string_at(c->object, {"status", "certificate"}).empty() &&
          !has_condition(c->object, "Denied") && !has_condition(c->object, "Failed"))
        work.push_back(c);
    const auto& type = builtin_type(ctx.ops, "certificates.k8s.io", "certificatesigningrequests");
    auto now = format_time(ctx.now);
    for (const auto& c : work) {
      json::object next = c->object;
      const auto& o = c->object;
      auto signer = string_at(o, {"spec", "signerName"});
      auto pem = base64_decode(string_at(o, {"spec", "request"})).value_or("");
      if (!has_condition(o, "Approved") && signer == kKubeletSigner) {
        auto subject = transport::csr_subject(pem);
        if (!subject) {
          fail(next, "the CSR could not be parsed", now);
          ctx.ops.write(type, std::move(next));
          continue;
        }
        const auto& [cn, orgs] = subject.value();
        std::string username(string_at(o, {"spec", "username"}));
        bool bootstrapper = false;
        if (const auto* gs = array_at(o, {"spec", "groups"}))
          for (const auto& g : *gs)
            if (g.is_string() &&
                std::string_view(g.get_string()).rfind("system:bootstrappers", 0) == 0)
              bootstrapper = true;
        bool self_renewal = username == cn;
        bool shape = cn.rfind("system:node:", 0) == 0 && cn.size() > 12 && orgs.size() == 1 &&
                     orgs[0] == "system:nodes";
        if (shape && (bootstrapper || self_renewal)) {
          auto& conds = ensure_array(ensure_object(next, "status"), "conditions");
          conds.push_back(json::object{
              {"type", "Approved"},
              {"status", "True"},
              {"reason", "AutoApproved"},
              {"message", "Auto approving kubelet client certificate after SubjectAccessReview."},
              {"lastUpdateTime", now},
              {"lastTransitionTime", now}});
        }
      }
      if (has_condition(next, "Approved") &&
          (signer == kKubeletSigner || signer == kClientSigner)) {
        auto lifetime = ctx.settings.client_certificate_lifetime;
        if (const auto* e = find_path(o, {"spec", "expirationSeconds"}))
          if (auto s = as_int(*e); s && *s >= 600)
            lifetime = std::min(lifetime, std::chrono::hours(std::max<std::int64_t>(1, *s / 3600)));
        auto cert = ctx.ca.sign_client_csr(pem, lifetime);
        if (cert)
          ensure_object(next, "status")["certificate"] = base64_encode(cert.value());
        else
          fail(next, "signing failed: " + cert.error().message, now);
      }
      ctx.ops.write(type, std::move(next));
    }
  }

 private:
  static void fail(json::object& csr, const std::string& message, const std::string& now) {
    ensure_array(ensure_object(csr, "status"), "conditions")
        .push_back(json::object{{"type", "Failed"},
                                {"status", "True"},
                                {"reason", "SignerValidationFailure"},
                                {"message", message},
                                {"lastUpdateTime", now},
                                {"lastTransitionTime", now}});
  }
};

}  // namespace

std::unique_ptr<controller> make_csr_signer() {
  return std::make_unique<csr_signer>();
}

}  // namespace kp::sim::kube
