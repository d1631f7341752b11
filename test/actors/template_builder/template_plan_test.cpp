// Pure planning of managed templates: what one host needs next for a ProxmoxTemplate, the mark
// that finds our VMs after a restart, spec validation and the status the outcome implies.
#include "actors/template_builder/template_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kp::actors::template_builder {
namespace {

constexpr const char* url = "https://images.example.com/noble-server-cloudimg-amd64.img";
constexpr const char* sha =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";  // 64 hex digits

kube::proxmox_template make_template(const std::string& image_url = url) {
  kube::proxmox_template t;
  t.metadata.name = "ubuntu";
  t.metadata.generation = 3;
  t.spec.description = "Ubuntu 24.04";
  t.spec.source_image.url = image_url;
  t.spec.source_image.image_name = "noble.img";
  t.spec.source_image.checksum = sha;
  t.spec.source_image.checksum_type = "sha256";
  t.spec.storage_ids = {"local-lvm", "local"};
  kube::template_network n;
  n.bridge = "vmbr0";
  n.firewall = true;
  n.mtu = 1500;
  t.spec.network.push_back(n);
  t.spec.cpu_type = "host";
  t.spec.cpu_flags = {"aes", "-pcid"};
  t.spec.agent = kube::template_agent{true, "virtio", std::nullopt, true};
  t.spec.tags = {"Kubernetes", "ubuntu"};
  return t;
}

desired_template desired(const kube::proxmox_template& t = make_template()) {
  auto v = validate_template(t, "c1");
  if (const auto* p = std::get_if<spec_problem>(&v)) {
    ADD_FAILURE() << p->message;
    return {};
  }
  return std::get<desired_template>(v);
}

host_view host_with_storages() {
  host_view h;
  h.host = "pve1";
  proxmox::storage_info lvm;
  lvm.storage = "local-lvm";
  lvm.type = "lvmthin";
  lvm.content = "images,rootdir";
  lvm.active = true;
  proxmox::storage_info dir;
  dir.storage = "local";
  dir.type = "dir";
  dir.content = "iso,import,vztmpl";
  dir.active = true;
  h.storages = {lvm, dir};
  return h;
}

existing_vm our_vm(std::uint32_t vmid, const desired_template& d, bool is_template = true) {
  existing_vm vm;
  vm.vmid = vmid;
  vm.name = d.name;
  vm.is_template = is_template;
  vm.mark = d.mark();
  vm.description = "Ubuntu 24.04\n" + format_template_mark(vm.mark);
  vm.tags = "kubernetes;ubuntu";
  return vm;
}

std::vector<step_kind> kinds(const host_plan& p) {
  std::vector<step_kind> out;
  for (const auto& s : p.steps) out.push_back(s.kind);
  return out;
}

std::string config_value(const std::vector<std::pair<std::string, std::string>>& c,
                         const std::string& key) {
  for (const auto& [k, v] : c) {
    if (k == key) return v;
  }
  return "<absent>";
}

TEST(TemplatePlan, NothingOnTheHostPlansDownloadCreateAndConvert) {
  auto d = desired();
  auto p = plan_host(d, host_with_storages());
  EXPECT_EQ(kinds(p), (std::vector{step_kind::download, step_kind::create, step_kind::convert}));
  EXPECT_FALSE(p.ready_vmid);
  EXPECT_EQ(p.import_storage, "local");
  EXPECT_EQ(p.images_storage, "local-lvm");
  const auto& dl = p.steps[0].download;
  EXPECT_EQ(dl.node, "pve1");
  EXPECT_EQ(dl.storage, "local");
  EXPECT_EQ(dl.content, "import");
  EXPECT_EQ(dl.url, url);
  EXPECT_EQ(dl.checksum, sha);
  EXPECT_EQ(dl.checksum_algorithm, "sha256");
  EXPECT_EQ(dl.filename, d.image.file_name);
  EXPECT_EQ(config_value(p.steps[1].config, "scsi0"),
            "local-lvm:0,import-from=local:import/" + d.image.file_name + ",iothread=1");
}

TEST(TemplatePlan, AnImageFileAlreadyThereIsNotDownloadedAgain) {
  auto d = desired();
  auto h = host_with_storages();
  h.import_volids = {"local:import/other.qcow2", "local:import/" + d.image.file_name};
  auto p = plan_host(d, h);
  EXPECT_EQ(kinds(p), (std::vector{step_kind::create, step_kind::convert}));
}

TEST(TemplatePlan, AReadyTemplateOfTheCurrentImageNeedsNothing) {
  auto d = desired();
  auto h = host_with_storages();
  h.vms = {our_vm(105, d)};
  auto p = plan_host(d, h);
  EXPECT_TRUE(p.steps.empty());
  ASSERT_TRUE(p.ready_vmid);
  EXPECT_EQ(*p.ready_vmid, 105u);
}

TEST(TemplatePlan, AVmCreatedButNeverConvertedIsConvertedNotRebuilt) {
  auto d = desired();
  auto h = host_with_storages();
  h.vms = {our_vm(106, d, false)};
  auto p = plan_host(d, h);
  ASSERT_EQ(kinds(p), (std::vector{step_kind::convert}));
  EXPECT_EQ(p.steps[0].vmid, 106u);
}

TEST(TemplatePlan, AChangedImageBuildsANewTemplateThenRetiresTheOld) {
  auto old_d = desired();
  auto new_d = desired(make_template("https://images.example.com/noble-v2.img"));
  ASSERT_NE(old_d.image.file_name, new_d.image.file_name);
  auto h = host_with_storages();
  h.vms = {our_vm(105, old_d)};
  auto p = plan_host(new_d, h);
  ASSERT_EQ(kinds(p), (std::vector{step_kind::download, step_kind::create, step_kind::convert,
                                   step_kind::retire}));
  const auto& retire = p.steps[3];
  EXPECT_EQ(retire.vmid, 105u);
  EXPECT_EQ(config_value(retire.config, "name"), "ubuntu-retired-105");
  EXPECT_EQ(config_value(retire.config, "tags"), "karpenter-retired;kubernetes;ubuntu");
  auto mark = parse_template_mark(config_value(retire.config, "description"));
  ASSERT_TRUE(mark);
  EXPECT_TRUE(mark->retired);
  EXPECT_EQ(mark->image, old_d.image.file_name);
  EXPECT_NE(config_value(retire.config, "description").find("Ubuntu 24.04\n"), std::string::npos);
}

TEST(TemplatePlan, AnOldTemplateIsNotRetiredWhileNoNewOneCanBeBuilt) {
  auto old_d = desired();
  auto new_d = desired(make_template("https://images.example.com/noble-v2.img"));
  auto h = host_with_storages();
  h.storages.pop_back();  // no import storage any more
  h.vms = {our_vm(105, old_d)};
  auto p = plan_host(new_d, h);
  EXPECT_TRUE(p.steps.empty());
  ASSERT_TRUE(p.blocked);
  EXPECT_EQ(p.blocked->reason.view(), "StorageNotFound");
  EXPECT_NE(p.blocked->message.find("import"), std::string::npos);
}

TEST(TemplatePlan, ARetiredTemplateThatLinkedClonesUseIsKept) {
  auto d = desired();
  auto h = host_with_storages();
  auto old = our_vm(104, desired(make_template("https://images.example.com/old.img")));
  old.mark.retired = true;
  old.linked_clones = 2;
  h.vms = {our_vm(105, d), old};
  auto p = plan_host(d, h);
  EXPECT_TRUE(p.steps.empty());
  EXPECT_EQ(p.retired_kept, 1u);
}

TEST(TemplatePlan, ARetiredTemplateWhoseClonesAreUncountedIsKept) {
  auto d = desired();
  auto h = host_with_storages();
  auto old = our_vm(104, desired(make_template("https://images.example.com/old.img")));
  old.mark.retired = true;
  h.vms = {our_vm(105, d), old};
  EXPECT_TRUE(plan_host(d, h).steps.empty());
}

TEST(TemplatePlan, ARetiredTemplateWithoutLinkedClonesIsDestroyed) {
  auto d = desired();
  auto h = host_with_storages();
  auto old = our_vm(104, desired(make_template("https://images.example.com/old.img")));
  old.mark.retired = true;
  old.linked_clones = 0;
  h.vms = {our_vm(105, d), old};
  auto p = plan_host(d, h);
  ASSERT_EQ(kinds(p), (std::vector{step_kind::destroy}));
  EXPECT_EQ(p.steps[0].vmid, 104u);
}

TEST(TemplatePlan, VmsOfAnotherClusterOrTemplateAreLeftAlone) {
  auto d = desired();
  auto h = host_with_storages();
  auto foreign = our_vm(105, d);
  foreign.mark.cluster = "c2";
  auto other = our_vm(106, d);
  other.mark.template_name = "debian";
  other.mark.image = "debian-1.qcow2";
  h.vms = {foreign, other};
  auto p = plan_host(d, h);
  EXPECT_EQ(kinds(p), (std::vector{step_kind::download, step_kind::create, step_kind::convert}));
}

TEST(TemplatePlan, VmsOfADeletedTemplateAreRetiredThenDestroyedWhenUnused) {
  auto d = desired();
  auto h = host_with_storages();
  auto live = our_vm(105, d);
  auto retired_used = our_vm(104, d);
  retired_used.mark.retired = true;
  retired_used.linked_clones = 1;
  auto retired_free = our_vm(103, d);
  retired_free.mark.retired = true;
  retired_free.linked_clones = 0;
  auto unfinished = our_vm(106, d, false);
  h.vms = {live, retired_used, retired_free, unfinished};
  auto p = plan_orphans("c1", h, {"debian"});
  ASSERT_EQ(kinds(p), (std::vector{step_kind::retire, step_kind::destroy, step_kind::destroy}));
  EXPECT_EQ(p.steps[0].vmid, 105u);
  EXPECT_EQ(p.steps[1].vmid, 103u);
  EXPECT_EQ(p.steps[2].vmid, 106u);
  EXPECT_EQ(p.retired_kept, 1u);
  EXPECT_TRUE(plan_orphans("c1", h, {"ubuntu"}).steps.empty());
  EXPECT_TRUE(plan_orphans("c2", h, {}).steps.empty());
}

TEST(TemplateMark, RoundTripsAndIsFoundAmongOtherLines) {
  template_mark m{"c1", "ubuntu", "noble-1.img", "sha256:ab", false};
  auto text = "Some text\n" + format_template_mark(m) + "\nmore";
  auto parsed = parse_template_mark(text);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, m);
  EXPECT_FALSE(parse_template_mark("karpenter-proxmox-template: cluster=c1"));
  EXPECT_FALSE(parse_template_mark("karpenter-proxmox: cluster=c1, nodeclaim=x, nodepool=y"));
  m.retired = true;
  auto replaced = with_template_mark(text, m);
  EXPECT_EQ(replaced, "Some text\n" + format_template_mark(m) + "\nmore");
  EXPECT_TRUE(parse_template_mark(replaced)->retired);
}

