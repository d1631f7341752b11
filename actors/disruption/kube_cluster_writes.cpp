#include <algorithm>

#include "actors/disruption/cluster_writes.hpp"
#include "core/model/labels.hpp"
#include "protocol/kube/client.hpp"
#include "protocol/kube/core_v1.hpp"
#include "protocol/kube/model_translation.hpp"
#include "protocol/kube/patches.hpp"

namespace kp::actors::disruption {
namespace {

class kube_writes final : public cluster_writes {
 public:
  kube_writes(std::shared_ptr<kube::client> c, std::function<std::int64_t()> clock)
      : client_(std::move(c)), clock_(std::move(clock)) {}

  void taint_disrupted(const std::string& node, bool on, done d) override {
    const std::string key(model::taint_keys::disrupted);
    // Read-modify-write with the resourceVersion (retried on conflict): the kubelet and the
    // node lifecycle controller write taints too, and a blind patch would drop theirs.
    client_->update_with_retry<kube::node>(
        {"", node},
        [key, on](kube::node& n) {
          auto& taints = n.spec.taints;
          auto it = std::find_if(taints.begin(), taints.end(), [&](const kube::taint& t) {
            return t.key == key && t.effect == "NoSchedule";
          });
          if (on == (it != taints.end())) return false;
          if (on)
            taints.push_back({key, "", "NoSchedule", ""});
          else
            taints.erase(it);
          return true;
        },
        [d](result<kube::node> r) { d(r ? status{} : status{r.error()}); });
  }

  void create_nodeclaim(const kube::node_claim& claim, done d) override {
    client_->create<kube::node_claim>(
        claim, [d](result<kube::node_claim> r) { d(r ? status{} : status{r.error()}); });
  }

  void delete_nodeclaim(const std::string& name, done d) override {
    client_->remove<kube::node_claim>({"", name}, {}, [d](status s) {
      if (!s && s.error().code == "not_found") return d(status{});
      d(std::move(s));
    });
  }

  void annotate_nodeclaim(const std::string& name, const std::map<std::string, std::string>& set,
                          done d) override {
    kube::string_map m(set.begin(), set.end());
    client_->patch<kube::node_claim>(
        {"", name}, kube::patch_type::merge, kube::annotations_merge_patch(m, {}),
        [d](result<kube::node_claim> r) { d(r ? status{} : status{r.error()}); });
  }

  void mark_disruption_reason(const std::string& name, condition_reason reason,
                              const std::string& message, done d) override {
    auto c = client_;
    const auto now = kube::format_rfc3339(clock_());
    // GET first so that the status patch carries every other condition as it is now.
    c->get<kube::node_claim>(
        {"", name}, [c, name, reason, message, now, d](result<kube::node_claim> got) {
          if (!got) return d(status{got.error()});
          auto claim = std::move(*got);
          auto& conds = claim.status.conditions;
          auto it = std::find_if(conds.begin(), conds.end(), [](const kube::condition& x) {
            return x.type == "DisruptionReason";
          });
          if (it == conds.end()) it = conds.insert(conds.end(), kube::condition{});
          it->type = "DisruptionReason";
          it->status = "True";
          it->reason = reason.str();
          it->message = message;
          it->last_transition_time = now;
          it->observed_generation = claim.metadata.generation;
          c->patch<kube::node_claim>(
              {"", name}, kube::patch_type::merge, kube::node_claim_status_merge_patch(claim),
              [d](result<kube::node_claim> r) { d(r ? status{} : status{r.error()}); }, "status");
        });
  }

 private:
  std::shared_ptr<kube::client> client_;
  std::function<std::int64_t()> clock_;
};

}  // namespace

std::shared_ptr<cluster_writes> kube_cluster_writes(std::shared_ptr<kube::client> client,
                                                    std::function<std::int64_t()> wall_clock_ms) {
  return std::make_shared<kube_writes>(std::move(client), std::move(wall_clock_ms));
}

}  // namespace kp::actors::disruption
