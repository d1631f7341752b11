#include <gtest/gtest.h>

#include "actors/region/inventory.hpp"
#include "actors/region/pci_passthrough.hpp"

namespace kp::actors::region {
namespace {

proxmox::vm_config parse(std::map<std::string, std::string> raw) {
  auto c = proxmox::parse_vm_config(raw);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : proxmox::vm_config{};
}

TEST(Inventory, APinnedVmIsRebuiltFromAffinityAndNuma) {
  auto c = parse({{"cores", "4"},
                  {"sockets", "1"},
                  {"memory", "4096"},
                  {"affinity", "0-1,16-17"},
                  {"numa0", "cpus=0-3,hostnodes=0,memory=4096,policy=bind"}});
  auto a = allocation_from_config(20001, c, true);
  EXPECT_EQ(a.vcpus, 4);
  EXPECT_EQ(a.memory_bytes, 4096ll << 20);
  EXPECT_EQ(a.pinned.to_string(), "0-1,16-17");
  ASSERT_EQ(a.numa.size(), 1u);
  EXPECT_EQ(a.numa[0].host_node, 0);
  EXPECT_EQ(a.numa[0].last_guest_cpu, 3);
}

TEST(Inventory, ATokenVmIsRebuiltFromTheAffinityPlanInItsDescription) {
  auto c = parse(
      {{"cores", "2"},
       {"memory", "2048"},
       {"description", "karpenter-proxmox: cluster=c, nodeclaim=n, nodepool=p, affinity=4,20"}});
  EXPECT_EQ(allocation_from_config(1, c, true).pinned.to_string(), "4,20");
}

TEST(Inventory, ReadsCreationTimeBootDiskAndSize) {
  auto c = parse({{"meta", "creation-qemu=8.1.5,ctime=1700000000"},
                  {"scsi0", "local-lvm:vm-1-disk-0,size=10G"}});
  EXPECT_EQ(creation_time(c), 1700000000);
  ASSERT_EQ(boot_disk(c), "scsi0");
  EXPECT_EQ(drive_size_gib(c.drives.at("scsi0")), 10u);
  EXPECT_EQ(creation_time(parse({})), 0);
}

TEST(Inventory, AKeptConfigHoldsOnlyTheRawKeysReadAgainUnlessATemplateOrTheTopologyVm) {
  const std::map<std::string, std::string> raw{
      {"name", "np-abcde"},
      {"description", "karpenter-proxmox: cluster=lab, nodeclaim=np-abcde, nodepool=np"},
      {"meta", "creation-qemu=8.1.5,ctime=1700000000"},
      {"tags", "karpenter;lab"},
      {"cores", "4"},
      {"memory", "8192"},
      {"scsi0", "local-lvm:vm-101-disk-0,size=30G"},
      {"net0", "virtio,bridge=vmbr0"},
      {"hostpci0", "mapping=gpu,pcie=1"},
      {"hostpci3", "mapping=nic"},
      {"smbios1", "sku=s1.large"}};
  auto full = parse(raw);
  auto kept = full;
  keep_read_keys(kept, "np-abcde");
  std::map<std::string, std::string> expected{{"meta", raw.at("meta")},
                                              {"tags", raw.at("tags")},
                                              {"hostpci0", raw.at("hostpci0")},
                                              {"hostpci3", raw.at("hostpci3")}};
  EXPECT_EQ(kept.raw, expected);
  // What the inventory reads of it is unchanged.
  EXPECT_EQ(kept.description, full.description);
  EXPECT_EQ(kept.cores, full.cores);
  EXPECT_EQ(kept.drives.size(), full.drives.size());
  EXPECT_EQ(kept.nets.size(), full.nets.size());
  EXPECT_EQ(creation_time(kept), 1700000000);
  EXPECT_EQ(mapped_pci_devices(kept), mapped_pci_devices(full));
  EXPECT_EQ(mark_of(vm_record{.config = kept}), mark_of(vm_record{.config = full}));

  auto tmpl = parse(raw);
  tmpl.is_template = true;
  keep_read_keys(tmpl, "np-abcde");
  EXPECT_EQ(tmpl.raw, raw) << "launches copy from a template's whole config";

  auto capacity = parse(raw);
  keep_read_keys(capacity, std::string(capacity_vm_name));
  EXPECT_EQ(capacity.raw, raw) << "the topology VM's raw keys describe its host";
}

// One listing of two hosts, a storage with ISOs, a VM, a template and a container.
std::vector<proxmox::cluster_resource> listing() {
  std::vector<proxmox::cluster_resource> out;
  auto add = [&](std::string type, std::string node, std::string status, std::uint32_t vmid = 0,
                 std::string name = "") {
    proxmox::cluster_resource r;
    r.type = std::move(type);
    r.node = std::move(node);
    r.status = std::move(status);
    r.vmid = vmid;
    r.name = std::move(name);
    out.push_back(r);
    return &out.back();
  };
  add("node", "pve1", "online");
  add("node", "pve2", "");
  add("storage", "pve1", "available")->content = "iso,vztmpl";
  out.back().storage = "local";
  add("qemu", "pve1", "running", 100, "web");
  add("qemu", "pve2", "stopped", 9000, "k8s-template")->template_ = true;
  add("lxc", "pve1", "running", 200, "ct");
  return out;
}

TEST(Inventory, AListingBecomesHostsAndVmsWithoutDetails) {
  auto l = listing_from_resources(listing());
  ASSERT_EQ(l.hosts.size(), 2u);
  EXPECT_TRUE(l.hosts.at("pve1").online());
  EXPECT_EQ(l.hosts.at("pve2").status, "unknown");
  EXPECT_EQ(l.hosts.at("pve1").iso_storages, std::vector<std::string>{"local"});
  ASSERT_EQ(l.vms.size(), 3u);
  EXPECT_TRUE(l.vms.at(9000).is_template);
  EXPECT_TRUE(l.vms.at(200).is_container);
  EXPECT_EQ(l.vms.at(100).node, "pve1");
  EXPECT_FALSE(l.vms.at(100).config.has_value());
}

TEST(Inventory, AHostHoldsItsRunningVmsAndOurStoppedOnesButNotAStrangersStoppedOne) {
  host_record host;
  host.name = "pve1";
  host.status = "online";
  std::map<std::uint32_t, vm_record> vms;
  auto vm = [&](std::uint32_t id, std::string status, std::string description) {
    vm_record r;
    r.vmid = id;
    r.node = "pve1";
    r.name = "vm" + std::to_string(id);
    r.status = std::move(status);
    std::map<std::string, std::string> raw{{"cores", "2"}, {"memory", "2048"}};
    if (!description.empty()) raw["description"] = description;
    r.config = parse(raw);
    vms[id] = r;
  };
  vm(1, "running", "");
  vm(2, "stopped", "karpenter-proxmox: cluster=lab, nodeclaim=a, nodepool=p");
  vm(3, "stopped", "");
  vm(4, "running", "karpenter-proxmox: cluster=other, nodeclaim=b, nodepool=p");
  auto topology = placement::predict_topology(1, 16, 8, 32ll << 30);
  const int empty = placement_host_of(host, topology, {}, {}, "lab").free_cpus();
  ASSERT_GE(empty, 10);
  auto hs = placement_host_of(host, topology, vms, {}, "lab");
  EXPECT_TRUE(hs.online);
  // 1 (running), 2 (ours, stopped) and 4 (running, another cluster's): 3 VMs of 2 vCPUs.
  EXPECT_EQ(hs.free_cpus(), empty - 6);
  reservations reserved{{5, {"pve1", placement::vm_allocation{5, 4, 4ll << 30, {}, {}, true}}}};
  EXPECT_EQ(placement_host_of(host, topology, vms, reserved, "lab").free_cpus(), empty - 10);
}

TEST(Inventory, ALaunchMayUseOnlyHostsHoldingItsTemplateWithinItsZones) {
  std::map<std::uint32_t, vm_record> vms;
  for (auto [id, node] : {std::pair<std::uint32_t, const char*>{9000, "pve1"}, {9001, "pve2"}}) {
    vm_record t;
    t.vmid = id;
    t.node = node;
    t.name = "k8s-template";
    t.is_template = true;
    t.config = parse({{"template", "1"}});
    vms[id] = t;
  }
  protocol::launch_request req;
  req.template_name = "k8s-template";
  req.min_free_cpu = 2;
  auto any = launch_hosts_for(req, vms, "r");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->filter.allowed_hosts, (std::vector<std::string>{"pve1", "pve2"}));
  EXPECT_EQ(any->templates.at("pve2"), 9001u);
  EXPECT_EQ(any->filter.min_free_cpu, 2);
  req.zones = {"pve2", "pve3"};
  EXPECT_EQ(launch_hosts_for(req, vms, "r")->filter.allowed_hosts,
            std::vector<std::string>{"pve2"});
  req.zones = {"pve3"};
  auto none = launch_hosts_for(req, vms, "r");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "template_missing");
  req.template_name = "other";
  req.zones.clear();
  auto missing = launch_hosts_for(req, vms, "r");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'other' is on no host of region r"), std::string::npos);
}

}  // namespace
}  // namespace kp::actors::region
