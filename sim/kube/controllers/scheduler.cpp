// The simulated kube-scheduler: binds pending pods to nodes that fit (resource requests against
// allocatable, taints and tolerations, nodeSelector, required node affinity, required pod
// affinity and anti-affinity, topology spread with DoNotSchedule) preferring the least allocated
// node, and marks the rest PodScheduled=False with reason Unschedulable, which is what an
// autoscaler watches for. Cordoned nodes take only pods tolerating
// node.kubernetes.io/unschedulable.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"
#include "sim/kube/quantity.hpp"
#include "sim/kube/selectors.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

struct node_info {
  object_ptr node;
  std::string name;
  const json::object* labels = nullptr;
  resource_amounts allocatable;
  resource_amounts used;
  std::int64_t pod_count = 0;
  std::vector<const json::object*> pods;
};

resource_amounts pod_requests(const json::object& pod) {
  resource_amounts total;
  if (const auto* cs = array_at(pod, {"spec", "containers"}))
    for (const auto& c : *cs)
      if (c.is_object())
        for (const auto& [k, v] :
             parse_resource_list(object_at(c.get_object(), {"resources", "requests"})))
          total[k] += v;
  if (const auto* cs = array_at(pod, {"spec", "initContainers"}))
    for (const auto& c : *cs)
      if (c.is_object())
        for (const auto& [k, v] :
             parse_resource_list(object_at(c.get_object(), {"resources", "requests"})))
          total[k] = std::max(total[k], v);
  for (const auto& [k, v] : parse_resource_list(object_at(pod, {"spec", "overhead"})))
    total[k] += v;
  return total;
}

std::string label_of(const json::object* labels, const std::string& key, bool& present) {
  const auto* v = labels ? labels->if_contains(key) : nullptr;
  present = v && v->is_string();
  return present ? std::string(v->get_string()) : std::string();
}

bool node_selector_ok(const json::object& pod, const node_info& n) {
  return node_affinity_matches(pod, n.node->object);
}

bool taints_ok(const json::object& pod, const node_info& n) {
  const auto* taints = array_at(n.node->object, {"spec", "taints"});
  if (!taints) return true;
  for (const auto& t : *taints) {
    const auto* to = t.if_object();
    if (!to) continue;
    auto effect = string_at(*to, {"effect"});
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    if (!tolerates(pod, *to)) return false;
  }
  return true;
}

bool resources_ok(const resource_amounts& req, const node_info& n) {
  auto pods_cap = n.allocatable.find("pods");
  if (pods_cap != n.allocatable.end() &&
      n.pod_count + 1 > static_cast<std::int64_t>(pods_cap->second))
    return false;
  for (const auto& [k, v] : req) {
    if (v <= 0) continue;
    auto a = n.allocatable.find(k);
    double cap = a == n.allocatable.end() ? 0 : a->second;
    auto u = n.used.find(k);
    double used = u == n.used.end() ? 0 : u->second;
    if (used + v > cap + 1e-9) return false;
  }
  return true;
}

// Pods matched by a pod (anti-)affinity term's selector, in the term's namespaces.
bool term_matches_pod(const json::object& term, const json::object& owner_pod,
                      const json::object& other) {
  auto sel = label_selector::from_object(object_at(term, {"labelSelector"}));
  if (!sel) return false;
  std::vector<std::string> namespaces;
  if (const auto* ns = array_at(term, {"namespaces"}))
    for (const auto& v : *ns)
      if (v.is_string()) namespaces.emplace_back(v.get_string());
  bool any_namespace = object_at(term, {"namespaceSelector"}) != nullptr;
  if (!any_namespace) {
    if (namespaces.empty()) namespaces.emplace_back(meta_namespace(owner_pod));
    if (std::find(namespaces.begin(), namespaces.end(), meta_namespace(other)) == namespaces.end())
      return false;
  }
  return sel.value().matches(object_at(other, {"metadata", "labels"}));
}

struct placement {
  const std::vector<node_info>& nodes;

  bool domain_has_match(const json::object& pod, const json::object& term, const std::string& key,
                        const std::string& value) const {
    for (const auto& n : nodes) {
      bool present = false;
      if (label_of(n.labels, key, present) != value || !present) continue;
      for (const auto* other : n.pods)
        if (term_matches_pod(term, pod, *other)) return true;
    }
    return false;
  }

  bool affinity_ok(const json::object& pod, const node_info& n) const {
    if (const auto* anti = array_at(pod, {"spec", "affinity", "podAntiAffinity",
                                          "requiredDuringSchedulingIgnoredDuringExecution"}))
      for (const auto& tv : *anti) {
        const auto* term = tv.if_object();
        if (!term) continue;
        std::string key(string_at(*term, {"topologyKey"}));
        bool present = false;
        auto value = label_of(n.labels, key, present);
        if (present && domain_has_match(pod, *term, key, value)) return false;
      }
    if (const auto* aff = array_at(pod, {"spec", "affinity", "podAffinity",
                                         "requiredDuringSchedulingIgnoredDuringExecution"}))
      for (const auto& tv : *aff) {
        const auto* term = tv.if_object();
        if (!term) continue;
        std::string key(string_at(*term, {"topologyKey"}));
        bool present = false;
        auto value = label_of(n.labels, key, present);
        if (!present) return false;
        if (!domain_has_match(pod, *term, key, value)) {
          // The first pod of a group that selects itself may go anywhere.
          bool anywhere = false;
          for (const auto& m : nodes)
            for (const auto* other : m.pods) anywhere |= term_matches_pod(*term, pod, *other);
          if (anywhere || !term_matches_pod(*term, pod, pod)) return false;
        }
      }
    return true;
  }

