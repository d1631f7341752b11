// The garbage collector: cascading deletion by ownerReferences. Dependents whose owners are all
// gone are deleted (background propagation); an owner being deleted in the foreground keeps its
// `foregroundDeletion` finalizer until its dependents are gone; an `orphan` finalizer makes the
// dependents drop their reference instead. Also the pod GC: pods bound to a node that no longer
// exists are removed at once.
#include <map>
#include <set>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

struct ref_target {
  std::string storage_key;
  object_ptr object;
};

const resource_type* type_for_key(operations& ops, const std::string& storage_key) {
  auto slash = storage_key.find('/');
  return ops.registry().find_any_version(storage_key.substr(0, slash),
                                         storage_key.substr(slash + 1));
}

bool has_finalizer(const json::object& o, std::string_view f) {
  if (const auto* fs = array_at(o, {"metadata", "finalizers"}))
    for (const auto& v : *fs)
      if (v.is_string() && v.get_string() == f) return true;
  return false;
}

json::object without_finalizer(json::object o, std::string_view f) {
  auto& meta = ensure_object(o, "metadata");
  if (auto* fs = meta.if_contains("finalizers"); fs && fs->is_array()) {
    auto& arr = fs->get_array();
    arr.erase(std::remove(arr.begin(), arr.end(), json::value(f)), arr.end());
    if (arr.empty()) meta.erase("finalizers");
  }
  return o;
}

class garbage_collector final : public controller {
 public:
  const char* name() const override { return "garbage-collector"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    // Skip idle passes: nothing was removed and no owner waits on a finalizer of ours.
    bool waiting = false;
    std::vector<ref_target> with_refs;
    std::map<std::string, std::vector<std::size_t>> dependents;  // owner uid -> with_refs index
    std::vector<ref_target> owners_waiting;
    bool periodic = ctx.now - last_full_ >= std::chrono::seconds(1);
    if (store.removals() == seen_removals_ && !pending_ && !periodic) return;
    seen_removals_ = store.removals();
    last_full_ = ctx.now;
    for (const auto& [key, coll] : store.all()) {
      for (const auto& [k, o] : coll) {
        const auto& obj = o->object;
        if (has_deletion_timestamp(obj) &&
            (has_finalizer(obj, "foregroundDeletion") || has_finalizer(obj, "orphan"))) {
          owners_waiting.push_back({key, o});
          waiting = true;
        }
        const auto* refs = array_at(obj, {"metadata", "ownerReferences"});
        if (!refs || refs->empty()) continue;
        with_refs.push_back({key, o});
        for (const auto& r : *refs)
          if (r.is_object())
            dependents[std::string(string_at(r.get_object(), {"uid"}))].push_back(with_refs.size() -
                                                                                  1);
      }
    }
    pending_ = waiting;
    std::set<std::string> handled;
    for (const auto& owner : owners_waiting) {
      std::string uid(meta_uid(owner.object->object));
      const auto* owner_type = type_for_key(ctx.ops, owner.storage_key);
      if (!owner_type) continue;
      auto deps = dependents[uid];
      if (has_finalizer(owner.object->object, "orphan")) {
        for (auto i : deps) {
          const auto& d = with_refs[i];
          json::object next = d.object->object;
          auto& refs = ensure_object(next, "metadata")["ownerReferences"].as_array();
          refs.erase(std::remove_if(refs.begin(), refs.end(),
                                    [&](const json::value& r) {
                                      return r.is_object() &&
                                             string_at(r.get_object(), {"uid"}) == uid;
                                    }),
                     refs.end());
          if (const auto* t = type_for_key(ctx.ops, d.storage_key))
            ctx.ops.write(*t, std::move(next));
          handled.insert(std::string(meta_uid(d.object->object)));
        }
        ctx.ops.write(*owner_type, without_finalizer(owner.object->object, "orphan"));
        continue;
      }
      bool remaining = false;
      for (auto i : deps) {
        const auto& d = with_refs[i];
        remaining = true;
        handled.insert(std::string(meta_uid(d.object->object)));
        if (has_deletion_timestamp(d.object->object)) continue;
        if (const auto* t = type_for_key(ctx.ops, d.storage_key))
          (void)ctx.ops.remove(*t, meta_namespace(d.object->object), meta_name(d.object->object),
                               {});
      }
      if (!remaining)
        ctx.ops.write(*owner_type, without_finalizer(owner.object->object, "foregroundDeletion"));
    }
    // Background: dependents whose every owner is gone.
    for (const auto& d : with_refs) {
      const auto& obj = d.object->object;
      if (has_deletion_timestamp(obj) || handled.count(std::string(meta_uid(obj)))) continue;
      bool any_alive = false;
      for (const auto& r : *array_at(obj, {"metadata", "ownerReferences"}))
        if (r.is_object() && store.find_uid(string_at(r.get_object(), {"uid"}))) any_alive = true;
      if (any_alive) continue;
      if (const auto* t = type_for_key(ctx.ops, d.storage_key))
        (void)ctx.ops.remove(*t, meta_namespace(obj), meta_name(obj), {});
    }
    // Pod GC: pods bound to a node that has been missing for a short quarantine.
    std::vector<object_ptr> orphans;
    std::map<std::string, sys_time> still_missing;
    if (const auto* pods = store.objects("/pods"))
      for (const auto& [k, p] : *pods) {
        auto node = string_at(p->object, {"spec", "nodeName"});
        if (node.empty() || store.get("/nodes", "", node)) continue;
        std::string uid(meta_uid(p->object));
        auto seen = missing_since_.find(uid);
        auto since = seen == missing_since_.end() ? ctx.now : seen->second;
        still_missing[uid] = since;
        if (ctx.now - since >= std::chrono::seconds(5)) orphans.push_back(p);
      }
    missing_since_ = std::move(still_missing);
    if (!missing_since_.empty()) pending_ = true;
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    for (const auto& p : orphans) {
      delete_options d;
      d.grace_period_seconds = 0;
      (void)ctx.ops.remove(pod_type, meta_namespace(p->object), meta_name(p->object), d);
    }
    if (store.removals() != seen_removals_) pending_ = true;
  }

 private:
  std::uint64_t seen_removals_ = ~0ull;
  bool pending_ = true;
  sys_time last_full_{};
  std::map<std::string, sys_time> missing_since_;
};

}  // namespace

std::unique_ptr<controller> make_garbage_collector() {
  return std::make_unique<garbage_collector>();
}

}  // namespace kp::sim::kube
