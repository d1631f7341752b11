#include "protocol/chunked_map.hpp"

#include <map>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace kp::protocol {
namespace {

using map_type = chunked_map<std::string, std::shared_ptr<const int>>;

std::string key_of(int i) {
  auto s = std::to_string(i);
  return "namespace-" + std::string(6 - s.size(), '0') + s + "/pod";
}

std::map<std::string, int> contents(const map_type& m) {
  std::map<std::string, int> out;
  for (const auto& [k, v] : m) out[k] = *v;
  return out;
}

TEST(ChunkedMap, IteratesInKeyOrderAndFindsWhatAStdMapFindsUnderRandomWrites) {
  std::mt19937 random(7);
  map_type m;
  std::map<std::string, int> expected;
  for (int round = 0; round < 20000; ++round) {
    int i = static_cast<int>(random() % 3000);
    auto key = key_of(i);
    switch (random() % 4) {
      case 0:
        EXPECT_EQ(m.erase(key), expected.erase(key));
        break;
      case 1:
        m[key] = std::make_shared<const int>(round);
        expected[key] = round;
        break;
      case 2: {
        auto [it, fresh] = m.try_emplace(key, std::make_shared<const int>(round));
        auto [eit, efresh] = expected.try_emplace(key, round);
        EXPECT_EQ(fresh, efresh);
        EXPECT_EQ(*it->second, eit->second);
        break;
      }
      default:
        m.insert_or_assign(key, std::make_shared<const int>(round));
        expected.insert_or_assign(key, round);
    }
  }
  EXPECT_EQ(m.size(), expected.size());
  EXPECT_EQ(contents(m), expected);
  std::string previous;
  for (const auto& [k, v] : m) {
    EXPECT_LT(previous, k);
    previous = k;
  }
  for (int i = 0; i < 3000; ++i) {
    auto e = expected.find(key_of(i));
    auto it = std::as_const(m).find(key_of(i));
    ASSERT_EQ(it == m.cend(), e == expected.end()) << key_of(i);
    if (it != m.cend()) {
      EXPECT_EQ(*it->second, e->second);
    }
    EXPECT_EQ(m.count(key_of(i)), expected.count(key_of(i)));
  }
}

// A chunk holds room for max_chunk entries and never more: a list inserted in key order fills
// its chunks, and inserts in random order leave each chunk at least half full.
TEST(ChunkedMap, NoChunkHoldsRoomForMoreThanItsMaximumWhetherFilledInOrderOrAtRandom) {
  map_type sorted;
  for (int i = 0; i < 10000; ++i)
    sorted.insert_or_assign(key_of(i), std::make_shared<const int>(i));
  EXPECT_EQ(sorted.size(), 10000U);
  EXPECT_LE(sorted.slots(), sorted.size() + map_type::max_chunk);

  std::mt19937 random(11);
  map_type shuffled;
  for (int round = 0; round < 20000; ++round) {
    int i = static_cast<int>(random() % 10000);
    shuffled[key_of(i)] = std::make_shared<const int>(round);
  }
  EXPECT_LE(shuffled.slots(), 2 * shuffled.size() + map_type::max_chunk);
  int last = -1;
  std::size_t n = 0;
  for (const auto& [k, v] : shuffled) {
    const int i = std::stoi(k.substr(10, 6));
    EXPECT_LT(last, i);
    last = i;
    ++n;
  }
  EXPECT_EQ(n, shuffled.size());
}

TEST(ChunkedMap, ACopyKeepsItsEntriesWhileTheOriginalIsWrittenAndTheReverse) {
  map_type original;
  for (int i = 0; i < 1000; ++i) original[key_of(i)] = std::make_shared<const int>(i);
  const auto before = contents(original);
  map_type copy(original);
  original.erase(key_of(10));
  original[key_of(500)] = std::make_shared<const int>(-1);
  original[key_of(5000)] = std::make_shared<const int>(5000);
  EXPECT_EQ(contents(copy), before);
  copy.erase(key_of(999));
  copy[key_of(0)] = std::make_shared<const int>(-2);
  EXPECT_EQ(original.size(), 1000u);
  EXPECT_EQ(*original.at(key_of(500)), -1);
  EXPECT_EQ(*original.at(key_of(0)), 0);
  EXPECT_EQ(*original.at(key_of(999)), 999);
  EXPECT_FALSE(copy.contains(key_of(5000)));
  EXPECT_EQ(*copy.at(key_of(500)), 500);
}

TEST(ChunkedMap, WritingThroughAMutableIteratorOfACopyLeavesTheOriginalAlone) {
  map_type original;
  for (int i = 0; i < 200; ++i) original[key_of(i)] = std::make_shared<const int>(i);
  map_type copy = original;
  for (auto it = copy.begin(); it != copy.end(); ++it)
    it->second = std::make_shared<const int>(*it->second + 1);
  copy.find(key_of(3))->second = std::make_shared<const int>(-3);
  EXPECT_EQ(*original.at(key_of(3)), 3);
  EXPECT_EQ(*original.at(key_of(199)), 199);
  EXPECT_EQ(*copy.at(key_of(199)), 200);
  EXPECT_EQ(*copy.at(key_of(3)), -3);
}

TEST(ChunkedMap, ErasingByIteratorWhileWalkingVisitsEveryEntryOnce) {
  map_type m;
  for (int i = 0; i < 500; ++i) m[key_of(i)] = std::make_shared<const int>(i);
  int visited = 0;
  for (auto it = m.begin(); it != m.end();) {
    ++visited;
    if (*it->second % 3 == 0)
      it = m.erase(it);
    else
      ++it;
  }
  EXPECT_EQ(visited, 500);
  EXPECT_EQ(m.size(), 333u);
  EXPECT_FALSE(m.contains(key_of(3)));
  EXPECT_TRUE(m.contains(key_of(4)));
}

TEST(ChunkedMap, BuildsFromASortedRangeAndBoundsLikeAStdMap) {
  std::map<std::string, std::shared_ptr<const int>> source;
  for (int i = 0; i < 300; i += 2) source[key_of(i)] = std::make_shared<const int>(i);
  map_type m(source.begin(), source.end());
  EXPECT_EQ(m.size(), source.size());
  EXPECT_TRUE(std::equal(m.begin(), m.end(), source.begin(), source.end(),
                         [](const auto& a, const auto& b) { return a.first == b.first; }));
  const auto& cm = m;
  EXPECT_EQ(cm.lower_bound(key_of(3))->first, key_of(4));
  EXPECT_EQ(cm.upper_bound(key_of(4))->first, key_of(6));
  EXPECT_EQ(cm.lower_bound(key_of(299)), cm.end());
  EXPECT_EQ(std::prev(cm.end())->first, key_of(298));
  map_type empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.begin(), empty.end());
  EXPECT_EQ(std::as_const(empty).find(key_of(1)), empty.cend());
  EXPECT_EQ(empty.erase(key_of(1)), 0u);
}

}  // namespace
}  // namespace kp::protocol
