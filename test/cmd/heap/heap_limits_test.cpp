#include "cmd/karpenter-proxmox/heap_limits.hpp"

#include <cstdlib>
#include <memory>

#include <gtest/gtest.h>
#include <malloc.h>

namespace kp::cmd {
namespace {

struct freed {
  void operator()(void* p) const { std::free(p); }
};

#ifdef KP_WITH_JEMALLOC

TEST(HeapLimits, theProcessRunsOnJemallocWithOneArenaAndPagesPurgedWithin200Ms) {
  EXPECT_EQ(heap_allocator(), "jemalloc");
  auto settings = running_jemalloc();
  ASSERT_TRUE(settings.has_value());
  EXPECT_EQ(settings->arenas, 1u);
  EXPECT_EQ(settings->dirty_decay_ms, 200);
  EXPECT_EQ(settings->muzzy_decay_ms, 0);
  EXPECT_TRUE(settings->background_thread);
}

TEST(HeapLimits, smallBlocksComeFromJemallocsSizeClassesWithoutAHeader) {
  // glibc's smallest chunk gives 24 usable bytes; jemalloc's smallest class is 8 bytes.
  std::unique_ptr<void, freed> block(std::malloc(1));
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(malloc_usable_size(block.get()), 8u);
  limit_heap_growth();  // nothing left to set: the arenas stay as configured
  EXPECT_EQ(running_jemalloc()->arenas, 1u);
}

#else

// Also the sanitizer builds, whose allocator answers malloc: nothing here asks it for sizes.
TEST(HeapLimits, withoutJemallocTheProcessRunsOnGlibc) {
  EXPECT_EQ(heap_allocator(), "glibc");
  EXPECT_FALSE(running_jemalloc().has_value());
  limit_heap_growth();
  heap_trimmer trimmer(std::chrono::milliseconds(10));  // starts and stops its thread
}

#endif

}  // namespace
}  // namespace kp::cmd
