#include "actors/template_builder/template_plan.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

namespace kp::actors::template_builder {
namespace {

constexpr const char* retired_tag = "karpenter-retired";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string hex16(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::size_t hex_length(const std::string& algorithm) {
  static const std::map<std::string, std::size_t> lengths = {
      {"md5", 32}, {"sha1", 40}, {"sha224", 56}, {"sha256", 64}, {"sha384", 96}, {"sha512", 128}};
  auto it = lengths.find(algorithm);
  return it == lengths.end() ? 0 : it->second;
}

std::string algorithm_for_length(std::size_t n) {
  for (const char* a : {"md5", "sha1", "sha224", "sha256", "sha384", "sha512"}) {
    if (hex_length(a) == n) return a;
  }
  return "";
}

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed) {
    if (v == a) return true;
  }
  return false;
}

spec_problem invalid(std::string message) {
  return {"InvalidSpec", std::move(message)};
}

const proxmox::storage_info* find_storage(const host_view& host, const std::string& id) {
  for (const auto& s : host.storages) {
    if (s.storage == id) return &s;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::vector<std::string> split_tags(const std::string& raw) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : raw) {
    if (c == ';' || c == ',' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string normalized_tags(std::vector<std::string> tags) {
  for (auto& t : tags) t = lower(t);
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return join(tags, ";");
}

kube::condition make_condition(std::string type, std::string status, condition_reason reason,
                               std::string message) {
  kube::condition c;
  c.type = std::move(type);
  c.status = std::move(status);
  c.reason = reason.str();
  c.message = std::move(message);
  return c;
}

}  // namespace

bool contains_content(const std::string& content_list, const std::string& content) {
  std::size_t start = 0;
  while (start <= content_list.size()) {
    auto comma = content_list.find(',', start);
    auto item =
        trim(std::string_view(content_list)
                 .substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item == content) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

// --- validation ----------------------------------------------------------------------------------

template_mark desired_template::mark() const {
  template_mark m;
  m.cluster = cluster;
  m.template_name = name;
  m.image = image.file_name;
  if (!image.checksum.empty()) m.checksum = image.checksum_algorithm + ":" + image.checksum;
  return m;
}

std::variant<desired_template, spec_problem> validate_template(const kube::proxmox_template& t,
                                                               const std::string& cluster) {
  const auto& spec = t.spec;
  const auto& src = spec.source_image;
  std::string url(trim(src.url));
  if (url.empty()) return invalid("spec.sourceImage.url is empty");
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return invalid("spec.sourceImage.url " + url + " is not an http:// or https:// URL");
  }
  std::string image_name(trim(src.image_name));
  if (image_name.empty()) {
    // The file name of the URL's path (the Go provider requires imageName; we derive it).
    auto path = url.substr(0, url.find_first_of("?#"));
    auto slash = path.rfind('/');
    image_name = slash == std::string::npos || slash < 8 ? "" : path.substr(slash + 1);
    if (image_name.empty()) {
      return invalid("spec.sourceImage.imageName is empty and the URL " + url +
                     " ends without a file name");
    }
  }
  auto dot = image_name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == image_name.size()) {
    return invalid("spec.sourceImage.imageName " + image_name +
                   " has no file extension (qcow2, raw, img or vmdk)");
  }
  std::string ext = lower(image_name.substr(dot + 1));
  if (one_of(ext, {"xz", "gz", "zst", "bz2", "zip", "7z", "tgz"})) {
    return invalid("spec.sourceImage.imageName " + image_name +
                   ": compressed images are not supported; point the URL at an uncompressed "
                   "qcow2, raw, img or vmdk image");
  }
  if (!one_of(ext, {"qcow2", "raw", "img", "vmdk"})) {
    return invalid("spec.sourceImage.imageName " + image_name + ": extension ." + ext +
                   " cannot be imported (use qcow2, raw, img or vmdk)");
  }
  std::string stem;
  for (char c : image_name.substr(0, dot)) {
    stem +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  }

  desired_template d;
  d.cluster = cluster;
  d.name = t.metadata.name;
  d.spec = spec;
  d.image.url = url;
  d.image.checksum = lower(trim(src.checksum));
  if (!d.image.checksum.empty()) {
    for (char c : d.image.checksum) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) {
        return invalid("spec.sourceImage.checksum is not hexadecimal");
      }
    }
    std::string algorithm = lower(trim(src.checksum_type));
    if (algorithm.empty()) algorithm = algorithm_for_length(d.image.checksum.size());
    if (algorithm.empty()) {
      return invalid("spec.sourceImage.checksum has " + std::to_string(d.image.checksum.size()) +
                     " hex digits, which fits no checksum type; set checksumType");
    }
    if (hex_length(algorithm) == 0) {
      return invalid("spec.sourceImage.checksumType " + algorithm +
                     " is not one of md5, sha1, sha224, sha256, sha384, sha512");
    }
    if (hex_length(algorithm) != d.image.checksum.size()) {
      return invalid("spec.sourceImage.checksum has " + std::to_string(d.image.checksum.size()) +
                     " hex digits but " + algorithm + " needs " +
                     std::to_string(hex_length(algorithm)));
    }
    d.image.checksum_algorithm = algorithm;
  }
  d.image.file_name = stem + "-" + hex16(fnv1a64(url + "\n" + d.image.checksum)) + "." + ext;

  if (spec.storage_ids.empty()) return invalid("spec.storageIDs is empty");
  if (!one_of(spec.machine, {"", "pc", "q35"})) {
    return invalid("spec.machine " + spec.machine + " is not pc or q35");
  }
  if (!one_of(spec.bios, {"", "seabios", "ovmf"})) {
    return invalid("spec.bios " + spec.bios + " is not seabios or ovmf");
  }
  if (!one_of(spec.tpm_version, {"", "v1.2", "v2.0"})) {
    return invalid("spec.tpm.version " + spec.tpm_version + " is not v1.2 or v2.0");
  }
  if (spec.network.empty()) return invalid("spec.network is empty: a template needs a NIC");
  if (spec.network.size() > 6) return invalid("spec.network has more than 6 interfaces");
  std::set<std::string> nic_names;
  for (std::size_t i = 0; i < spec.network.size(); ++i) {
    const auto& n = spec.network[i];
    std::string name = n.name.empty() ? "net" + std::to_string(i) : n.name;
    unsigned index = 0;
    auto digits = std::string_view(name).substr(std::min<std::size_t>(3, name.size()));
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (name.rfind("net", 0) != 0 || digits.empty() || ec != std::errc{} ||
        end != digits.data() + digits.size() || index > 31) {
      return invalid("spec.network[" + std::to_string(i) + "].name " + name +
                     " is not netN (N 0..31)");
    }
    if (!nic_names.insert(name).second) {
      return invalid("spec.network names " + name + " twice");
    }
    if (n.bridge.empty()) {
      return invalid("spec.network[" + std::to_string(i) + "].bridge is empty");
    }
    if (!one_of(n.model, {"", "e1000", "e1000e", "rtl8139", "virtio", "vmxnet3"})) {
      return invalid("spec.network[" + std::to_string(i) + "].model " + n.model +
                     " is not one of e1000, e1000e, rtl8139, virtio, vmxnet3");
    }
  }
  if (spec.pci_devices.size() > 6) return invalid("spec.pciDevices has more than 6 devices");
  for (std::size_t i = 0; i < spec.pci_devices.size(); ++i) {
    if (spec.pci_devices[i].mapping.empty()) {
      return invalid("spec.pciDevices[" + std::to_string(i) + "].mapping is empty");
    }
  }
  return d;
}

// --- VM config -----------------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> template_vm_config(
    const desired_template& d, const std::string& import_storage,
    const std::string& images_storage) {
  const auto& s = d.spec;
  std::vector<std::pair<std::string, std::string>> c;
  std::string text =
      s.description.empty() ? "Managed by karpenter-proxmox; do not edit." : s.description;
  c.emplace_back("name", d.name);
  c.emplace_back("description", text + "\n" + format_template_mark(d.mark()));
  c.emplace_back("ostype", "l26");
  c.emplace_back("machine", s.machine.empty() ? "q35" : s.machine);
  c.emplace_back("bios", s.bios.empty() ? "seabios" : s.bios);
  // Clones get their size from the instance type; the template keeps the smallest sane shape.
  c.emplace_back("sockets", "1");
  c.emplace_back("cores", "1");
  c.emplace_back("memory", "1024");
  c.emplace_back("scsihw", "virtio-scsi-single");
  c.emplace_back("scsi0", images_storage + ":0,import-from=" + import_storage + ":import/" +
                              d.image.file_name + ",iothread=1");
  c.emplace_back("boot", "order=scsi0");
  if (s.bios == "ovmf") c.emplace_back("efidisk0", images_storage + ":0,efitype=4m");
  if (!s.tpm_version.empty()) {
    c.emplace_back("tpmstate0", images_storage + ":0,version=" + s.tpm_version);
  }
  std::string cpu = "cputype=" + (s.cpu_type.empty() ? std::string("x86-64-v2-AES") : s.cpu_type);
  if (!s.cpu_flags.empty()) {
    std::vector<std::string> flags;
    for (const auto& f : s.cpu_flags) {
      flags.push_back(!f.empty() && (f[0] == '+' || f[0] == '-') ? f : "+" + f);
    }
    cpu += ",flags=" + join(flags, ";");
  }
  c.emplace_back("cpu", cpu);
  if (s.agent) {
    std::string a = std::string("enabled=") + (s.agent->enabled ? "1" : "0");
    if (s.agent->fs_freeze_on_backup) {
      a += std::string(",freeze-fs-on-backup=") + (*s.agent->fs_freeze_on_backup ? "1" : "0");
    }
    if (s.agent->fs_trim_cloned_disks) {
      a += std::string(",fstrim_cloned_disks=") + (*s.agent->fs_trim_cloned_disks ? "1" : "0");
    }
    if (!s.agent->type.empty()) a += ",type=" + s.agent->type;
    c.emplace_back("agent", a);
  }
  if (!s.vga_type.empty() || s.vga_memory) {
    std::string v = "type=" + (s.vga_type.empty() ? std::string("std") : s.vga_type);
    if (s.vga_memory) v += ",memory=" + std::to_string(*s.vga_memory);
    c.emplace_back("vga", v);
  }
  // Cloud images log to the serial console; a serial0 VGA needs the socket behind it.
  if (s.vga_type == "serial0") c.emplace_back("serial0", "socket");
  std::vector<std::string> dns;
  for (std::size_t i = 0; i < s.network.size(); ++i) {
    const auto& n = s.network[i];
    std::string key = n.name.empty() ? "net" + std::to_string(i) : n.name;
    std::string v = (n.model.empty() ? std::string("virtio") : n.model) + ",bridge=" + n.bridge;
    if (n.mtu) v += ",mtu=" + std::to_string(*n.mtu);
    if (n.vlan) v += ",tag=" + std::to_string(*n.vlan);
    if (n.firewall) v += std::string(",firewall=") + (*n.firewall ? "1" : "0");
    c.emplace_back(key, v);
    std::string ip = "ip=" + (n.address4.empty() ? std::string("dhcp") : n.address4);
    if (!n.gateway4.empty()) ip += ",gw=" + n.gateway4;
    if (!n.address6.empty()) ip += ",ip6=" + n.address6;
    if (!n.gateway6.empty()) ip += ",gw6=" + n.gateway6;
    c.emplace_back("ipconfig" + key.substr(3), ip);
    for (const auto& server : n.dns_servers) {
      if (std::find(dns.begin(), dns.end(), server) == dns.end()) dns.push_back(server);
    }
  }
  if (!dns.empty()) c.emplace_back("nameserver", join(dns, " "));
  for (std::size_t i = 0; i < s.pci_devices.size(); ++i) {
    const auto& p = s.pci_devices[i];
    std::string v = "mapping=" + p.mapping;
    if (!p.mdev.empty()) v += ",mdev=" + p.mdev;
    if (p.pcie) v += std::string(",pcie=") + (*p.pcie ? "1" : "0");
    if (p.xvga) v += std::string(",x-vga=") + (*p.xvga ? "1" : "0");
    c.emplace_back("hostpci" + std::to_string(i), v);
  }
  if (!s.tags.empty()) c.emplace_back("tags", normalized_tags(s.tags));
  if (!s.resource_pool.empty()) c.emplace_back("pool", s.resource_pool);
  if (s.on_boot) c.emplace_back("onboot", *s.on_boot ? "1" : "0");
  return c;
}

