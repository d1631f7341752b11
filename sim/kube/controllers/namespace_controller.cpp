// The namespace controller plus the root-CA publisher and service-account controller: every
// active namespace has a `kube-root-ca.crt` ConfigMap and a `default` ServiceAccount; a
// terminating namespace has its content deleted and disappears once it is empty.
#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

class namespace_controller final : public controller {
 public:
  explicit namespace_controller(std::string ca_pem) : ca_pem_(std::move(ca_pem)) {}
  const char* name() const override { return "namespace"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* namespaces = store.objects("/namespaces");
    if (!namespaces) return;
    std::vector<object_ptr> all;
    for (const auto& [k, n] : *namespaces) all.push_back(n);
    user_info system{"system:kube-controller-manager", "", {"system:authenticated"}};
    for (const auto& n : all) {
      std::string name(meta_name(n->object));
      if (!has_deletion_timestamp(n->object)) {
        if (!store.get("/configmaps", name, "kube-root-ca.crt")) {
          write_options wo;
          (void)ctx.ops.create(
              builtin_type(ctx.ops, "", "configmaps"), name,
              json::object{{"metadata", json::object{{"name", "kube-root-ca.crt"}}},
                           {"data", json::object{{"ca.crt", ca_pem_}}}},
              system, wo);
        }
        if (!store.get("/serviceaccounts", name, "default")) {
          write_options wo;
          (void)ctx.ops.create(builtin_type(ctx.ops, "", "serviceaccounts"), name,
                               json::object{{"metadata", json::object{{"name", "default"}}}},
                               system, wo);
        }
        continue;
      }
      // Terminating: delete what is inside, then the namespace itself.
      bool remaining = false;
      for (const auto& t : ctx.ops.registry().all()) {
        if (!t->namespaced) continue;
        const auto* coll = store.objects(t->storage_key());
        if (!coll) continue;
        std::vector<std::string> names;
        std::string prefix = name + "/";
        for (auto it = coll->lower_bound(prefix); it != coll->end(); ++it) {
          if (it->first.compare(0, prefix.size(), prefix) != 0) break;
          remaining = true;
          if (!has_deletion_timestamp(it->second->object))
            names.emplace_back(meta_name(it->second->object));
        }
        for (const auto& obj : names) (void)ctx.ops.remove(*t, name, obj, {});
      }
      if (!remaining) {
        const auto* f = array_at(n->object, {"metadata", "finalizers"});
        if (!f || f->empty()) store.erase("/namespaces", "", name);
      }
    }
  }

 private:
  std::string ca_pem_;
};

}  // namespace

std::unique_ptr<controller> make_namespace_controller(std::string ca_pem) {
  return std::make_unique<namespace_controller>(std::move(ca_pem));
}

}  // namespace kp::sim::kube