TEST(TemplateValidation, ComputesAnImageFileNameThatChangesWithUrlOrChecksum) {
  auto a = desired();
  EXPECT_EQ(a.image.file_name.rfind("noble-", 0), 0u);
  EXPECT_EQ(a.image.file_name.substr(a.image.file_name.size() - 4), ".img");
  auto t = make_template();
  t.spec.source_image.checksum = std::string(64, 'f');
  EXPECT_NE(desired(t).image.file_name, a.image.file_name);
  EXPECT_EQ(desired().image.file_name, a.image.file_name);  // stable
}

TEST(TemplateValidation, DerivesTheImageNameFromTheUrlAndTheAlgorithmFromTheLength) {
  auto t = make_template();
  t.spec.source_image.image_name.clear();
  t.spec.source_image.checksum_type.clear();
  auto d = desired(t);
  EXPECT_EQ(d.image.file_name.rfind("noble-server-cloudimg-amd64-", 0), 0u);
  EXPECT_EQ(d.image.checksum_algorithm, "sha256");
}

TEST(TemplateValidation, RefusesWhatProxmoxCannotImportWithAMessageNamingTheField) {
  auto check = [](kube::proxmox_template t, const std::string& needle) {
    auto v = validate_template(t, "c1");
    const auto* p = std::get_if<spec_problem>(&v);
    ASSERT_NE(p, nullptr) << needle;
    EXPECT_EQ(p->reason.view(), "InvalidSpec");
    EXPECT_NE(p->message.find(needle), std::string::npos) << p->message;
  };
  auto t = make_template();
  t.spec.source_image.image_name = "noble";
  check(t, "has no file extension");
  t.spec.source_image.image_name = "noble.img.xz";
  check(t, "compressed images are not supported");
  t = make_template();
  t.spec.source_image.checksum = "abc123";
  t.spec.source_image.checksum_type.clear();
  check(t, "fits no checksum type");
  t.spec.source_image.checksum_type = "sha256";
  t.spec.source_image.checksum = std::string(40, 'a');
  check(t, "sha256 needs 64");
  t = make_template();
  t.spec.source_image.checksum = std::string(63, 'a') + "z";
  check(t, "not hexadecimal");
  t = make_template();
  t.spec.source_image.url = "ftp://images.example.com/x.img";
  check(t, "not an http");
  t = make_template();
  t.spec.storage_ids.clear();
  check(t, "storageIDs is empty");
  t = make_template();
  t.spec.network.clear();
  check(t, "spec.network is empty");
  t = make_template();
  t.spec.network[0].bridge.clear();
  check(t, "bridge is empty");
  for (const char* name : {"net32", "net99999999999999999999", "net-1", "net+1", "eth0"}) {
    t = make_template();
    t.spec.network[0].name = name;
    check(t, "is not netN (N 0..31)");
  }
}

