#pragma once
// The mark of a managed template VM, one line in its description:
//   karpenter-proxmox-template: cluster=<c>, template=<name>, image=<file>, checksum=<a:hex>[,
//   retired=true]
// It finds our template VMs after a restart, and every call that changes or destroys one checks
// it first. Pure text functions.
#include <optional>
#include <string>
#include <string_view>

namespace kp::ownership {

struct template_mark {
  std::string cluster;
  std::string template_name;
  std::string image;     // file name in the import storage
  std::string checksum;  // "sha256:<hex>", "" when the spec has none
  bool retired = false;
  friend bool operator==(const template_mark&, const template_mark&) = default;
};

std::string format_template_mark(const template_mark& mark);
// Finds the mark line anywhere in a description; nothing when absent or malformed.
std::optional<template_mark> parse_template_mark(std::string_view description);
// `description` with its mark line replaced by `mark` (appended when it had none).
std::string with_template_mark(std::string_view description, const template_mark& mark);

}  // namespace kp::ownership
