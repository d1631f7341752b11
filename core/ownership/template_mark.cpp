#include "core/ownership/template_mark.hpp"

#include "core/ownership/mark_text.hpp"

namespace kp::ownership {
namespace {

constexpr std::string_view mark_prefix = "karpenter-proxmox-template:";

std::optional<template_mark> parse_line(std::string_view line) {
  line = trim_mark_text(line);
  if (line.substr(0, mark_prefix.size()) != mark_prefix) return std::nullopt;
  line.remove_prefix(mark_prefix.size());
  template_mark mark;
  while (!line.empty()) {
    auto comma = line.find(',');
    auto item = trim_mark_text(line.substr(0, comma));
    line = comma == std::string_view::npos ? std::string_view{} : line.substr(comma + 1);
    auto eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    auto key = trim_mark_text(item.substr(0, eq));
    std::string value(trim_mark_text(item.substr(eq + 1)));
    if (value.empty()) return std::nullopt;
    if (key == "cluster") {
      mark.cluster = value;
    } else if (key == "template") {
      mark.template_name = value;
    } else if (key == "image") {
      mark.image = value;
    } else if (key == "checksum") {
      mark.checksum = value;
    } else if (key == "retired") {
      mark.retired = value == "true";
    } else {
      return std::nullopt;
    }
  }
  if (mark.cluster.empty() || mark.template_name.empty() || mark.image.empty()) {
    return std::nullopt;
  }
  return mark;
}

}  // namespace

std::string format_template_mark(const template_mark& mark) {
  std::string out = std::string(mark_prefix) + " cluster=" + mark.cluster +
                    ", template=" + mark.template_name + ", image=" + mark.image;
  if (!mark.checksum.empty()) out += ", checksum=" + mark.checksum;
  if (mark.retired) out += ", retired=true";
  return out;
}

std::optional<template_mark> parse_template_mark(std::string_view description) {
  while (!description.empty()) {
    auto nl = description.find('\n');
    if (auto m = parse_line(description.substr(0, nl))) return m;
    if (nl == std::string_view::npos) break;
    description.remove_prefix(nl + 1);
  }
  return std::nullopt;
}

std::string with_template_mark(std::string_view description, const template_mark& mark) {
  std::string out;
  bool replaced = false;
  while (!description.empty()) {
    auto nl = description.find('\n');
    auto line = description.substr(0, nl);
    if (!out.empty()) out += '\n';
    if (parse_line(line)) {
      out += format_template_mark(mark);
      replaced = true;
    } else {
      out += line;
    }
    if (nl == std::string_view::npos) break;
    description.remove_prefix(nl + 1);
  }
  if (!replaced) out += (out.empty() ? "" : "\n") + format_template_mark(mark);
  return out;
}

}  // namespace kp::ownership
