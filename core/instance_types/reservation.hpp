#pragma once
// Reserved capacity (Karpenter's `reserved` capacity type): instance types INSTANCE_TYPES_FILE
// declares with `capacitytype: reserved` and a count of VMs per region or per host. Their
// offerings draw on a reservation, are available while the NodeClaims holding it leave some of
// the count, and carry the reservation id; a NodeClaim holds a reservation from the moment the
// provisioner pins it (in flight included) until it is gone.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/instance_types/instance_type.hpp"
#include "core/model/nodeclaim.hpp"
#include "core/result.hpp"

namespace kp::instance_types {

// The reservations of one declared type, made whole: a reserved type needs at least one and
// other types none; each count is positive; a missing id becomes "<type>[-<region>][-<host>]";
// ids are label values and no (region, host) is listed twice. Errors are
// "invalid_instance_types" naming the type, the reservation and the field.
result<std::vector<reservation>> validate_reservations(const std::string& type,
                                                       const std::string& capacity_type,
                                                       std::vector<reservation> items);

// The reservation an offering of `type` in (region, host) draws on: one for that host first,
// then one for the region, then one for anywhere; null when none covers it.
const reservation* reservation_for(const instance_type& type, const std::string& region,
                                   const std::string& host);

// The reservation a NodeClaim holds: its reservation-id label, else a single-valued `In`
// requirement on that key (a claim the provisioner pinned and that is not launched yet); empty
// when it holds none.
std::string reservation_of(const model::nodeclaim& claim);

// How many NodeClaims hold each reservation id.
using reservation_holds = std::map<std::string, std::int64_t>;
reservation_holds reservations_held(const std::vector<model::shared_nodeclaim>& claims);

// Offerings of reserved types draw on their reservation: reservation_id and
// reservation_capacity (count less holds, never below zero) are set, and an offering is
// available only while that is above zero; an offering no reservation covers is unavailable.
// Other types' offerings are left alone. Call after build_offerings.
void apply_reservations(std::vector<instance_type>& types, const reservation_holds& held);

// Every reserved offering made unavailable, prices kept: for consolidation, whose replacement
// NodeClaims are not pinned to a reservation (only the provisioner hands them out), so it never
// plans a move into reserved capacity while it still prices reserved nodes as they are.
void withhold_reserved_offerings(std::vector<instance_type>& types);

}  // namespace kp::instance_types
