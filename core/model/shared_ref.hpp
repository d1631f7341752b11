#pragma once
// One value on the heap, held by every copy of a shared_ref that shares it: the storage of
// shared_vector and shared_map. A std::shared_ptr would do, but it takes 16 bytes in every holder
// and 16 more in front of every value; a model pod holds a dozen such parts, and 100,000 pods are
// held at once. A shared_ref is one pointer, and its block carries two 32-bit counts in front of
// the value. Counts are atomic: copies may be copied and dropped on many threads at once (the
// value itself is changed only by a holder no other thread sees).
//
// A weak_ref names a block without keeping its value: it tells when the last holder is gone
// (`expired()`), as a std::weak_ptr does, but cannot take the value back.
#include <atomic>
#include <cstdint>
#include <new>
#include <utility>

namespace kp::model {

template <class T>
class shared_ref {
  struct block {
    template <class... Args>
    explicit block(Args&&... args) : value(std::forward<Args>(args)...) {}
    ~block() {}  // the value is destroyed by its last holder (see release)

    std::atomic<std::uint32_t> holders{1};
    // The weak_refs, plus one for all holders together: the block lives while this is not zero.
    std::atomic<std::uint32_t> refs{1};
    union {
      T value;
    };
  };

 public:
  class weak_ref {
   public:
    weak_ref() = default;
    weak_ref(const shared_ref& held) : block_(held.block_) { retain(); }  // NOLINT: implicit
    weak_ref(const weak_ref& other) : block_(other.block_) { retain(); }
    weak_ref(weak_ref&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
    weak_ref& operator=(weak_ref other) noexcept {
      std::swap(block_, other.block_);
      return *this;
    }
    ~weak_ref() { release_ref(block_); }

    // True when no shared_ref holds the value any more (or this names none).
    bool expired() const { return !block_ || block_->holders.load(std::memory_order_acquire) == 0; }

   private:
    void retain() {
      if (block_) block_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    block* block_ = nullptr;
  };

  shared_ref() = default;
  // A new value of its own: shared_ref<T>::make(args...) as std::make_shared.
  template <class... Args>
  static shared_ref make(Args&&... args) {
    shared_ref out;
    out.block_ = new block(std::forward<Args>(args)...);
    return out;
  }
  shared_ref(const shared_ref& other) : block_(other.block_) {
    if (block_) block_->holders.fetch_add(1, std::memory_order_relaxed);
  }
  shared_ref(shared_ref&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  shared_ref& operator=(shared_ref other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }
  ~shared_ref() { reset(); }

  void reset() { release_holder(std::exchange(block_, nullptr)); }

  T* get() const { return block_ ? &block_->value : nullptr; }
  T& operator*() const { return block_->value; }
  T* operator->() const { return &block_->value; }
  explicit operator bool() const { return block_ != nullptr; }
  // How many shared_refs hold this value (0 for none); exact only while no other thread copies
  // or drops one.
  std::uint32_t use_count() const {
    return block_ ? block_->holders.load(std::memory_order_acquire) : 0;
  }

  // The same value (not just an equal one).
  friend bool operator==(const shared_ref& a, const shared_ref& b) { return a.block_ == b.block_; }

 private:
  static void release_holder(block* b) {
    if (!b || b->holders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    b->value.~T();
    release_ref(b);
  }
  static void release_ref(block* b) {
    if (b && b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b;
  }

  block* block_ = nullptr;
};

}  // namespace kp::model
