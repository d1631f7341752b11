// A node class's additionalDisks as drives of the launch's config write: the next free scsiN
// after the template's disks, `<storage>:<GiB>` with the options asked for, the boot disk's
// storage when none is named.
#include "actors/region/data_disks.hpp"

#include <gtest/gtest.h>

namespace kp::actors::region {
namespace {

proxmox::vm_config template_config() {
  proxmox::vm_config c;
  c.drives["scsi0"] = {"local-lvm:base-9000-disk-0", {{"iothread", "1"}, {"size", "3G"}}};
  c.drives["ide2"] = {"local-lvm:vm-9000-cloudinit", {{"media", "cdrom"}}};
  return c;
}

TEST(DataDisks, EachDiskTakesTheNextScsiAfterTheTemplatesWithItsOptions) {
  std::vector<protocol::data_disk> disks = {{20, "local-lvm", "", false, false, false},
                                            {100, "ceph", "writeback", true, true, true}};
  auto drives = data_disk_drives(template_config(), disks);
  ASSERT_TRUE(drives.ok()) << drives.error().message;
  ASSERT_EQ(drives->size(), 2u);
  EXPECT_EQ(proxmox::format_drive(drives->at("scsi1")), "local-lvm:20");
  EXPECT_EQ(proxmox::format_drive(drives->at("scsi2")),
            "ceph:100,cache=writeback,discard=on,iothread=1,ssd=1");
}

TEST(DataDisks, ADiskWithoutStorageGoesWhereTheBootDiskIs) {
  auto base = template_config();
  base.drives["scsi3"] = {"nfs:9000/base-9000-disk-1.qcow2", {{"size", "1G"}}};
  auto drives = data_disk_drives(base, {{8, "", "", false, false, false}});
  ASSERT_TRUE(drives.ok()) << drives.error().message;
  ASSERT_EQ(drives->count("scsi4"), 1u) << "after the highest scsi the template has";
  EXPECT_EQ(drives->at("scsi4").volume, "local-lvm:8");
}

TEST(DataDisks, NoDisksWriteNothing) {
  auto drives = data_disk_drives(template_config(), {});
  ASSERT_TRUE(drives.ok());
  EXPECT_TRUE(drives->empty());
}

TEST(DataDisks, PassingScsi30OrHavingNoStorageIsAnError) {
  auto base = template_config();
  base.drives["scsi30"] = {"local-lvm:vm-9000-disk-1", {{"size", "1G"}}};
  auto full = data_disk_drives(base, {{8, "local-lvm", "", false, false, false}});
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, "invalid_request");
  EXPECT_NE(full.error().message.find("scsi30"), std::string::npos) << full.error().message;
  auto nowhere = data_disk_drives(proxmox::vm_config{}, {{8, "", "", false, false, false}});
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.error().message.find("storage"), std::string::npos);
}

}  // namespace
}  // namespace kp::actors::region
