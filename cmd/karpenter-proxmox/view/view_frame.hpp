#pragma once
// One frame of `karpenter-proxmox view` as text, a pure function of the snapshot: a heading, then
// per host its CPU and memory bars, one line per NUMA node with its own bars, and one line per
// node VM; then the NodeClaims in flight and the pending pods. Bars show what is taken (not free
// for new VMs) out of the total. With `colour`, ANSI colours mark the bars (green, yellow from
// 60 %, red from 85 %), headings and states; without, the text is plain ASCII.
#include <cstddef>
#include <string>

#include "cmd/karpenter-proxmox/view/view_snapshot.hpp"

namespace kp::view {

struct frame_style {
  bool colour = false;
  std::size_t bar_width = 20;
  std::size_t max_pods_listed = 6;  // a VM's pods after these are counted, not named
  std::size_t max_pending_listed = 20;
};

std::string render_frame(const view_snapshot& snap, const frame_style& style);

// "42s", "7m", "3h12m", "5d3h"; "-" when unknown.
std::string age_text(std::optional<std::int64_t> seconds);

}  // namespace kp::view
