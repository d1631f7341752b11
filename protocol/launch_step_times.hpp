#pragma once
// How long the region's steps of one new VM took, on the actor clock, carried in the launch's
// reply so the NodeClaim actor can add the join and report clone -> Ready per step.
#include <cstdint>

#include <caf/meta/type_name.hpp>

namespace kp::protocol {

struct launch_step_times {
  // false when this launch did not make the VM from its clone (resumed or adopted): its earlier
  // steps ran elsewhere and their times are not known.
  bool measured = false;
  bool full_clone = false;
  std::int64_t clone_us = 0;       // clone call sent -> clone task done
  std::int64_t configure_us = 0;   // -> ISO upload, config write, disk resize, firewall done
  std::int64_t boot_us = 0;        // -> start task done
  std::int64_t after_boot_us = 0;  // -> the reply (the guest-agent join when there is one)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, launch_step_times& x) {
  return f(caf::meta::type_name("launch_step_times"), x.measured, x.full_clone, x.clone_us,
           x.configure_us, x.boot_us, x.after_boot_us);
}

}  // namespace kp::protocol
