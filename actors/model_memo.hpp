#pragma once
// The models of one kind of API object, kept by an actor from one read of a snapshot to the next.
// An object whose resourceVersion and uid are those the memo translated keeps its model, so a
// reader that runs every few seconds over every Node and NodeClaim (the disruption pass: 9,000
// objects in bench-controller-scale's cluster) translates only what changed since its last run,
// and hands on shared models instead of fresh copies. Objects without a resourceVersion (built
// by hand) are translated at every read. Entries of objects gone from the snapshot are dropped
// at each read, so the memo holds no more than the snapshot does.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/result.hpp"
#include "protocol/cluster_snapshot.hpp"

namespace kp::actors {

template <class Object, class Model>
class model_memo {
 public:
  struct entry {
    std::shared_ptr<const Model> model;        // null when the object could not be translated
    std::shared_ptr<const kp::error> invalid;  // why, when it could not
  };

  // Calls `use(object, entry)` for every object of `objects`, in key order. `translate(object)`
  // returns result<Model>; it is called only for objects the memo has no model of yet.
  template <class Translate, class Use>
  void read(const protocol::shared_objects<Object>& objects, Translate&& translate, Use&& use) {
    ++reads_;
    if (objects) {
      for (const auto& [key, object] : *objects) {
        auto& kept = kept_[key];
        const auto& meta = object->metadata;
        if (kept.read == 0 || meta.resource_version.empty() ||
            kept.resource_version != meta.resource_version || kept.uid != meta.uid) {
          auto model = translate(*object);
          kept.resource_version = meta.resource_version;
          kept.uid = meta.uid;
          if (model) {
            kept.translation = {std::make_shared<const Model>(std::move(*model)), nullptr};
          } else {
            kept.translation = {nullptr, std::make_shared<const kp::error>(model.error())};
          }
        }
        kept.read = reads_;
        use(*object, std::as_const(kept.translation));
      }
    }
    std::erase_if(kept_, [this](const auto& item) { return item.second.read != reads_; });
  }

  std::size_t size() const { return kept_.size(); }

 private:
  struct kept_entry {
    std::string resource_version;
    std::string uid;
    entry translation;
    std::uint64_t read = 0;  // the read that last saw the object
  };
  std::unordered_map<std::string, kept_entry> kept_;
  std::uint64_t reads_ = 0;
};

}  // namespace kp::actors
