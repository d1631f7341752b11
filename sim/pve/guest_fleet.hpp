#pragma once
// The simulated guests of running VMs: after a boot delay a guest reads the NoCloud files from
// the ISO on its CD-ROM and, when they carry a kubelet bootstrap, joins kube-sim as DESIGN.md
// section 5 says (bootstrap token -> CSR -> node credential -> Node -> Lease renewal). Stopping
// the VM stops the guest, so its Lease goes stale.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace kp::sim::pve {

struct guest_settings {
  std::chrono::milliseconds boot_delay{1000};
  std::chrono::milliseconds agent_delay{300};
  std::chrono::milliseconds lease_renew{10000};
  std::chrono::milliseconds csr_poll{100};
  std::string region = "pve-sim";
};

struct guest_boot {
  int vmid = 0;
  std::string node;
  std::string name;
  int cpus = 1;
  std::uint64_t memory_mib = 512;
  std::optional<std::filesystem::path> cdrom_iso;  // the ISO file attached as CD-ROM
  bool agent = false;                              // agent enabled in the config
  std::string ip;                                  // the address the guest reports
  // Extended resources its Node advertises (capacity = allocatable), e.g. nvidia.com/gpu: 1 for
  // a passed-through GPU, as a device plugin would register them.
  std::map<std::string, std::int64_t> extended_resources;
  // A join baked into the template: "kube-join server=<url> token=<id.secret> ca=<base64>"
  // in the VM description (the kproximate first-boot model).
  std::string baked_join;
};

// What a guest got to, for /sim/v1/guests and tests.
struct guest_report {
  int vmid = 0;
  std::string phase;  // booting, running, joining, joined, failed, stopped
  std::string detail;
  std::uint64_t lease_renewals = 0;
};

class guest_fleet {
 public:
  guest_fleet(boost::asio::io_context& io, guest_settings settings);
  ~guest_fleet();
  guest_fleet(const guest_fleet&) = delete;
  guest_fleet& operator=(const guest_fleet&) = delete;

  void start(guest_boot boot);
  void stop(int vmid);
  bool agent_running(int vmid) const;
  // Guest-agent exec: `kube-join server=... token=... [ca=...]` joins (kproximate model);
  // anything else succeeds with no output.
  struct exec_outcome {
    int exitcode = 0;
    std::string out;
    std::string err;
  };
  exec_outcome exec(int vmid, const std::vector<std::string>& argv);
  std::vector<guest_report> reports() const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace kp::sim::pve