TEST(TemplateValidation, ANetworkNumberTooLargeForAnIntIsRefusedNamingTheField) {
  // The CRD pattern ^net[0-9]+$ accepts it; parsing it once threw and restarted the controller.
  for (const char* name : {"net99999999999", "net32", "net-1", "net", "net1x"}) {
    auto t = make_template();
    t.spec.network[0].name = name;
    auto v = validate_template(t, "c1");
    const auto* p = std::get_if<spec_problem>(&v);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->reason.view(), "InvalidSpec");
    EXPECT_NE(p->message.find("spec.network[0].name"), std::string::npos) << p->message;
    EXPECT_NE(p->message.find(name), std::string::npos) << p->message;
  }
  auto t = make_template();
  t.spec.network[0].name = "net31";
  EXPECT_TRUE(std::holds_alternative<desired_template>(validate_template(t, "c1")));
}

TEST(TemplateVmConfig, CarriesTheSpecAndTheMark) {
  auto d = desired();
  auto c = template_vm_config(d, "local", "local-lvm");
  EXPECT_EQ(c.front(), (std::pair<std::string, std::string>{"name", "ubuntu"}));
  auto mark = parse_template_mark(config_value(c, "description"));
  ASSERT_TRUE(mark);
  EXPECT_EQ(*mark, d.mark());
  EXPECT_EQ(config_value(c, "machine"), "q35");
  EXPECT_EQ(config_value(c, "bios"), "seabios");
  EXPECT_EQ(config_value(c, "cpu"), "cputype=host,flags=+aes;-pcid");
  EXPECT_EQ(config_value(c, "agent"), "enabled=1,fstrim_cloned_disks=1,type=virtio");
  EXPECT_EQ(config_value(c, "net0"), "virtio,bridge=vmbr0,mtu=1500,firewall=1");
  EXPECT_EQ(config_value(c, "ipconfig0"), "ip=dhcp");
  EXPECT_EQ(config_value(c, "tags"), "kubernetes;ubuntu");
  EXPECT_EQ(config_value(c, "efidisk0"), "<absent>");
  EXPECT_EQ(config_value(c, "tpmstate0"), "<absent>");
}