std::vector<std::pair<std::string, std::string>> retire_config(const existing_vm& vm) {
  auto mark = vm.mark;
  mark.retired = true;
  // A DNS name of at most 63 characters: the launch path finds templates by exact name, so the
  // retired one must stop answering to it.
  std::string suffix = "-retired-" + std::to_string(vm.vmid);
  std::string base = mark.template_name.substr(0, 63 - std::min<std::size_t>(63, suffix.size()));
  while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  auto tags = split_tags(vm.tags);
  tags.emplace_back(retired_tag);
  return {{"name", base + suffix},
          {"description", with_template_mark(vm.description, mark)},
          {"tags", normalized_tags(tags)}};
}

// --- planning ------------------------------------------------------------------------------------

host_plan plan_host(const desired_template& d, const host_view& host) {
  host_plan plan;
  plan.host = host.host;
  for (const auto& id : d.spec.storage_ids) {
    const auto* s = find_storage(host, id);
    if (s == nullptr || !s->active) continue;
    if (plan.import_storage.empty() && contains_content(s->content, "import")) {
      plan.import_storage = id;
    }
    if (plan.images_storage.empty() && contains_content(s->content, "images")) {
      plan.images_storage = id;
    }
  }

  std::vector<const existing_vm*> current_templates, current_unfinished, old, retired;
  for (const auto& vm : host.vms) {
    if (vm.mark.cluster != d.cluster || vm.mark.template_name != d.name) continue;
    if (vm.mark.retired) {
      retired.push_back(&vm);
    } else if (vm.mark.image == d.image.file_name) {
      (vm.is_template ? current_templates : current_unfinished).push_back(&vm);
    } else {
      old.push_back(&vm);
    }
  }
  auto by_vmid = [](const existing_vm* a, const existing_vm* b) { return a->vmid < b->vmid; };
  std::sort(current_templates.begin(), current_templates.end(), by_vmid);
  std::sort(current_unfinished.begin(), current_unfinished.end(), by_vmid);

  auto add = [&](step_kind kind, std::uint32_t vmid, std::string why) -> step& {
    step s;
    s.kind = kind;
    s.vmid = vmid;
    s.why = std::move(why);
    plan.steps.push_back(std::move(s));
    return plan.steps.back();
  };

  bool building = false;
  if (!current_templates.empty()) {
    plan.ready_vmid = current_templates.front()->vmid;
    // A second template of the same image (two passes racing before a restart): retire it.
    for (std::size_t i = 1; i < current_templates.size(); ++i) {
      auto& s = add(step_kind::retire, current_templates[i]->vmid, "duplicate template");
      s.config = retire_config(*current_templates[i]);
    }
    for (const auto* vm : current_unfinished) {
      add(step_kind::destroy, vm->vmid, "unfinished duplicate of a ready template");
    }
  } else if (!current_unfinished.empty()) {
    // Created before a restart but never converted: finish it.
    add(step_kind::convert, current_unfinished.front()->vmid, "finish an unconverted template");
    for (std::size_t i = 1; i < current_unfinished.size(); ++i) {
      add(step_kind::destroy, current_unfinished[i]->vmid, "unfinished duplicate");
    }
    building = true;
  } else {
    if (plan.import_storage.empty() || plan.images_storage.empty()) {
      std::string missing = plan.import_storage.empty() ? "import" : "images";
      plan.blocked = spec_problem{
          "StorageNotFound", "none of storageIDs [" + join(d.spec.storage_ids, ", ") + "] on " +
                                 host.host + " is active with " + missing + " content"};
    } else {
      std::string volid = plan.import_storage + ":import/" + d.image.file_name;
      bool present = std::find(host.import_volids.begin(), host.import_volids.end(), volid) !=
                     host.import_volids.end();
      if (!present) {
        auto& s = add(step_kind::download, 0, "image " + d.image.file_name + " is missing");
        s.download.node = host.host;
        s.download.storage = plan.import_storage;
        s.download.content = "import";
        s.download.filename = d.image.file_name;
        s.download.url = d.image.url;
        s.download.checksum = d.image.checksum;
        s.download.checksum_algorithm = d.image.checksum_algorithm;
      }
      auto& c = add(step_kind::create, 0, "no template of image " + d.image.file_name);
      c.config = template_vm_config(d, plan.import_storage, plan.images_storage);
      add(step_kind::convert, 0, "convert the new VM");
      building = true;
    }
  }

  // Older images: retired only once the current image's template exists (or is being built in
  // this same plan, whose steps run in order and stop at the first failure).
  if (plan.ready_vmid || building) {
    for (const auto* vm : old) {
      if (vm->is_template) {
        auto& s = add(step_kind::retire, vm->vmid, "image changed to " + d.image.file_name);
        s.config = retire_config(*vm);
      } else {
        add(step_kind::destroy, vm->vmid, "unfinished VM of an older image");
      }
    }
  }
  for (const auto* vm : retired) {
    if (vm->linked_clones && *vm->linked_clones == 0) {
      add(step_kind::destroy, vm->vmid, "retired and no linked clone uses it");
    } else {
      ++plan.retired_kept;
    }
  }
  return plan;
}

