#include "protocol/proxmox/property_string.hpp"

#include <gtest/gtest.h>

namespace kp::proxmox {
namespace {

TEST(PropertyString, KeyValueListsParseInOrderAndFormatBack) {
  auto p = parse_property_string("cpus=0-3;8-11,hostnodes=0,memory=4096,policy=bind");
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 4u);
  EXPECT_EQ((*p)[0], (std::pair<std::string, std::string>{"cpus", "0-3;8-11"}));
  EXPECT_EQ(find_property(*p, "memory"), "4096");
  EXPECT_FALSE(find_property(*p, "nothing").has_value());
  EXPECT_EQ(format_property_string(*p), "cpus=0-3;8-11,hostnodes=0,memory=4096,policy=bind");
}

TEST(PropertyString, ABareValueBelongsToTheDefaultKeyOrIsAnError) {
  auto p = parse_property_string("local-lvm:vm-1-disk-0,size=32G", "file");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(find_property(*p, "file"), "local-lvm:vm-1-disk-0");
  EXPECT_FALSE(parse_property_string("bare,a=1").ok());
}

TEST(PropertyString, EmptyElementsDuplicateKeysAndEmptyKeysAreErrors) {
  EXPECT_FALSE(parse_property_string("a=1,,b=2").ok());
  EXPECT_FALSE(parse_property_string("a=1,a=2").ok());
  EXPECT_FALSE(parse_property_string("=1").ok());
  EXPECT_EQ(parse_property_string("a=1,").error().code, "invalid_property_string");
  auto empty = parse_property_string("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(PropertyString, CpuListsParseRangesAndNormaliseToTheShortForm) {
  auto cpus = parse_cpu_list("0-3,8-11");
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(*cpus, (std::vector<unsigned>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(format_cpu_list(*cpus), "0-3,8-11");
  auto messy = parse_cpu_list(" 3, 0,1 ,2,5,7-7,6");
  ASSERT_TRUE(messy.ok());
  EXPECT_EQ(format_cpu_list(*messy), "0-3,5-7");
  EXPECT_EQ(format_cpu_list({4}), "4");
  EXPECT_EQ(format_cpu_list({9, 8}), "8-9");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 9, 10, 11}, ';'), "0-3;8-11");
  auto semi = parse_cpu_list("0-3;8-11", ';');
  ASSERT_TRUE(semi.ok());
  EXPECT_EQ(semi->size(), 8u);
}

TEST(PropertyString, BadCpuListsAreErrors) {
  for (const char* bad : {"", "3-1", "a", "1-", "-1", "1,,2", "0-99999", "1.5", "0-3;8"}) {
    auto r = parse_cpu_list(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, "invalid_cpu_list");
    }
  }
}

TEST(PropertyString, NetDevicesReadModelMacBridgeAndQueues) {
  auto n = parse_net_device("virtio=BC:24:11:2E:3C:4F,bridge=vmbr0,firewall=1,queues=4,tag=20");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->model, "virtio");
  EXPECT_EQ(n->mac, "BC:24:11:2E:3C:4F");
  EXPECT_EQ(n->bridge, "vmbr0");
  EXPECT_EQ(n->firewall, true);
  EXPECT_EQ(n->queues, 4u);
  EXPECT_EQ(n->tag, 20u);
  EXPECT_EQ(format_net_device(*n),
            "virtio=BC:24:11:2E:3C:4F,bridge=vmbr0,firewall=1,queues=4,tag=20");

  auto bare = parse_net_device("virtio,bridge=vmbr1");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->model, "virtio");
  EXPECT_EQ(bare->mac, "");
  auto named = parse_net_device("model=e1000,macaddr=AA:BB:CC:DD:EE:FF,bridge=vmbr0,x-custom=7");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->model, "e1000");
  EXPECT_EQ(named->mac, "AA:BB:CC:DD:EE:FF");
  EXPECT_EQ(format_net_device(*named), "e1000=AA:BB:CC:DD:EE:FF,bridge=vmbr0,x-custom=7");
}

TEST(PropertyString, ChangingQueuesKeepsTheRestOfTheNetDevice) {
  auto n = parse_net_device("virtio=BC:24:11:2E:3C:4F,bridge=vmbr0,firewall=1");
  ASSERT_TRUE(n.ok());
  n->queues = 8;
  EXPECT_EQ(format_net_device(*n), "virtio=BC:24:11:2E:3C:4F,bridge=vmbr0,firewall=1,queues=8");
}

TEST(PropertyString, BadNetDevicesAreErrors) {
  EXPECT_FALSE(parse_net_device("bridge=vmbr0").ok());  // no model
  EXPECT_FALSE(parse_net_device("virtio,queues=many").ok());
  EXPECT_FALSE(parse_net_device("virtio,firewall=maybe").ok());
}

