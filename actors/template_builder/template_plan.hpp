#pragma once
// Pure planning for managed ProxmoxTemplates: from a ProxmoxTemplate and what one Proxmox host
// holds (storages, import files, the VMs carrying our template mark) to the next steps on that
// host: download the image, create the VM importing it, convert it to a template, retire the
// templates of an older image and destroy retired ones no linked clone uses. No I/O, no CAF:
// the actor gathers the host view, asks for a plan, runs it and writes the status.
//
// Identity across restarts lives in the VM description, one line (the template mark):
//   karpenter-proxmox-template: cluster=<c>, template=<name>, image=<file>, checksum=<a:hex>[,
//   retired=true]
// The image file name carries a hash of the URL and checksum, so a changed image gets a new
// file and a new template while the old ones stay usable until the new one is ready.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/ownership/fnv1a.hpp"
#include "core/ownership/template_mark.hpp"
#include "actors/condition_reasons.hpp"
#include "core/result.hpp"
#include "protocol/kube/meta_types.hpp"
#include "protocol/kube/proxmox_v1alpha1.hpp"
#include "protocol/proxmox/api_types.hpp"

namespace kp::actors::template_builder {

// --- the mark ------------------------------------------------------------------------------------

// The mark lives in core/ownership (the region checks it before every change to a template VM).
using ownership::format_template_mark;
using ownership::parse_template_mark;
using ownership::template_mark;
using ownership::with_template_mark;

// --- the desired template ------------------------------------------------------------------------

struct image_identity {
  std::string url;
  std::string file_name;           // "<stem>-<16 hex of hash(url, checksum)>.<ext>"
  std::string checksum;            // lower-case hex, "" = none
  std::string checksum_algorithm;  // md5 ... sha512, "" when no checksum
};

struct desired_template {
  std::string cluster;
  std::string name;  // metadata.name: also the template VM's name (the launch path looks it up)
  image_identity image;
  kube::proxmox_template_spec spec;
  template_mark mark() const;
};

// A spec the controller refuses: a reason (CamelCase) and a message a person can act on.
struct spec_problem {
  condition_reason reason;
  std::string message;
};

// Checks the fields the CRD schema may not have caught (and the ones the Go provider crashed
// on: an image name without extension) and computes the image identity.
std::variant<desired_template, spec_problem> validate_template(const kube::proxmox_template& t,
                                                               const std::string& cluster);

// --- one host ------------------------------------------------------------------------------------

struct existing_vm {
  std::uint32_t vmid = 0;
  std::string name;
  bool is_template = false;
  std::string tags;         // raw, ';'-separated
  std::string description;  // full text
  template_mark mark;
  // Linked clones whose disks sit on this VM's base volumes; nothing when not counted.
  std::optional<std::size_t> linked_clones;
};

struct host_view {
  std::string host;
  std::vector<proxmox::storage_info> storages;
  std::vector<std::string> import_volids;  // "<storage>:import/<file>" of the listed storages
  std::vector<existing_vm> vms;            // VMs with a template mark of our cluster, any template
};

enum class step_kind { download, create, convert, retire, destroy };

struct step {
  step_kind kind = step_kind::download;
  std::uint32_t vmid = 0;  // convert/retire/destroy; create: 0 (allocated when run)
  proxmox::download_url_request download;
  std::vector<std::pair<std::string, std::string>> config;  // create: every key; retire: changes
  std::string why;                                          // for logs
};

struct host_plan {
  std::string host;
  std::string import_storage;
  std::string images_storage;
  std::optional<std::uint32_t> ready_vmid;  // a template of the current image exists now
  std::vector<step> steps;                  // in order
  // Why nothing can be done here (no suitable storage): a reason and a message.
  std::optional<spec_problem> blocked;
  std::size_t retired_kept = 0;  // retired templates kept because linked clones use them
};

host_plan plan_host(const desired_template& desired, const host_view& host);

// Our VMs on `host` whose ProxmoxTemplate is gone (`known` holds every ProxmoxTemplate name of
// the snapshot): templates are retired, unfinished VMs destroyed, retired templates destroyed
// once no linked clone uses them.
host_plan plan_orphans(const std::string& cluster, const host_view& host,
                       const std::vector<std::string>& known);

// The VM config of a new template VM (POST /nodes/{node}/qemu), keys in a fixed order.
std::vector<std::pair<std::string, std::string>> template_vm_config(
    const desired_template& desired, const std::string& import_storage,
    const std::string& images_storage);

// The config change that retires `vm`: renamed, tagged and marked retired.
std::vector<std::pair<std::string, std::string>> retire_config(const existing_vm& vm);

// --- status --------------------------------------------------------------------------------------

// What happened on one host in one pass.
struct host_outcome {
  std::string region;
  std::string host;
  std::optional<std::uint32_t> vmid;               // the current image's template, when it exists
  bool image_failed = false;                       // the download failed
  std::optional<condition_reason> failure_reason;  // nothing = fine
  std::string failure_message;
};

struct template_outcome {
  std::optional<spec_problem> invalid;  // the spec was refused: nothing was tried
  std::optional<spec_problem> no_hosts;
  std::string image_file;
  std::vector<host_outcome> hosts;
};

// The status the outcome implies, keeping lastTransitionTime of conditions whose status did not
// change. `now` is RFC 3339.
kube::proxmox_template_status desired_status(const kube::proxmox_template& t,
                                             const template_outcome& outcome,
                                             const std::string& now);

// Whether two statuses differ in anything but timestamps.
bool same_status(const kube::proxmox_template_status& a, const kube::proxmox_template_status& b);

// Text helpers shared with the actor.
bool contains_content(const std::string& content_list, const std::string& content);
using ownership::fnv1a64;

}  // namespace kp::actors::template_builder
