// Proxmox API replies from any body: the envelope decoder and every typed decoder never crash
// on what a server (or something pretending to be one) sends, and a VM config decoded from the
// reply parses into typed fields or an error naming the key.
#include "protocol/proxmox/api_reply.hpp"
#include "protocol/proxmox/reply_decoding.hpp"
#include "protocol/proxmox/vm_config.hpp"
#include "test/fuzz/fuzz_check.hpp"

using namespace kp::proxmox;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kp::transport::http_response response;
  response.status = 200;
  response.body = std::string(kp::fuzz::text_of(data, size));
  auto reply = decode_reply(kp::transport::response_result(response));
  if (!reply) {
    response.status = 500;  // the error path reads the body too
    (void)decode_reply(kp::transport::response_result(response));
    return 0;
  }
  const auto& v = *reply;
  (void)decode_version(v);
  (void)decode_cluster_resources(v);
  (void)decode_node_status(v);
  (void)decode_network(v);
  (void)decode_vmid(v);
  (void)decode_upid(v);
  (void)decode_vm_status(v);
  (void)decode_storages(v);
  (void)decode_storage_content(v);
  (void)decode_firewall_options(v);
  (void)decode_firewall_rules(v);
  (void)decode_firewall_groups(v);
  (void)decode_pools(v);
  (void)decode_pool(v);
  (void)decode_exec_pid(v);
  (void)decode_exec_status(v);
  (void)decode_task_status(v);
  if (auto raw = decode_text_object(v)) {
    if (auto config = parse_vm_config(*raw)) (void)config->agent_enabled();
  }
  return 0;
}