TEST(PropertyString, ANetDeviceWhoseModelCouldNotReadBackIsRefused) {
  // Found by fuzzing: "cpus=0-3,mtu" took "mtu" as its model and printed "mtu=0-3", which reads
  // back as an MTU that is not a number.
  EXPECT_FALSE(parse_net_device("cpus=0-3;8mbr0,firewall=1,tag=10,mtu").ok());
  EXPECT_FALSE(parse_net_device("model=bridge,bridge=vmbr0").ok());
  EXPECT_FALSE(parse_net_device("virtio,e1000").ok());  // two models
  auto ok = parse_net_device("model=virtio,macaddr=BC:24:11:00:00:01,bridge=vmbr0");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_TRUE(parse_net_device(format_net_device(*ok)).ok());
}

TEST(PropertyString, NumaNodesUseSemicolonsInsideCpuLists) {
  auto n = parse_numa_node("cpus=0-3;8-11,hostnodes=0,memory=4096,policy=bind");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->cpus, (std::vector<unsigned>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(n->hostnodes, (std::vector<unsigned>{0}));
  EXPECT_EQ(n->memory_mib, 4096u);
  EXPECT_EQ(n->policy, "bind");
  EXPECT_EQ(format_numa_node(*n), "cpus=0-3;8-11,hostnodes=0,memory=4096,policy=bind");
  EXPECT_FALSE(parse_numa_node("cpus=0-3,policy=sometimes").ok());
  EXPECT_FALSE(parse_numa_node("memory=1024").ok());
  EXPECT_FALSE(parse_numa_node("cpus=0-3,memory=lots").ok());
}

TEST(PropertyString, Smbios1TextFieldsAreBase64OnTheWire) {
  smbios1 s;
  s.uuid = "3b5a4b1c-1111-2222-3333-444455556666";
  s.sku = "c4-m8";
  s.serial = "h=worker-1;i=20001";
  auto text = format_smbios1(s);
  EXPECT_EQ(text,
            "uuid=3b5a4b1c-1111-2222-3333-444455556666,base64=1,serial=aD13b3JrZXItMTtpPTIwMDAx,"
            "sku=YzQtbTg=");
  auto back = parse_smbios1(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, s);
  auto plain = parse_smbios1("uuid=abc,manufacturer=Proxmox");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->manufacturer, "Proxmox");
  auto bare = parse_smbios1("27ef7222-27f0-48cb-9941-c799bb632ef5");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->uuid, "27ef7222-27f0-48cb-9941-c799bb632ef5");
  EXPECT_FALSE(parse_smbios1("base64=1,sku=!!!!").ok());
  EXPECT_FALSE(parse_smbios1("colour=blue").ok());
  EXPECT_EQ(format_smbios1(smbios1{"u-1", "", "", "", "", "", ""}), "uuid=u-1");
}

TEST(PropertyString, DrivesKeepTheirVolumeAndOptions) {
  auto d = parse_drive("local:iso/seed.iso,media=cdrom");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->volume, "local:iso/seed.iso");
  EXPECT_EQ(d->option("media"), "cdrom");
  EXPECT_EQ(format_drive(*d), "local:iso/seed.iso,media=cdrom");
  auto imported = parse_drive("file=local-lvm:0,format=raw,import-from=local:import/img.raw");
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->volume, "local-lvm:0");
  EXPECT_EQ(imported->option("import-from"), "local:import/img.raw");
  EXPECT_FALSE(parse_drive("media=cdrom").ok());
}

TEST(PropertyString, AVolumeHoldingAnEqualsSignIsWrittenWithItsKeySoItReadsBack) {
  // Found by fuzzing: "file=local:i=x" parsed, printed as "local:i=x" and read back as key
  // "local:i" with no volume.
  auto d = parse_drive("file=local:i=x,media=cdrom");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->volume, "local:i=x");
  EXPECT_EQ(format_drive(*d), "file=local:i=x,media=cdrom");
  auto again = parse_drive(format_drive(*d));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->volume, "local:i=x");
}

TEST(PropertyString, TagsAreLowerCasedSortedAndDistinct) {
  auto t = parse_tags("Karpenter;pool-a, zeta  alpha;karpenter");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<std::string>{"alpha", "karpenter", "pool-a", "zeta"}));
  EXPECT_EQ(format_tags({"b", "A", "a"}), "a;b");
  EXPECT_FALSE(parse_tags("ok;-bad").ok());
  EXPECT_FALSE(parse_tags("no/slash").ok());
  EXPECT_TRUE(parse_tags("")->empty());
}

TEST(PropertyString, MemoryAcceptsTheCurrentKey) {
  EXPECT_EQ(parse_memory_mib("4096").value_or(0), 4096u);
  EXPECT_EQ(parse_memory_mib("current=2048").value_or(0), 2048u);
  EXPECT_FALSE(parse_memory_mib("lots").ok());
}

}  // namespace
}  // namespace kp::proxmox
