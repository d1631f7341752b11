#pragma once
// The Proxmox privileges each call of the client needs, kept next to the calls: one entry per
// method and path template of client.cpp. The role in docs/install.md is the union of these,
// and test/docs/install_privileges_test.cpp holds the page, this list and client.cpp together.
// Pure data: no Boost, no I/O.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kp::proxmox {

struct call_privileges {
  std::string_view call;      // the client's function (client.hpp), "login" for POST /access/ticket
  std::string_view method;    // GET, POST, PUT, DELETE
  std::string_view path;      // the client's path template, e.g. /nodes/{node}/qemu/{vmid}/clone
  std::string_view acl_path;  // where Proxmox checks them ("" when it checks nothing)
  // Space-separated; every one is needed unless `why` says "any of". Empty: any user may call.
  std::string_view privileges;
  std::string_view why;
  // False for calls only the client offers (tests and pve-sim set-up): not in the role.
  bool used_by_controller = true;
  // Proxmox VE majors the entry applies to (VM.Monitor is gone in 9, VM.GuestAgent.* new in 9).
  int from_major = 8;
  int to_major = 9;
};

// Every call the client can make, with what Proxmox checks.
std::span<const call_privileges> required_privileges();

// The privileges of the role for Proxmox VE `major` (8 or 9): the union of
// required_privileges(), sorted and unique.
std::vector<std::string> role_privileges(int major);

}  // namespace kp::proxmox
