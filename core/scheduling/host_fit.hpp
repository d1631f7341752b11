#pragma once
// Planned NodeClaims kept to the hosts where they fit, when offerings carry per-host capacity
// or overhead overrides (instance_types/offering_override.hpp). The simulation plans each type
// with its largest allocatable over the hosts; this step, after it, narrows each NodeClaim to
// the hosts whose offerings really hold its requests.
#include "core/scheduling/provision.hpp"

namespace kp::scheduling {

// For each planned NodeClaim with an option whose offerings carry overrides: options with no
// available offering (in the zones and capacity types its requirements allow) whose allocatable
// holds the NodeClaim's requests are dropped; the zone requirement becomes the hosts where the
// cheapest remaining option fits, and the other options stay only if they fit on each of those
// hosts they are offered on. A NodeClaim left with no option is removed from the plan and its
// pods get an error. Plans whose types carry no overrides are left as they are.
void keep_to_fitting_hosts(plan& p, const snapshot& snap);

}  // namespace kp::scheduling
