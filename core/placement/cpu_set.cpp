#include "core/placement/cpu_set.hpp"

#include <algorithm>
#include <bit>
#include <charconv>

namespace kp::placement {

namespace {
// Upper bound on a CPU id we accept from input: large hosts have a few hundred CPUs.
constexpr int max_cpu_id = 8191;

result<int> parse_cpu_id(std::string_view text, std::string_view whole) {
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > max_cpu_id) {
    return make_error("invalid_cpu_list", "invalid CPU id \"" + std::string(text) +
                                              "\" in CPU list \"" + std::string(whole) + "\"");
  }
  return value;
}
}  // namespace

cpu_set cpu_set::range(int first, int last) {
  cpu_set s;
  for (int c = first; c <= last; ++c) s.insert(c);
  return s;
}

result<cpu_set> cpu_set::parse(std::string_view text) {
  cpu_set s;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of(",;", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      std::size_t dash = item.find('-');
      if (dash == std::string_view::npos) {
        auto id = parse_cpu_id(item, text);
        if (!id) return id.error();
        s.insert(*id);
      } else {
        auto first = parse_cpu_id(item.substr(0, dash), text);
        if (!first) return first.error();
        auto last = parse_cpu_id(item.substr(dash + 1), text);
        if (!last) return last.error();
        if (*last < *first) {
          return make_error("invalid_cpu_list", "descending range \"" + std::string(item) +
                                                    "\" in CPU list \"" + std::string(text) + "\"");
        }
        for (int c = *first; c <= *last; ++c) s.insert(c);
      }
    }
    pos = end + 1;
  }
  return s;
}

void cpu_set::insert(int cpu) {
  if (cpu < 0) return;
  std::size_t word = static_cast<std::size_t>(cpu) / 64;
  if (words_.size() <= word) words_.resize(word + 1, 0);
  words_[word] |= std::uint64_t{1} << (cpu % 64);
}

void cpu_set::erase(int cpu) {
  if (!contains(cpu)) return;
  words_[static_cast<std::size_t>(cpu) / 64] &= ~(std::uint64_t{1} << (cpu % 64));
  trim();
}

bool cpu_set::contains(int cpu) const {
  if (cpu < 0) return false;
  std::size_t word = static_cast<std::size_t>(cpu) / 64;
  return word < words_.size() && (words_[word] >> (cpu % 64) & 1u);
}

int cpu_set::size() const {
  int n = 0;
  for (auto w : words_) n += std::popcount(w);
  return n;
}

std::vector<int> cpu_set::members() const {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(size()));
  for (std::size_t w = 0; w < words_.size(); ++w) {
    auto bits = words_[w];
    while (bits) {
      int b = std::countr_zero(bits);
      out.push_back(static_cast<int>(w * 64) + b);
      bits &= bits - 1;
    }
  }
  return out;
}

cpu_set cpu_set::operator|(const cpu_set& other) const {
  cpu_set out;
  out.words_.resize(std::max(words_.size(), other.words_.size()), 0);
  for (std::size_t i = 0; i < out.words_.size(); ++i) {
    out.words_[i] =
        (i < words_.size() ? words_[i] : 0) | (i < other.words_.size() ? other.words_[i] : 0);
  }
  return out;
}

cpu_set cpu_set::operator&(const cpu_set& other) const {
  cpu_set out;
  out.words_.resize(std::min(words_.size(), other.words_.size()), 0);
  for (std::size_t i = 0; i < out.words_.size(); ++i) out.words_[i] = words_[i] & other.words_[i];
  out.trim();
  return out;
}

cpu_set cpu_set::operator-(const cpu_set& other) const {
  cpu_set out = *this;
  for (std::size_t i = 0; i < out.words_.size() && i < other.words_.size(); ++i) {
    out.words_[i] &= ~other.words_[i];
  }
  out.trim();
  return out;
}

bool operator==(const cpu_set& a, const cpu_set& b) {
  return a.words_ == b.words_;
}

void cpu_set::trim() {
  while (!words_.empty() && words_.back() == 0) words_.pop_back();
}

std::string cpu_set::to_string(char separator) const {
  std::string out;
  auto ids = members();
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += separator;
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace kp::placement