host_plan plan_orphans(const std::string& cluster, const host_view& host,
                       const std::vector<std::string>& known) {
  host_plan plan;
  plan.host = host.host;
  for (const auto& vm : host.vms) {
    if (vm.mark.cluster != cluster ||
        std::find(known.begin(), known.end(), vm.mark.template_name) != known.end()) {
      continue;
    }
    step s;
    s.vmid = vm.vmid;
    if (!vm.mark.retired && vm.is_template) {
      s.kind = step_kind::retire;
      s.config = retire_config(vm);
      s.why = "ProxmoxTemplate " + vm.mark.template_name + " is gone";
    } else if (!vm.mark.retired || (vm.linked_clones && *vm.linked_clones == 0)) {
      s.kind = step_kind::destroy;
      s.why = "ProxmoxTemplate " + vm.mark.template_name + " is gone";
    } else {
      ++plan.retired_kept;
      continue;
    }
    plan.steps.push_back(std::move(s));
  }
  return plan;
}

// --- status --------------------------------------------------------------------------------------

kube::proxmox_template_status desired_status(const kube::proxmox_template& t,
                                             const template_outcome& o, const std::string& now) {
  kube::proxmox_template_status st;
  kube::condition image, ready;
  if (o.invalid) {
    image = make_condition("ImageReady", "False", o.invalid->reason, o.invalid->message);
    ready = make_condition("Ready", "False", o.invalid->reason, o.invalid->message);
  } else if (o.no_hosts) {
    image = make_condition("ImageReady", "Unknown", o.no_hosts->reason, o.no_hosts->message);
    ready = make_condition("Ready", "False", o.no_hosts->reason, o.no_hosts->message);
    st.image_id = o.image_file;
  } else {
    st.image_id = o.image_file;
    std::vector<std::string> ready_hosts, image_failures, failures;
    std::optional<condition_reason> first_reason, first_image_reason;
    for (const auto& h : o.hosts) {
      if (h.vmid) {
        st.zones.push_back(h.region + "/" + h.host + "/" + std::to_string(*h.vmid));
        ready_hosts.push_back(h.region + "/" + h.host);
      } else if (h.failure_reason) {
        failures.push_back(h.region + "/" + h.host + ": " + h.failure_message);
        if (!first_reason) first_reason = h.failure_reason;
        if (h.image_failed) {
          image_failures.push_back(h.region + "/" + h.host + ": " + h.failure_message);
          if (!first_image_reason) first_image_reason = h.failure_reason;
        }
      }
    }
    std::sort(st.zones.begin(), st.zones.end());
    if (!image_failures.empty()) {
      image =
          make_condition("ImageReady", "False", *first_image_reason, join(image_failures, "; "));
    } else if (ready_hosts.empty() && !failures.empty()) {
      image = make_condition("ImageReady", "False", *first_reason, join(failures, "; "));
    } else if (ready_hosts.empty()) {
      image =
          make_condition("ImageReady", "Unknown", "Building", "importing image " + o.image_file);
    } else {
      image = make_condition("ImageReady", "True", "ImageImported",
                             "image " + o.image_file + " from " + t.spec.source_image.url);
    }
    if (!ready_hosts.empty() && failures.empty() && ready_hosts.size() == o.hosts.size()) {
      ready = make_condition("Ready", "True", "TemplatesReady",
                             "template VMs on " + join(ready_hosts, ", "));
    } else if (!ready_hosts.empty()) {
      std::string pending;
      if (failures.empty()) pending = "; other hosts are still being built";
      ready =
          make_condition("Ready", "True", "TemplatesPartiallyReady",
                         "template VMs on " + join(ready_hosts, ", ") +
                             (failures.empty() ? pending : "; failed: " + join(failures, "; ")));
    } else if (!failures.empty()) {
      ready = make_condition("Ready", "False", *first_reason, join(failures, "; "));
    } else {
      ready = make_condition("Ready", "False", "Building",
                             "building template VMs from image " + o.image_file);
    }
  }
  st.zone_count = std::to_string(st.zones.size());
  for (auto* c : {&image, &ready}) {
    c->observed_generation = t.metadata.generation;
    c->last_transition_time = now;
    for (const auto& before : t.status.conditions) {
      if (before.type == c->type && before.status == c->status &&
          !before.last_transition_time.empty()) {
        c->last_transition_time = before.last_transition_time;
      }
    }
    st.conditions.push_back(*c);
  }
  // Conditions someone else wrote (none today) are kept as they are.
  for (const auto& before : t.status.conditions) {
    if (before.type != "ImageReady" && before.type != "Ready") st.conditions.push_back(before);
  }
  return st;
}

bool same_status(const kube::proxmox_template_status& a, const kube::proxmox_template_status& b) {
  if (a.zones != b.zones || a.image_id != b.image_id || a.zone_count != b.zone_count) return false;
  if (a.conditions.size() != b.conditions.size()) return false;
  for (const auto& ca : a.conditions) {
    bool found = false;
    for (const auto& cb : b.conditions) {
      if (ca.type != cb.type) continue;
      found = ca.status == cb.status && ca.reason == cb.reason && ca.message == cb.message &&
              ca.observed_generation == cb.observed_generation;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace kp::actors::template_builder