  bool spread_ok(const json::object& pod, const node_info& n) const {
    const auto* constraints = array_at(pod, {"spec", "topologySpreadConstraints"});
    if (!constraints) return true;
    for (const auto& cv : *constraints) {
      const auto* c = cv.if_object();
      if (!c || string_at(*c, {"whenUnsatisfiable"}) != "DoNotSchedule") continue;
      std::string key(string_at(*c, {"topologyKey"}));
      std::int64_t max_skew = 1;
      if (const auto* ms = c->if_contains("maxSkew")) max_skew = as_int(*ms).value_or(1);
      auto sel = label_selector::from_object(object_at(*c, {"labelSelector"}));
      if (!sel) continue;
      bool present = false;
      auto domain = label_of(n.labels, key, present);
      if (!present) return false;
      std::map<std::string, std::int64_t> counts;
      for (const auto& m : nodes) {
        if (!node_selector_ok(pod, m)) continue;
        bool has = false;
        auto d = label_of(m.labels, key, has);
        if (!has) continue;
        auto& count = counts[d];
        for (const auto* other : m.pods)
          if (meta_namespace(*other) == meta_namespace(pod) &&
              sel.value().matches(object_at(*other, {"metadata", "labels"})))
            ++count;
      }
      std::int64_t min_count = counts.empty() ? 0 : counts.begin()->second;
      for (const auto& [d, cnt] : counts) min_count = std::min(min_count, cnt);
      bool self = sel.value().matches(object_at(pod, {"metadata", "labels"}));
      if (counts[domain] + (self ? 1 : 0) - min_count > max_skew) return false;
    }
    return true;
  }
};

double free_fraction(const node_info& n, const resource_amounts& req) {
  double score = 0;
  int parts = 0;
  for (const char* r : {"cpu", "memory"}) {
    auto a = n.allocatable.find(r);
    if (a == n.allocatable.end() || a->second <= 0) continue;
    auto u = n.used.find(r);
    auto q = req.find(r);
    double left =
        a->second - (u == n.used.end() ? 0 : u->second) - (q == req.end() ? 0 : q->second);
    score += left / a->second;
    ++parts;
  }
  return parts ? score / parts : 0;
}

