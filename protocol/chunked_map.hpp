#pragma once
// A sorted map whose copy is cheap, for snapshots of 100,000 objects. Entries live in sorted
// chunks of at most 64; every copy of a map shares its chunks until one of the copies writes to
// one (copy on write, chunk by chunk). Copying a map of 100,000 objects thus copies about 2,000
// chunk pointers instead of 100,000 entries, and a write copies at most one chunk of 64 entries.
// Iteration is in key order, as std::map's. Any number of threads may read maps that share
// chunks while one thread writes each map: a chunk is written in place only when no other map
// holds it.
// Unlike std::map: inserting or erasing invalidates iterators, and a non-const begin() or find()
// first takes the chunks it returns out of sharing (so writing through the iterator is safe).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace kp::protocol {

template <class Key, class Value, class Compare = std::less<>>
class chunked_map {
 public:
  using key_type = Key;
  using mapped_type = Value;
  using value_type = std::pair<Key, Value>;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using key_compare = Compare;
  static constexpr std::size_t max_chunk = 64;

 private:
  using chunk = std::vector<value_type>;
  using chunk_list = std::vector<std::shared_ptr<chunk>>;

 public:
  template <bool Const>
  class basic_iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = chunked_map::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<Const, const value_type&, value_type&>;
    using pointer = std::conditional_t<Const, const value_type*, value_type*>;

    basic_iterator() = default;
    // iterator -> const_iterator
    template <bool C = Const, class = std::enable_if_t<C>>
    basic_iterator(const basic_iterator<false>& other)  // NOLINT(google-explicit-constructor)
        : chunks_(other.chunks_), c_(other.c_), e_(other.e_) {}

    reference operator*() const { return (*(*chunks_)[c_])[e_]; }
    pointer operator->() const { return &**this; }
    basic_iterator& operator++() {
      if (++e_ == (*chunks_)[c_]->size()) {
        ++c_;
        e_ = 0;
      }
      return *this;
    }
    basic_iterator operator++(int) {
      auto was = *this;
      ++*this;
      return was;
    }
    basic_iterator& operator--() {
      if (e_ == 0) {
        --c_;
        e_ = (*chunks_)[c_]->size() - 1;
      } else {
        --e_;
      }
      return *this;
    }
    basic_iterator operator--(int) {
      auto was = *this;
      --*this;
      return was;
    }
    friend bool operator==(const basic_iterator& a, const basic_iterator& b) {
      return a.c_ == b.c_ && a.e_ == b.e_;
    }

