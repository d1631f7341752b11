// pve-sim's answers that wait for their task (background_delay on config POSTs, delay on volume
// deletes) and the config digest on resize, as Proxmox has them.
#include <gtest/gtest.h>

#include "pve_sim_test_client.hpp"
#include "sim/pve/number_text.hpp"

using namespace kp::sim::pve;
using namespace kp::sim::pve::testing;

namespace {

class PveSimTaskAnswer : public ::testing::Test {
 protected:
  sim_fixture sim;

  int clone_template() {
    auto id = sim.api("GET", "/cluster/nextid");
    int vmid = parse_number<int>(std::string(id.data().as_string())).value_or(0);
    EXPECT_EQ(sim.run_task("POST", "/nodes/pve1/qemu/9001/clone",
                           {{"newid", std::to_string(vmid)}, {"name", "n" + std::to_string(vmid)}}),
              "OK");
    return vmid;
  }
  std::string vm_path(int vmid) { return "/nodes/pve1/qemu/" + std::to_string(vmid); }
};

}  // namespace

TEST_F(PveSimTaskAnswer, AConfigPostWithBackgroundDelayAnswersNullOnceItsTaskEnded) {
  int vmid = clone_template();
  auto r = sim.api("POST", vm_path(vmid) + "/config", {{"cores", "3"}, {"background_delay", "5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.data().is_null()) << r.body;
  auto cfg = sim.api("GET", vm_path(vmid) + "/config");
  EXPECT_EQ(cfg.data().at("cores").as_int64(), 3);
  // Without it, a UPID to poll.
  auto plain = sim.api("POST", vm_path(vmid) + "/config", {{"cores", "4"}});
  ASSERT_EQ(plain.status, 200);
  EXPECT_TRUE(plain.data().is_string());
  auto bad =
      sim.api("POST", vm_path(vmid) + "/config", {{"cores", "4"}, {"background_delay", "31"}});
  EXPECT_EQ(bad.status, 400);
}

TEST(PveSimSlowTaskAnswer, ATaskLongerThanTheDelayStillAnswersItsUpid) {
  sim_fixture slow(100.0);  // a config task takes 100 ms x 100 = 10 s here
  auto r = slow.api("POST", "/nodes/pve1/qemu/9001/config",
                    {{"description", "x"}, {"background_delay", "1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.data().is_string()) << r.body;
}

TEST_F(PveSimTaskAnswer, AResizeWithAStaleDigestIsRefused) {
  int vmid = clone_template();
  std::string digest(sim.api("GET", vm_path(vmid) + "/config").data().at("digest").as_string());
  auto stale = sim.api("PUT", vm_path(vmid) + "/resize",
                       {{"disk", "scsi0"}, {"size", "+1G"}, {"digest", "0000"}});
  EXPECT_EQ(stale.status, 500);
  EXPECT_EQ(stale.reason, "checksum mismatch (file change by other user?)");
  EXPECT_EQ(sim.run_task("PUT", vm_path(vmid) + "/resize",
                         {{"disk", "scsi0"}, {"size", "+1G"}, {"digest", digest}}),
            "OK");
}

TEST_F(PveSimTaskAnswer, AVolumeDeleteWithDelayAnswersNullOnceTheFileIsGone) {
  std::string boundary = "----b";
  kp::transport::http_request req;
  req.method = "POST";
  req.target = "/api2/json/nodes/pve1/storage/local/upload";
  req.headers = {{"Authorization", token_header},
                 {"Content-Type", "multipart/form-data; boundary=" + boundary}};
  req.body = "--" + boundary +
             "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\niso\r\n" + "--" +
             boundary +
             "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"a.iso\"\r\n" +
             "Content-Type: application/octet-stream\r\n\r\nbytes\r\n--" + boundary + "--\r\n";
  auto up = sim.raw(req);
  ASSERT_EQ(up.status, 200) << up.body;
  sim.wait_task(std::string(up.data().as_string()));
  auto r = sim.api("DELETE", "/nodes/pve1/storage/local/content/" + url_encode("local:iso/a.iso"),
                   {{"delay", "5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.data().is_null()) << r.body;
  EXPECT_FALSE(std::filesystem::exists(sim.data_dir() / "pve1" / "local" / "iso" / "a.iso"));
}
