#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/proxmox/api_error.hpp"
#include "protocol/proxmox/api_reply.hpp"
#include "protocol/proxmox/reply_decoding.hpp"

namespace kp::proxmox {
namespace {

namespace json = boost::json;

transport::response_result reply(int status, std::string body) {
  transport::http_response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", "application/json;charset=UTF-8");
  r.body = std::move(body);
  return r;
}

TEST(ApiReply, TheDataOfTheEnvelopeIsReturned) {
  auto d = decode_reply(reply(200, R"({"data":{"version":"8.4.1","release":"8.4"}})"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->at("version").as_string(), "8.4.1");
  auto null_data = decode_reply(reply(200, R"({"data":null})"));
  ASSERT_TRUE(null_data.ok());
  EXPECT_TRUE(null_data->is_null());
}

TEST(ApiReply, MalformedSuccessRepliesAreErrorValues) {
  for (const char* body : {"", "not json", "[1,2]", R"({"nodata":1})", R"({"data":)", "\xff\xfe",
                           "null", R"("data")"}) {
    auto d = decode_reply(reply(200, body));
    ASSERT_FALSE(d.ok()) << body;
    EXPECT_EQ(d.error().code, "invalid_reply") << body;
  }
}

TEST(ApiReply, ParameterErrorsBecomeInvalidParameterListingEveryParameter) {
  auto d = decode_reply(
      reply(400, R"({"data":null,"message":"Parameter verification failed.\n",)"
                 R"("errors":{"newid":"value must have a minimum value of 100",)"
                 R"("name":"invalid format - value does not look like a valid DNS name"}})"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "invalid_parameter");
  EXPECT_EQ(d.error().message,
            "400 Parameter verification failed. (name: invalid format - value does not look like a "
            "valid DNS name; newid: value must have a minimum value of 100)");
}

TEST(ApiReply, ATakenVmidIsAConflict) {
  auto d = decode_reply(reply(400, R"({"data":null,"errors":{"vmid":"VM 190 already exists"}})"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "conflict");
}

TEST(ApiReply, StatusCodesAndProxmoxSentencesMapToTypedCodes) {
  struct expectation {
    int status;
    const char* message;
    const char* code;
  };
  for (const auto& e : std::initializer_list<expectation>{
           {401, "authentication failure", "unauthorized"},
           {403, "Permission check failed (/vms/100, VM.Allocate)", "forbidden"},
           {404, "", "not_found"},
           {500, "VM is locked (clone)", "locked"},
           {500, "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout", "locked"},
           {500, "Configuration file 'nodes/pve1/qemu-server/101.conf' does not exist",
            "not_found"},
           {500, "VM 101 is running - destroy failed", "conflict"},
           {500, "only root can set 'affinity' config", "forbidden"},
           {500, "No QEMU guest agent configured", "agent_unavailable"},
           {500, "QEMU guest agent is not running", "agent_unavailable"},
           {500, "something odd", "server_error"},
           {501, "Method 'GET /foo' not implemented", "not_implemented"},
           {503, "", "unavailable"},
           {595, "Errors during connection establishment, proxy handshake: No route to host",
            "host_offline"},
           {596, "Connection timed out", "host_offline"},
           {418, "", "bad_request"},
       }) {
    auto err = api_error(e.status, e.message, {});
    EXPECT_EQ(err.code, e.code) << e.status << " " << e.message;
    EXPECT_EQ(err.message.substr(0, 3), std::to_string(e.status));
  }
}

TEST(ApiReply, ANonJsonErrorBodyGivesItsFirstLineAsTheMessage) {
  auto d = decode_reply(reply(500, "VM is locked (backup)\nmore"));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "locked");
  EXPECT_EQ(d.error().message, "500 VM is locked (backup)");
}

TEST(ApiReply, TransportFailuresKeepTimeoutApartFromTheRest) {
  EXPECT_EQ(decode_reply(kp::make_error("timeout", "no reply in 60 s")).error().code, "timeout");
  EXPECT_EQ(decode_reply(kp::make_error("connect", "refused")).error().code, "transport");
  EXPECT_EQ(decode_reply(kp::make_error("cancelled", "closed")).error().code, "cancelled");
  EXPECT_TRUE(is_transient(make_error("host_offline", "")));
  EXPECT_FALSE(is_transient(make_error("invalid_parameter", "")));
}

TEST(ReplyDecoding, NumbersSentAsStringsAreAccepted) {
  EXPECT_EQ(decode_vmid(json::parse(R"("100")")).value_or(0), 100u);
  EXPECT_EQ(decode_vmid(json::parse("20001")).value_or(0), 20001u);
  EXPECT_FALSE(decode_vmid(json::parse(R"("abc")")).ok());
  EXPECT_FALSE(decode_vmid(json::parse("0")).ok());
  EXPECT_FALSE(decode_vmid(json::parse("1.5")).ok());
  auto cfg = decode_text_object(json::parse(R"({"cores":4,"memory":"4096","numa":1,"x":true})"));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->at("cores"), "4");
  EXPECT_EQ(cfg->at("memory"), "4096");
  EXPECT_EQ(cfg->at("x"), "1");
}

TEST(ReplyDecoding, ClusterResourcesOfEveryTypeDecode) {
  auto r = decode_cluster_resources(json::parse(R"([
    {"id":"qemu/101","type":"qemu","vmid":101,"node":"pve1","status":"running","name":"w1",
     "template":0,"maxcpu":4,"cpu":0.25,"maxmem":8589934592,"mem":"1024","tags":"karpenter"},
    {"id":"node/pve1","type":"node","node":"pve1","status":"online","maxcpu":32,"cpu":0.1,
     "maxmem":137438953472,"mem":1000},
    {"id":"storage/pve1/local","type":"storage","node":"pve1","storage":"local",
     "content":"iso,import","shared":0,"status":"available","disk":5,"maxdisk":100}])"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].vmid, 101u);
  EXPECT_EQ((*r)[0].mem, 1024u);
  EXPECT_DOUBLE_EQ((*r)[0].cpu, 0.25);
  EXPECT_EQ((*r)[1].maxcpu, 32);
  EXPECT_EQ((*r)[2].content, "iso,import");
}

// Found by fuzzing: 2^32 passed the old bound (4.3e9) and overflowed the conversion.
TEST(ReplyDecoding, NumbersBeyondTheirFieldReadAsAbsentNeverWrapped) {
  auto r = decode_cluster_resources(json::parse(R"([
    {"id":"qemu/1","type":"qemu","vmid":1,"maxmem":18446744073709551616},
    {"id":"qemu/2","type":"qemu","vmid":4294967295,"maxmem":18446744073709549568}])"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].maxmem, 0u);
  EXPECT_EQ((*r)[1].vmid, 4294967295u);
  EXPECT_EQ((*r)[1].maxmem, 18446744073709549568u);
  auto beyond =
      decode_cluster_resources(json::parse(R"([{"id":"qemu/3","type":"qemu","vmid":4294967296}])"));
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().message, "VM resource qemu/3 has no vmid");
}

TEST(ReplyDecoding, WrongShapesAreInvalidRepliesNotCrashes) {
  EXPECT_EQ(decode_cluster_resources(json::parse("{}")).error().code, "invalid_reply");
  EXPECT_FALSE(decode_cluster_resources(json::parse("[1]")).ok());
  EXPECT_FALSE(decode_cluster_resources(json::parse(R"([{"type":"qemu","id":"qemu/1"}])")).ok());
  EXPECT_FALSE(decode_version(json::parse("[]")).ok());
  EXPECT_FALSE(decode_upid(json::parse("5")).ok());
  EXPECT_FALSE(decode_upid(json::parse(R"("UPID:broken")")).ok());
  EXPECT_FALSE(decode_task_status(json::parse(R"({"status":"weird"})")).ok());
  EXPECT_FALSE(decode_vm_status(json::parse(R"({"vmid":1})")).ok());
  EXPECT_FALSE(decode_storages(json::parse(R"([{"type":"dir"}])")).ok());
  EXPECT_FALSE(decode_exec_pid(json::parse(R"({"pid":"x"})")).ok());
  EXPECT_FALSE(decode_pool(json::parse(R"({"members":5})")).ok());
  // Odd but harmless field types fall back to defaults.
  auto s = decode_vm_status(json::parse(R"({"status":"running","cpus":[1],"maxmem":{"a":1}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cpus, 0u);
}

TEST(ReplyDecoding, TaskStatusJoinsUserAndTokenAndJudgesSuccess) {
  auto t = decode_task_status(json::parse(
      R"({"upid":"UPID:pve1:00000001:00000002:00000003:qmclone:101:kubernetes@pve:","node":"pve1",)"
      R"("type":"qmclone","id":"101","user":"kubernetes@pve","tokenid":"karpenter",)"
      R"("status":"stopped","exitstatus":"WARNINGS: 2"})"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->user, "kubernetes@pve!karpenter");
  EXPECT_TRUE(t->succeeded());
  task_status failed = *t;
  failed.exitstatus = "clone failed: no space";
  EXPECT_FALSE(failed.succeeded());
  failed.status = "running";
  failed.exitstatus = "";
  EXPECT_TRUE(failed.running());
}

TEST(ReplyDecoding, ClusterTasksAreRunningWithoutAnEndAndStoppedWithTheirStatusAsExitStatus) {
  auto list = decode_cluster_tasks(json::parse(
      R"([{"upid":"UPID:pve1:00000001:00000002:00000003:qmclone:101:kubernetes@pve:",)"
      R"("node":"pve1","type":"qmclone","id":"101","user":"kubernetes@pve","pid":1,)"
      R"("starttime":3},)"
      R"({"upid":"UPID:pve2:00000004:00000005:00000006:qmstart:102:kubernetes@pve:",)"
      R"("node":"pve2","type":"qmstart","id":"102","user":"kubernetes@pve","tokenid":"k",)"
      R"("starttime":6,"endtime":7,"status":"start failed: no memory","saved":"1"},)"
      R"({"node":"pve3","type":"vzdump"}])"));
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->size(), 2u) << "an entry without a UPID answers nothing";
  EXPECT_TRUE((*list)[0].running());
  EXPECT_EQ((*list)[0].type, "qmclone");
  EXPECT_EQ((*list)[1].status, "stopped");
  EXPECT_EQ((*list)[1].exitstatus, "start failed: no memory");
  EXPECT_EQ((*list)[1].user, "kubernetes@pve!k");
  EXPECT_FALSE((*list)[1].succeeded());
  EXPECT_FALSE(decode_cluster_tasks(json::parse(R"({"upid":"x"})")).ok());
  EXPECT_FALSE(decode_cluster_tasks(json::parse(R"([5])")).ok());
}

TEST(ReplyDecoding, NodeStatusReadsCpuinfoAndMemory) {
  auto n = decode_node_status(
      json::parse(R"({"cpu":0.5,"cpuinfo":{"model":"Sim","cpus":32,"sockets":2,"cores":16},)"
                  R"("memory":{"total":100,"used":40,"free":60},"loadavg":["0.1","0.2","0.3"]})"));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->cpuinfo.cores, 16u);
  EXPECT_EQ(n->memory_free, 60u);
  EXPECT_EQ(n->loadavg.size(), 3u);
}

}  // namespace
}  // namespace kp::proxmox
