#include "core/gotemplate/template_set.hpp"

#include "core/gotemplate/parser.hpp"

namespace kp::gotemplate {

result<template_set> template_set::parse(std::string name, std::string_view text,
                                         const function_table& functions) {
  template_set t;
  t.name_ = name;
  t.functions_ = std::make_shared<const function_table>(functions);
  t.trees_ = std::make_shared<template_trees>();
  auto s = t.add(std::move(name), text);
  if (!s) return s.error();
  return t;
}

status template_set::add(std::string name, std::string_view text) {
  const auto& fns = *functions_;
  auto parsed = parse_template(name, text, [&](std::string_view f) { return fns.contains(f); });
  if (!parsed) return parsed.error();
  // Copy on write, so sets copied from this one keep their trees.
  auto trees = std::make_shared<template_trees>(*trees_);
  for (auto& [n, tree] : parsed->trees) {
    auto it = trees->find(n);
    bool new_empty = tree.root->nodes.empty();
    if (it != trees->end() && new_empty && n != name)
      continue;  // an empty redefinition keeps the old
    (*trees)[n] = std::move(tree);
  }
  trees_ = std::move(trees);
  return {};
}

result<std::string> template_set::execute(const value& data) const {
  return execute(name_, data);
}

result<std::string> template_set::execute(std::string_view name, const value& data) const {
  return execute_template(*trees_, name, *functions_, data, limits_);
}

bool template_set::contains(std::string_view name) const {
  return trees_->contains(name);
}

result<std::string> render_template(const std::string& name, std::string_view text,
                                    const value& data, const function_table& functions) {
  auto t = template_set::parse(name, text, functions);
  if (!t) return t.error();
  return t->execute(data);
}

}  // namespace kp::gotemplate