   private:
    friend class chunked_map;
    template <bool>
    friend class basic_iterator;
    using list_pointer = std::conditional_t<Const, const chunk_list*, chunk_list*>;
    basic_iterator(list_pointer chunks, std::size_t c, std::size_t e)
        : chunks_(chunks), c_(c), e_(e) {}
    list_pointer chunks_ = nullptr;
    std::size_t c_ = 0;  // chunk; chunks_->size() at the end
    std::size_t e_ = 0;  // entry in the chunk
  };
  using iterator = basic_iterator<false>;
  using const_iterator = basic_iterator<true>;

  chunked_map() = default;
  template <class InputIt>
  chunked_map(InputIt first, InputIt last) {
    insert(first, last);
  }
  chunked_map(std::initializer_list<value_type> items) : chunked_map(items.begin(), items.end()) {}

  // ---- reading ----
  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Entries the chunks have room for (memory accounting and tests): at most max_chunk each.
  size_type slots() const {
    size_type n = 0;
    for (const auto& ch : chunks_) n += ch->capacity();
    return n;
  }
  const_iterator begin() const { return {&chunks_, 0, 0}; }
  const_iterator end() const { return {&chunks_, chunks_.size(), 0}; }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  template <class K>
  const_iterator find(const K& key) const {
    auto [c, e, found] = locate(key);
    return found ? const_iterator{&chunks_, c, e} : end();
  }
  template <class K>
  size_type count(const K& key) const {
    return std::get<2>(locate(key)) ? 1 : 0;
  }
  template <class K>
  bool contains(const K& key) const {
    return std::get<2>(locate(key));
  }
  template <class K>
  const Value& at(const K& key) const {
    auto [c, e, found] = locate(key);
    if (!found) throw std::out_of_range("chunked_map::at: no such key");
    return (*chunks_[c])[e].second;
  }
  template <class K>
  const_iterator lower_bound(const K& key) const {
    auto [c, e, found] = locate(key);
    return normalised(c, e);
  }
  template <class K>
  const_iterator upper_bound(const K& key) const {
    auto [c, e, found] = locate(key);
    auto it = normalised(c, e);
    if (found) ++it;
    return it;
  }

  // ---- writing (these take what they touch out of sharing first) ----
  iterator begin() {
    for (std::size_t c = 0; c < chunks_.size(); ++c) own(c);
    return {&chunks_, 0, 0};
  }
  iterator end() { return {&chunks_, chunks_.size(), 0}; }
  template <class K>
  iterator find(const K& key) {
    auto [c, e, found] = locate(key);
    if (!found) return end();
    own(c);
    return {&chunks_, c, e};
  }
  template <class K>
  Value& at(const K& key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("chunked_map::at: no such key");
    return it->second;
  }
  Value& operator[](const Key& key) {
    return put(
               Key(key), [] { return Value(); }, false)
        .first->second;
  }
  Value& operator[](Key&& key) {
    return put(
               std::move(key), [] { return Value(); }, false)
        .first->second;
  }
  std::pair<iterator, bool> insert(value_type item) {
    return put(
        std::move(item.first), [&] { return std::move(item.second); }, false);
  }
  template <class InputIt>
  void insert(InputIt first, InputIt last) {
    for (; first != last; ++first) {
      const auto& [k, v] = *first;
      // Sorted input (another map) is appended chunk by chunk.
      if (!chunks_.empty() && comp_(chunks_.back()->back().first, k)) {
        auto& tail = own(chunks_.size() - 1);
        if (tail.size() < max_chunk) {
          tail.emplace_back(k, v);
        } else {
          auto fresh = std::make_shared<chunk>();
          fresh->reserve(max_chunk);
          fresh->emplace_back(k, v);
          chunks_.push_back(std::move(fresh));
        }
        ++size_;
        continue;
      }
      // An init-capture: clang 14 cannot capture a structured binding itself.
      put(
          Key(k), [&value = v] { return Value(value); }, false);
    }
  }
  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return insert(value_type(std::forward<Args>(args)...));
  }
  template <class... Args>
  std::pair<iterator, bool> try_emplace(Key key, Args&&... args) {
    return put(
        std::move(key), [&] { return Value(std::forward<Args>(args)...); }, false);
  }
  template <class V>
  std::pair<iterator, bool> insert_or_assign(Key key, V&& value) {
    return put(
        std::move(key), [&] { return Value(std::forward<V>(value)); }, true);
  }
  template <class K>
  size_type erase(const K& key) {
    auto [c, e, found] = locate(key);
    if (!found) return 0;
    erase_at(c, e);
    return 1;
  }
  iterator erase(const_iterator pos) { return erase_at(pos.c_, pos.e_); }
  iterator erase(iterator pos) { return erase_at(pos.c_, pos.e_); }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }
  void swap(chunked_map& other) noexcept {
    chunks_.swap(other.chunks_);
    std::swap(size_, other.size_);
  }

  friend bool operator==(const chunked_map& a, const chunked_map& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  // The chunk that holds `key` or would hold it (the last whose first key is not above it, or
  // the first), the entry at or after it, and whether that entry is `key`.
  template <class K>
  std::tuple<std::size_t, std::size_t, bool> locate(const K& key) const {
    if (chunks_.empty()) return {0, 0, false};
    auto after = std::upper_bound(chunks_.begin(), chunks_.end(), key,
                                  [this](const K& k, const std::shared_ptr<chunk>& ch) {
                                    return comp_(k, ch->front().first);
                                  });
    const std::size_t c =
        after == chunks_.begin() ? 0 : static_cast<std::size_t>(after - chunks_.begin()) - 1;
    const auto& ch = *chunks_[c];
    auto at = std::lower_bound(ch.begin(), ch.end(), key, [this](const value_type& v, const K& k) {
      return comp_(v.first, k);
    });
    const bool found = at != ch.end() && !comp_(key, at->first);
    return {c, static_cast<std::size_t>(at - ch.begin()), found};
  }

  // (c, e) as an iterator: past the end of a chunk is the start of the next one.
  const_iterator normalised(std::size_t c, std::size_t e) const {
    if (c < chunks_.size() && e == chunks_[c]->size()) return {&chunks_, c + 1, 0};
    return {&chunks_, c, e};
  }

  // Chunk c, copied first when another map still holds it.
  chunk& own(std::size_t c) {
    auto& held = chunks_[c];
    if (held.use_count() != 1) {
      auto copy = std::make_shared<chunk>();
      copy->reserve(max_chunk);
      copy->assign(held->begin(), held->end());
      held = std::move(copy);
    } else {
      // The last other holder dropped it on another thread: see everything it did before.
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    return *held;
  }

  template <class MakeValue>
  std::pair<iterator, bool> put(Key key, MakeValue&& make_value, bool assign) {
    if (chunks_.empty()) {
      auto first = std::make_shared<chunk>();
      first->reserve(max_chunk);
      first->emplace_back(std::move(key), make_value());
      chunks_.push_back(std::move(first));
      size_ = 1;
      return {iterator{&chunks_, 0, 0}, true};
    }
    auto [c, e, found] = locate(key);
    if (found) {
      auto& ch = own(c);
      if (assign) ch[e].second = make_value();
      return {iterator{&chunks_, c, e}, false};
    }
    if (chunks_[c]->size() == max_chunk) {
      // A full chunk is split before the insert, so that no chunk ever grows past max_chunk
      // entries (a vector grown by one more doubles its capacity: 128 slots held for 64).
      // Appending to the last chunk starts a new one (lists arrive sorted); otherwise halve.
      const bool appending = c + 1 == chunks_.size() && e == max_chunk;
      const std::size_t keep = appending ? max_chunk : max_chunk / 2;
      if (keep < max_chunk) {
        auto& ch = own(c);
        auto rest = std::make_shared<chunk>();
        rest->reserve(max_chunk);
        rest->assign(std::make_move_iterator(ch.begin() + static_cast<difference_type>(keep)),
                     std::make_move_iterator(ch.end()));
        ch.erase(ch.begin() + static_cast<difference_type>(keep), ch.end());
        chunks_.insert(chunks_.begin() + static_cast<difference_type>(c + 1), std::move(rest));
      } else {
        auto fresh = std::make_shared<chunk>();
        fresh->reserve(max_chunk);
        chunks_.push_back(std::move(fresh));
      }
      if (e >= keep) {
        ++c;
        e -= keep;
      }
    }
    auto& ch = own(c);
    ch.insert(ch.begin() + static_cast<difference_type>(e),
              value_type(std::move(key), make_value()));
    ++size_;
    return {iterator{&chunks_, c, e}, true};
  }

  iterator erase_at(std::size_t c, std::size_t e) {
    auto& ch = own(c);
    ch.erase(ch.begin() + static_cast<difference_type>(e));
    --size_;
    if (ch.empty()) {
      chunks_.erase(chunks_.begin() + static_cast<difference_type>(c));
      return {&chunks_, c, 0};
    }
    if (e == ch.size()) return {&chunks_, c + 1, 0};
    return {&chunks_, c, e};
  }

  chunk_list chunks_;
  std::size_t size_ = 0;
  [[no_unique_address]] Compare comp_{};
};

}  // namespace kp::protocol
