#pragma once
// Karpenter's reserved-offering step on a finished plan (its ReservationManager, done after the
// simulation): reserved offerings are the cheapest, so the simulation lists them first, but it
// does not count them; here each planned NodeClaim in turn takes one VM of a reservation that
// still has room, or loses its reserved options.
#include "core/scheduling/provision.hpp"

namespace kp::scheduling {

// For each planned NodeClaim, in plan order: its cheapest reserved option whose reservation
// still has capacity (each offering's reservation_capacity, less the NodeClaims pinned before
// it in this plan) in a zone its requirements allow becomes its only instance type, and it is
// pinned to `karpenter.sh/capacity-type In [reserved]`, the reservation id (single-valued, so
// the NodeClaim holds it from now on) and the zones of that reservation's available offerings;
// its right-sized option and minValues on instance types are dropped. A NodeClaim whose
// reserved options have no capacity left keeps its other options; left with none, it is
// removed from the plan and its pods get an error (they are planned again in the next batch,
// when the capacity shows in the offerings).
void pin_reservations(plan& p, const snapshot& snap);

}  // namespace kp::scheduling
