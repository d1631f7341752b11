#include "core/model/shared_ref.hpp"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kp::model {
namespace {

// Counts how many of it live, so a test sees when the value is destroyed.
struct counted {
  explicit counted(int* alive, std::string text = "") : alive(alive), text(std::move(text)) {
    ++*alive;
  }
  counted(const counted& other) : alive(other.alive), text(other.text) { ++*alive; }
  ~counted() { --*alive; }
  int* alive;
  std::string text;
};

TEST(SharedRef, IsOnePointerWide) {
  EXPECT_EQ(sizeof(shared_ref<std::vector<int>>), sizeof(void*));
}

TEST(SharedRef, CopiesHoldOneValueAndTheLastHolderDestroysIt) {
  int alive = 0;
  auto a = shared_ref<counted>::make(&alive, "x");
  {
    shared_ref<counted> b = a;
    shared_ref<counted> c;
    c = b;
    EXPECT_EQ(alive, 1);
    EXPECT_EQ(a.use_count(), 3u);
    EXPECT_EQ(b.get(), a.get());
    EXPECT_TRUE(c == a);
    c->text = "changed";  // a holder may change the value: every copy sees it
    EXPECT_EQ(a->text, "changed");
  }
  EXPECT_EQ(a.use_count(), 1u);
  shared_ref<counted> moved = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(a.use_count(), 0u);
  EXPECT_EQ(alive, 1);
  moved.reset();
  EXPECT_EQ(alive, 0);
  EXPECT_FALSE(moved);
}

TEST(SharedRef, AWeakRefExpiresWithTheLastHolderAndOutlivesIt) {
  int alive = 0;
  shared_ref<counted>::weak_ref weak;
  EXPECT_TRUE(weak.expired()) << "naming nothing";
  {
    auto held = shared_ref<counted>::make(&alive);
    weak = held;
    auto copy = weak;
    EXPECT_FALSE(weak.expired());
    EXPECT_FALSE(copy.expired());
    EXPECT_EQ(held.use_count(), 1u) << "weak refs do not hold the value";
  }
  EXPECT_EQ(alive, 0) << "the value goes with its last holder, not with the weak refs";
  EXPECT_TRUE(weak.expired());
}

TEST(SharedRef, HoldersCopiedAndDroppedOnManyThreadsDestroyTheValueOnce) {
  int alive = 0;
  auto held = shared_ref<counted>::make(&alive);
  shared_ref<counted>::weak_ref weak = held;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([copy = held] {
      for (int i = 0; i < 20000; ++i) {
        shared_ref<counted> again = copy;
        shared_ref<counted>::weak_ref named = again;
        EXPECT_FALSE(named.expired());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(held.use_count(), 1u);
  EXPECT_EQ(alive, 1);
  held.reset();
  EXPECT_EQ(alive, 0);
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace kp::model