class scheduler final : public controller {
 public:
  const char* name() const override { return "scheduler"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* pods = store.objects("/pods");
    if (!pods) return;
    std::vector<object_ptr> pending;
    for (const auto& [k, p] : *pods) {
      const auto& o = p->object;
      if (!string_at(o, {"spec", "nodeName"}).empty() || has_deletion_timestamp(o)) continue;
      if (is_pod_terminal(o)) continue;
      auto sched = string_at(o, {"spec", "schedulerName"});
      if (!sched.empty() && sched != "default-scheduler") continue;
      pending.push_back(p);
    }
    if (pending.empty()) return;
    std::vector<node_info> nodes;
    std::map<std::string, std::size_t> by_name;
    if (const auto* ns = store.objects("/nodes"))
      for (const auto& [k, n] : *ns) {
        if (has_deletion_timestamp(n->object)) continue;
        node_info info;
        info.node = n;
        info.name = std::string(meta_name(n->object));
        info.labels = object_at(n->object, {"metadata", "labels"});
        info.allocatable = parse_resource_list(object_at(n->object, {"status", "allocatable"}));
        if (info.allocatable.empty())
          info.allocatable = parse_resource_list(object_at(n->object, {"status", "capacity"}));
        by_name[info.name] = nodes.size();
        nodes.push_back(std::move(info));
      }
    for (const auto& [k, p] : *pods) {
      const auto& o = p->object;
      auto node = string_at(o, {"spec", "nodeName"});
      if (node.empty() || is_pod_terminal(o)) continue;
      auto it = by_name.find(std::string(node));
      if (it == by_name.end()) continue;
      auto& n = nodes[it->second];
      for (const auto& [r, v] : pod_requests(o)) n.used[r] += v;
      ++n.pod_count;
      n.pods.push_back(&o);
    }
    // Judge only pods whose verdict may have changed (see verdicts_), highest priority first.
    std::int64_t running = 0;
    for (const auto& n : nodes) running += n.pod_count;
    std::string world = std::to_string(store.removals()) + "/" + std::to_string(bound_pods_) + "/" +
                        std::to_string(running);
    for (const auto& n : nodes)
      world += "/" + std::string(string_at(n.node->object, {"metadata", "resourceVersion"}));
    if (world != world_) {
      world_ = world;
      verdicts_.clear();
    }
    if (!verdicts_.empty()) {
      pending.erase(std::remove_if(pending.begin(), pending.end(),
                                   [&](const object_ptr& p) {
                                     auto seen = verdicts_.find(std::string(meta_uid(p->object)));
                                     return seen != verdicts_.end() &&
                                            seen->second ==
                                                string_at(p->object,
                                                          {"metadata", "resourceVersion"});
                                   }),
                    pending.end());
    }
    std::stable_sort(pending.begin(), pending.end(), [](const object_ptr& a, const object_ptr& b) {
      auto pa = find_path(a->object, {"spec", "priority"});
      auto pb = find_path(b->object, {"spec", "priority"});
      return (pa ? as_int(*pa).value_or(0) : 0) > (pb ? as_int(*pb).value_or(0) : 0);
    });
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    auto now = format_time(ctx.now);
    placement place{nodes};
    const json::object cordon_taint{{"key", "node.kubernetes.io/unschedulable"},
                                    {"effect", "NoSchedule"}};
    for (const auto& p : pending) {
      const auto& pod = p->object;
      std::string uid(meta_uid(pod));
      auto req = pod_requests(pod);
      node_info* best = nullptr;
      double best_score = -1e300;
      std::size_t unschedulable = 0, taint = 0, selector = 0, resources = 0, affinity = 0,
                  spread = 0;
      for (auto& n : nodes) {
        const auto* u = find_path(n.node->object, {"spec", "unschedulable"});
        // A cordoned node takes only pods that tolerate it (DaemonSet pods do by default).
        if (u && u->is_bool() && u->get_bool() && !tolerates(pod, cordon_taint)) {
          ++unschedulable;
          continue;
        }
        if (!taints_ok(pod, n)) {
          ++taint;
          continue;
        }
        if (!node_selector_ok(pod, n)) {
          ++selector;
          continue;
        }
        if (!resources_ok(req, n)) {
          ++resources;
          continue;
        }
        if (!place.affinity_ok(pod, n)) {
          ++affinity;
          continue;
        }
        if (!place.spread_ok(pod, n)) {
          ++spread;
          continue;
        }
        double score = free_fraction(n, req);
        if (score > best_score) {
          best_score = score;
          best = &n;
        }
      }
      if (best) {
        json::object next = pod;
        ensure_object(next, "spec")["nodeName"] = best->name;
        set_condition(next, "PodScheduled", "True", "", "", now);
        auto stored = ctx.ops.write(pod_type, std::move(next));
        ++bound_pods_;
        for (const auto& [r, v] : req) best->used[r] += v;
        ++best->pod_count;
        best->pods.push_back(&stored->object);
        bound_.push_back(stored);  // keeps the pointer above alive for this pass
        continue;
      }
      std::string message = std::to_string(nodes.size()) + "/" + std::to_string(nodes.size()) +
                            " nodes are available";
      std::vector<std::string> reasons;
      if (resources) reasons.push_back(std::to_string(resources) + " Insufficient resources");
      if (taint) reasons.push_back(std::to_string(taint) + " node(s) had untolerated taint");
      if (selector)
        reasons.push_back(std::to_string(selector) +
                          " node(s) didn't match Pod's node affinity/selector");
      if (affinity)
        reasons.push_back(std::to_string(affinity) +
                          " node(s) didn't match pod affinity/anti-affinity rules");
      if (spread)
        reasons.push_back(std::to_string(spread) +
                          " node(s) didn't match pod topology spread constraints");
      if (unschedulable)
        reasons.push_back(std::to_string(unschedulable) + " node(s) were unschedulable");
      message = "0/" + std::to_string(nodes.size()) + " nodes are available";
      for (std::size_t i = 0; i < reasons.size(); ++i) message += (i ? ", " : ": ") + reasons[i];
      message += ".";
      // Most passes find the same verdict: compare before copying the pod.
      bool same = false;
      if (const auto* cs = array_at(pod, {"status", "conditions"}))
        for (const auto& c : *cs)
          if (c.is_object() && string_at(c.get_object(), {"type"}) == "PodScheduled")
            same = string_at(c.get_object(), {"status"}) == "False" &&
                   string_at(c.get_object(), {"reason"}) == "Unschedulable" &&
                   string_at(c.get_object(), {"message"}) == message;
      if (same) {
        verdicts_[uid] = std::string(string_at(pod, {"metadata", "resourceVersion"}));
        continue;
      }
      json::object next = pod;
      set_condition(next, "PodScheduled", "False", "Unschedulable", message, now);
      auto stored = ctx.ops.write(pod_type, std::move(next));
      verdicts_[uid] = std::string(string_at(stored->object, {"metadata", "resourceVersion"}));
    }
    bound_.clear();
  }

 private:
  std::vector<object_ptr> bound_;
  std::uint64_t bound_pods_ = 0;
  std::string world_;
  // A pod found unschedulable stays so until it or the world changes (a node, a binding, a
  // removal), so passes over many pending pods stay cheap: pod uid -> resourceVersion judged.
  std::unordered_map<std::string, std::string> verdicts_;
};

}  // namespace

std::unique_ptr<controller> make_scheduler() {
  return std::make_unique<scheduler>();
}

}  // namespace kp::sim::kube
