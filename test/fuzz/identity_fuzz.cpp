// Provider IDs and the ownership marks in VM descriptions, from any text: parsing never
// crashes, and whatever parses formats back to the same value (the marks are how the garbage
// collector tells our VMs from anyone else's, so a mark that reads back differently would
// mean deleting or keeping the wrong VM).
#include "core/ownership/template_mark.hpp"
#include "core/ownership/vm_mark.hpp"
#include "protocol/provider_id.hpp"
#include "test/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = kp::fuzz::text_of(data, size);
  if (auto id = kp::protocol::parse_provider_id(text)) {
    auto again =
        kp::protocol::parse_provider_id(kp::protocol::format_provider_id(id->region, id->vmid));
    kp::fuzz::check(again && *again == *id, "provider id round trip", text);
  }
  if (auto mark = kp::ownership::parse_ownership_mark(text)) {
    auto printed = kp::ownership::format_ownership_mark(*mark);
    auto again = kp::ownership::parse_ownership_mark(printed);
    kp::fuzz::check(again && *again == *mark, "ownership mark round trip", printed);
  }
  (void)kp::ownership::is_go_provider_description(text);
  (void)kp::ownership::description_affinity(text);
  if (auto mark = kp::ownership::parse_template_mark(text)) {
    auto printed = kp::ownership::format_template_mark(*mark);
    auto again = kp::ownership::parse_template_mark(printed);
    kp::fuzz::check(again && *again == *mark, "template mark round trip", printed);
    auto replaced = kp::ownership::with_template_mark(text, *mark);
    auto found = kp::ownership::parse_template_mark(replaced);
    kp::fuzz::check(found && *found == *mark, "template mark replaced in place", replaced);
  }
  return 0;
}
