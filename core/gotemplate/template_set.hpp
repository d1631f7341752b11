#pragma once
// The engine's entry point: Go text/template syntax and semantics over kp::gotemplate::value
// data, with the Go Karpenter Proxmox provider's functions by default.
//
//   auto t = template_set::parse("user-data", text);
//   if (!t) return t.error();             // "template: user-data:3: unexpected \"}\" in operand"
//   auto out = t->execute(data);          // "template: user-data:5:12: executing ... at <...>:
//   ..."
#include <memory>
#include <string>
#include <string_view>

#include "core/gotemplate/executor.hpp"
#include "core/gotemplate/function_table.hpp"
#include "core/gotemplate/value.hpp"
#include "core/result.hpp"

namespace kp::gotemplate {

class template_set {
 public:
  // Parses text as the template `name`; its {{define}} and {{block}} templates join the set.
  static result<template_set> parse(std::string name, std::string_view text,
                                    const function_table& functions = provider_functions());

  // Parses more text into the set (Go's Template.New(name).Parse(text) on the same set).
  status add(std::string name, std::string_view text);

  // Runs the template named at parse time, or another template of the set.
  result<std::string> execute(const value& data) const;
  result<std::string> execute(std::string_view name, const value& data) const;

  bool contains(std::string_view name) const;
  const std::string& name() const { return name_; }
  void set_limits(const execution_limits& limits) { limits_ = limits; }

 private:
  template_set() = default;

  std::string name_;
  std::shared_ptr<const function_table> functions_;
  std::shared_ptr<template_trees> trees_;
  execution_limits limits_;
};

// Parses and runs in one step (error code template_parse or template_exec).
result<std::string> render_template(const std::string& name, std::string_view text,
                                    const value& data,
                                    const function_table& functions = provider_functions());

}  // namespace kp::gotemplate
