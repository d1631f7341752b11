#include "core/scheduling/requirements.hpp"

#include <algorithm>
#include <limits>

namespace kp::scheduling {
namespace {

using model::selector_operator;

bool in_bounds(const requirement& r, label_id v, const label_table& t) {
  if (!r.gte && !r.lte) return true;
  auto n = t.number(v);
  if (!n) return false;
  return (!r.gte || *n >= *r.gte) && (!r.lte || *n <= *r.lte);
}

bool contains(const std::vector<label_id>& sorted, label_id v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

bool not_in_or_dne(selector_operator op) {
  return op == selector_operator::not_in || op == selector_operator::does_not_exist;
}

}  // namespace

selector_operator requirement::op() const {
  if (complement) {
    if (!values.empty()) return selector_operator::not_in;
    if (gte) return selector_operator::gte;
    if (lte) return selector_operator::lte;
    return selector_operator::exists;
  }
  return values.empty() ? selector_operator::does_not_exist : selector_operator::in;
}

bool requirement::has(label_id value, const label_table& t) const {
  if (!in_bounds(*this, value, t)) return false;
  return complement ? !contains(values, value) : contains(values, value);
}

requirement make_in(label_id key, std::vector<label_id> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  requirement r;
  r.key = key;
  r.values = std::move(values);
  return r;
}

requirement make_exists(label_id key) {
  requirement r;
  r.key = key;
  r.complement = true;
  return r;
}

requirement make_does_not_exist(label_id key) {
  requirement r;
  r.key = key;
  return r;
}

result<requirement> make_requirement(label_table& t, const model::node_selector_requirement& in) {
  label_id key = t.intern(in.key);
  std::vector<label_id> ids;
  ids.reserve(in.values.size());
  for (const auto& v : in.values) ids.push_back(t.intern(v));
  requirement r;
  switch (in.op) {
    case selector_operator::in:
      r = make_in(key, std::move(ids));
      break;
    case selector_operator::not_in:
      r = make_in(key, std::move(ids));
      r.complement = true;
      break;
    case selector_operator::exists:
      r = make_exists(key);
      break;
    case selector_operator::does_not_exist:
      r = make_does_not_exist(key);
      break;
    case selector_operator::gt:
    case selector_operator::lt:
    case selector_operator::gte:
    case selector_operator::lte: {
      if (in.values.size() != 1 || !t.number(ids[0]))
        return make_error("invalid_requirement", "requirement " + in.key + " " +
                                                     model::to_string(in.op) +
                                                     " needs exactly one integer value");
      std::int64_t n = *t.number(ids[0]);
      r = make_exists(key);
      if (in.op == selector_operator::gt) {
        if (n == std::numeric_limits<std::int64_t>::max()) {
          r = make_does_not_exist(key);
        } else {
          r.gte = n + 1;
        }
      } else if (in.op == selector_operator::lt) {
        if (n == std::numeric_limits<std::int64_t>::min()) {
          r = make_does_not_exist(key);
        } else {
          r.lte = n - 1;
        }
      } else if (in.op == selector_operator::gte) {
        r.gte = n;
      } else {
        r.lte = n;
      }
      break;
    }
  }
  r.min_values = in.min_values;
  return r;
}

requirement intersect(const requirement& a, const requirement& b, const label_table& t) {
  requirement out;
  out.key = a.key;
  if (a.min_values || b.min_values)
    out.min_values = std::max(a.min_values.value_or(0), b.min_values.value_or(0));
  out.gte = a.gte;
  if (b.gte) out.gte = out.gte ? std::max(*out.gte, *b.gte) : *b.gte;
  out.lte = a.lte;
  if (b.lte) out.lte = out.lte ? std::min(*out.lte, *b.lte) : *b.lte;
  if (out.gte && out.lte && *out.gte > *out.lte) {
    out.gte.reset();
    out.lte.reset();
    out.complement = false;
    return out;  // crossed bounds: DoesNotExist
  }
  if (a.complement && b.complement) {
    out.complement = true;
    std::set_union(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                   std::back_inserter(out.values));
  } else if (a.complement) {
    std::set_difference(b.values.begin(), b.values.end(), a.values.begin(), a.values.end(),
                        std::back_inserter(out.values));
  } else if (b.complement) {
    std::set_difference(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                        std::back_inserter(out.values));
  } else {
    std::set_intersection(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                          std::back_inserter(out.values));
  }
  if (!out.complement && (out.gte || out.lte)) {
    std::erase_if(out.values, [&](label_id v) { return !in_bounds(out, v, t); });
    out.gte.reset();  // a listed set within bounds needs the bounds no more
    out.lte.reset();
  }
  return out;
}

const requirement* requirements::get(label_id key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const requirement& r, label_id k) { return r.key < k; });
  return it != items_.end() && it->key == key ? &*it : nullptr;
}

void requirements::add(const requirement& r, const label_table& t) {
  auto it = std::lower_bound(items_.begin(), items_.end(), r.key,
                             [](const requirement& x, label_id k) { return x.key < k; });
  if (it != items_.end() && it->key == r.key)
    *it = intersect(*it, r, t);
  else
    items_.insert(it, r);
}

void requirements::add_all(const requirements& other, const label_table& t) {
  for (const auto& r : other.items_) add(r, t);
}

void requirements::erase(label_id key) {
  std::erase_if(items_, [key](const requirement& r) { return r.key == key; });
}

std::optional<conflict> requirements::intersects(const requirements& incoming,
                                                 const label_table& t) const {
  // Both sorted by key: walk them together.
  auto a = items_.begin();
  auto b = incoming.items_.begin();
  while (a != items_.end() && b != incoming.items_.end()) {
    if (a->key < b->key) {
      ++a;
    } else if (b->key < a->key) {
      ++b;
    } else {
      requirement x = intersect(*a, *b, t);
      if (x.is_empty() && !(not_in_or_dne(b->op()) && not_in_or_dne(a->op())))
        return conflict{a->key, false};
      ++a;
      ++b;
    }
  }
  return std::nullopt;
}

std::optional<conflict> requirements::compatible(const requirements& incoming,
                                                 const std::vector<label_id>& allow_undefined,
                                                 const label_table& t) const {
  for (const auto& r : incoming.items_) {
    if (has(r.key)) continue;
    if (not_in_or_dne(r.op())) continue;
    if (std::binary_search(allow_undefined.begin(), allow_undefined.end(), r.key)) continue;
    return conflict{r.key, true};
  }
  return intersects(incoming, t);
}

std::string describe(const requirement& r, const label_table& t) {
  std::string out = t.str(r.key) + " " + model::to_string(r.op());
  if (r.op() == model::selector_operator::gte) out += " " + std::to_string(*r.gte);
  if (r.op() == model::selector_operator::lte) out += " " + std::to_string(*r.lte);
  if (!r.values.empty()) {
    out += " [";
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      if (i) out += ' ';
      if (i == 8) {
        out += "... " + std::to_string(r.values.size() - 8) + " more";
        break;
      }
      out += t.str(r.values[i]);
    }
    out += "]";
  }
  if (r.min_values) out += " minValues " + std::to_string(*r.min_values);
  return out;
}

std::string requirements::describe(const label_table& t) const {
  std::string out;
  for (const auto& r : items_) {
    if (!out.empty()) out += ", ";
    out += scheduling::describe(r, t);
  }
  return out;
}

}  // namespace kp::scheduling