TEST(TemplateStatus, ABadChecksumGivesImageReadyAndReadyFalseWithTheDownloadError) {
  auto t = make_template();
  template_outcome o;
  o.image_file = "noble-1.img";
  host_outcome h{"r1",
                 "pve1",
                 std::nullopt,
                 true,
                 condition_reason("DownloadFailed"),
                 "download of https://x failed: checksum mismatch: got 'a' != expect 'b'"};
  o.hosts = {h};
  auto st = desired_status(t, o, "2026-01-01T00:00:00Z");
  ASSERT_EQ(st.conditions.size(), 2u);
  EXPECT_EQ(st.conditions[0].type, "ImageReady");
  EXPECT_EQ(st.conditions[0].status, "False");
  EXPECT_EQ(st.conditions[0].reason, "DownloadFailed");
  EXPECT_NE(st.conditions[0].message.find("r1/pve1: download of https://x failed: checksum"),
            std::string::npos);
  EXPECT_EQ(st.conditions[1].type, "Ready");
  EXPECT_EQ(st.conditions[1].status, "False");
  EXPECT_EQ(st.conditions[1].observed_generation, 3);
  EXPECT_TRUE(st.zones.empty());
  EXPECT_EQ(st.zone_count, "0");
}

TEST(TemplateStatus, EveryHostReadyGivesSortedZonesAndKeepsTransitionTimes) {
  auto t = make_template();
  template_outcome o;
  o.image_file = "noble-1.img";
  o.hosts = {{"r1", "pve2", 101u, false, std::nullopt, ""},
             {"r1", "pve1", 100u, false, std::nullopt, ""}};
  auto first = desired_status(t, o, "2026-01-01T00:00:00Z");
  EXPECT_EQ(first.zones, (std::vector<std::string>{"r1/pve1/100", "r1/pve2/101"}));
  EXPECT_EQ(first.zone_count, "2");
  EXPECT_EQ(first.image_id, "noble-1.img");
  EXPECT_EQ(first.conditions[1].status, "True");
  EXPECT_EQ(first.conditions[1].reason, "TemplatesReady");
  t.status = first;
  auto again = desired_status(t, o, "2026-01-02T00:00:00Z");
  EXPECT_TRUE(same_status(first, again));
  EXPECT_EQ(again.conditions[1].last_transition_time, "2026-01-01T00:00:00Z");
}

TEST(TemplateStatus, ARefusedSpecSaysWhyInBothConditions) {
  auto t = make_template();
  template_outcome o;
  o.invalid = spec_problem{"InvalidSpec", "spec.sourceImage.imageName noble has no extension"};
  auto st = desired_status(t, o, "2026-01-01T00:00:00Z");
  for (const auto& c : st.conditions) {
    EXPECT_EQ(c.status, "False");
    EXPECT_EQ(c.reason, "InvalidSpec");
  }
  EXPECT_FALSE(same_status(st, t.status));
}

}  // namespace
}  // namespace kp::actors::template_builder
