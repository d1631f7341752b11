#include "actors/region/launch_timeline.hpp"

namespace kp::actors::region {

protocol::launch_step_times step_times(const launch_timeline& t,
                                       launch_timeline::time_point answered) {
  protocol::launch_step_times out;
  out.full_clone = t.full_clone;
  if (!t.clone_sent || !t.cloned || !t.configured || !t.started) return out;
  if (*t.cloned < *t.clone_sent || *t.configured < *t.cloned || *t.started < *t.configured ||
      answered < *t.started) {
    return out;
  }
  auto us = [](launch_timeline::time_point from, launch_timeline::time_point to) {
    return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
  };
  out.measured = true;
  out.clone_us = us(*t.clone_sent, *t.cloned);
  out.configure_us = us(*t.cloned, *t.configured);
  out.boot_us = us(*t.configured, *t.started);
  out.after_boot_us = us(*t.started, answered);
  return out;
}

}  // namespace kp::actors::region
