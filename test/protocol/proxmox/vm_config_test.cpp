#include "protocol/proxmox/vm_config.hpp"

#include <gtest/gtest.h>

namespace kp::proxmox {
namespace {

std::map<std::string, std::string> sample_raw() {
  return {
      {"name", "worker-1"},
      {"cores", "4"},
      {"sockets", "1"},
      {"memory", "8192"},
      {"numa", "1"},
      {"numa0", "cpus=0-1,hostnodes=0,memory=4096,policy=bind"},
      {"numa1", "cpus=2-3,hostnodes=1,memory=4096,policy=bind"},
      {"affinity", "0-1,16-17"},
      {"cpu", "host"},
      {"net0", "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,queues=4"},
      {"ide2", "local:iso/user-data-101.iso,media=cdrom"},
      {"scsi0", "local-lvm:vm-101-disk-0,iothread=1,size=32G"},
      {"ipconfig0", "ip=dhcp"},
      {"tags", "karpenter;pool-a"},
      {"smbios1", "uuid=u-1,base64=1,sku=YzQtbTg="},
      {"onboot", "1"},
      {"agent", "enabled=1,fstrim_cloned_disks=1"},
      {"sshkeys", "ssh-ed25519%20AAAA%20me%0A"},
      {"description", "karpenter-proxmox: cluster=c, nodeclaim=worker-1, nodepool=p"},
      {"digest", "0123abcd"},
      {"vmgenid", "keep-me"},
  };
}

TEST(VmConfig, TypedFieldsAreReadFromTheRawConfig) {
  auto c = parse_vm_config(sample_raw());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "worker-1");
  EXPECT_EQ(c->cores, 4u);
  EXPECT_EQ(c->memory_mib, 8192u);
  EXPECT_EQ(c->numa, true);
  ASSERT_EQ(c->numa_nodes.size(), 2u);
  EXPECT_EQ(c->numa_nodes.at(1).hostnodes, (std::vector<unsigned>{1}));
  EXPECT_EQ(c->affinity, (std::vector<unsigned>{0, 1, 16, 17}));
  EXPECT_EQ(c->nets.at(0).queues, 4u);
  EXPECT_EQ(c->drives.at("ide2").option("media"), "cdrom");
  EXPECT_EQ(c->drives.at("scsi0").volume, "local-lvm:vm-101-disk-0");
  EXPECT_EQ(c->ipconfigs.at(0), "ip=dhcp");
  EXPECT_EQ(c->tags, (std::vector<std::string>{"karpenter", "pool-a"}));
  EXPECT_EQ(c->smbios->sku, "c4-m8");
  EXPECT_EQ(c->onboot, true);
  EXPECT_TRUE(c->agent_enabled());
  EXPECT_EQ(c->sshkeys, "ssh-ed25519 AAAA me\n");
  EXPECT_EQ(c->digest, "0123abcd");
  EXPECT_EQ(c->raw.at("vmgenid"), "keep-me");
  EXPECT_FALSE(c->is_template);
}

TEST(VmConfig, AValueThatDoesNotParseNamesItsKey) {
  auto raw = sample_raw();
  raw["numa0"] = "cpus=3-1";
  auto c = parse_vm_config(raw);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, "invalid_config");
  EXPECT_NE(c.error().message.find("numa0"), std::string::npos);
  raw = sample_raw();
  raw["cores"] = "four";
  EXPECT_FALSE(parse_vm_config(raw).ok());
}

TEST(VmConfig, AnUpdateBecomesFormParametersInAFixedOrder) {
  vm_config_update u;
  u.cores = 4;
  u.memory_mib = 8192;
  u.numa = true;
  u.numa_nodes[0] = numa_node{{0, 1, 8, 9}, {0}, 4096, "bind"};
  u.affinity = std::vector<unsigned>{0, 1, 2, 3};
  u.nets[0] = net_device{"virtio", "BC:24:11:00:00:01", "vmbr0", true, {}, {}, {}, 4, {}, {}};
  u.drives["ide2"] = cdrom_drive("local:iso/seed.iso");
  u.tags = std::vector<std::string>{"Pool-A", "karpenter"};
  u.smbios = smbios1{"u-1", "", "", "", "", "c4", ""};
  u.sshkeys = "ssh-ed25519 AAAA";
  u.raw.emplace_back("balloon", "0");
  u.remove = {"vga", "serial0"};
  u.digest = "abc";
  form_params expected{
      {"cores", "4"},
      {"memory", "8192"},
      {"numa", "1"},
      {"numa0", "cpus=0-1;8-9,hostnodes=0,memory=4096,policy=bind"},
      {"affinity", "0-3"},
      {"net0", "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,queues=4"},
      {"ide2", "local:iso/seed.iso,media=cdrom"},
      {"tags", "karpenter;pool-a"},
      {"smbios1", "uuid=u-1,base64=1,sku=YzQ="},
      {"sshkeys", "ssh-ed25519%20AAAA"},
      {"balloon", "0"},
      {"delete", "vga,serial0"},
      {"digest", "abc"},
  };
  EXPECT_EQ(to_form(u), expected);
  EXPECT_TRUE(u.needs_root());
  EXPECT_FALSE(u.empty());
}

TEST(VmConfig, AnEmptyUpdateSendsNothingAndOnlyRootOnlyKeysNeedRoot) {
  vm_config_update u;
  EXPECT_TRUE(u.empty());
  u.digest = "abc";  // a digest alone is not a change
  EXPECT_TRUE(u.empty());
  u.cores = 2;
  EXPECT_FALSE(u.needs_root());
  u.raw.emplace_back("hookscript", "local:snippets/x.pl");
  EXPECT_TRUE(u.needs_root());
}

}  // namespace
}  // namespace kp::proxmox
