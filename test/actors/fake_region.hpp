#pragma once
// A region actor for tests of its callers: the handlers a test cares about, and answers for the
// rest of protocol::region_actor that say "nothing here" (ok and nothing to do, or an empty
// observation) unless the test gives its own observe or release-ISO handler. Header-only.
#include <caf/all.hpp>

#include "protocol/region_messages.hpp"

namespace kp::test {

template <class Launch, class Delete, class ListOwned, class Inventory, class Observe,
          class ReleaseIso>
protocol::region_actor::behavior_type fake_region_behavior(Launch launch, Delete remove,
                                                           ListOwned list_owned,
                                                           Inventory inventory, Observe observe,
                                                           ReleaseIso release_iso) {
  using namespace kp::protocol;
  auto step = [](template_atom, const auto&) { return template_step_reply{}; };
  return {
      std::move(launch),
      std::move(remove),
      std::move(list_owned),
      std::move(inventory),
      [](refresh_atom) {},
      std::move(release_iso),
      [](sync_vm_atom, const sync_vm_request&) {
        sync_vm_reply r;
        r.ok = true;
        return r;
      },
      [](const claimed_vmids&) {},
      std::move(observe),
      [step](template_atom a, const template_download_request& r) { return step(a, r); },
      [step](template_atom a, const template_create_request& r) { return step(a, r); },
      [step](template_atom a, const template_clone_request& r) { return step(a, r); },
      [step](template_atom a, const template_convert_request& r) { return step(a, r); },
      [step](template_atom a, const template_retire_request& r) { return step(a, r); },
      [step](template_atom a, const template_delete_request& r) { return step(a, r); },
  };
}

template <class Launch, class Delete, class ListOwned, class Inventory, class Observe>
protocol::region_actor::behavior_type fake_region_behavior(Launch launch, Delete remove,
                                                           ListOwned list_owned,
                                                           Inventory inventory, Observe observe) {
  using namespace kp::protocol;
  return fake_region_behavior(std::move(launch), std::move(remove), std::move(list_owned),
                              std::move(inventory), std::move(observe),
                              [](release_iso_atom, const release_iso_request&) {
                                release_iso_reply r;
                                r.ok = true;
                                r.nothing_to_do = true;
                                return r;
                              });
}

template <class Launch, class Delete, class ListOwned, class Inventory>
protocol::region_actor::behavior_type fake_region_behavior(Launch launch, Delete remove,
                                                           ListOwned list_owned,
                                                           Inventory inventory) {
  using namespace kp::protocol;
  return fake_region_behavior(
      std::move(launch), std::move(remove), std::move(list_owned), std::move(inventory),
      [](template_atom, const template_observe_request&) { return template_observation{}; });
}

}  // namespace kp::test
