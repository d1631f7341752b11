#pragma once
// The region actor's template VM work, for the managed ProxmoxTemplate actor: what templates
// need to know of a region (one observation), and each step as its own request. Every step
// holds one credit of the region's window, every VMID comes from the region's one allocator,
// and every step that changes or destroys a VM first re-reads its config in the same step and
// goes ahead only when its template mark (core/ownership/template_mark.hpp) names this cluster
// and the request's template; otherwise the reply is "foreign_vm" and nothing is done. Task
// waits use the region's per-operation timeouts. Part of protocol::region_actor.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>

#include "protocol/proxmox/api_types.hpp"
#include "protocol/region_error.hpp"

namespace kp::proxmox {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, storage_info& x) {
  return f(caf::meta::type_name("storage_info"), x.storage, x.type, x.content, x.active, x.enabled,
           x.shared, x.total, x.used, x.avail);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, download_url_request& x) {
  return f(caf::meta::type_name("download_url_request"), x.node, x.storage, x.content, x.filename,
           x.url, x.checksum, x.checksum_algorithm, x.verify_certificates);
}

}  // namespace kp::proxmox

namespace kp::protocol {

using template_atom = caf::atom_constant<caf::atom("template")>;

// --- observation -------------------------------------------------------------------------------

// What to look at: the storages whose `import` content to list, and the names of the template
// VMs wanted (a VM with such a name may be one created but not converted yet).
struct template_observe_request {
  std::vector<std::string> import_storages;
  std::vector<std::string> template_names;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_observe_request& x) {
  return f(caf::meta::type_name("template_observe_request"), x.import_storages, x.template_names);
}

// One online host: its storages and the import volumes of the requested storages. `error` says
// what could not be read there (then acting on this host could duplicate work: plan nothing).
struct template_host {
  std::string host;
  std::vector<proxmox::storage_info> storages;
  std::vector<std::string> import_volids;  // "<storage>:import/<file>"
  std::string error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_host& x) {
  return f(caf::meta::type_name("template_host"), x.host, x.storages, x.import_volids, x.error);
}

// A VM on an online host whose description carries a template mark of this cluster.
struct template_vm {
  std::uint32_t vmid = 0;
  std::string host;
  std::string name;
  bool is_template = false;
  std::string tags;         // raw, ';'-separated
  std::string description;  // full text, the mark included
  // Linked clones whose disks sit on this VM's base volumes (retired templates only);
  // linked_clones_known is false when some VM's config on its host could not be read.
  bool linked_clones_known = false;
  std::uint64_t linked_clones = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_vm& x) {
  return f(caf::meta::type_name("template_vm"), x.vmid, x.host, x.name, x.is_template, x.tags,
           x.description, x.linked_clones_known, x.linked_clones);
}

// `ok` false: /cluster/resources failed (`error`); nothing else is filled.
struct template_observation {
  std::string region;
  bool ok = false;
  std::string error;
  std::vector<template_host> hosts;  // online hosts
  std::vector<template_vm> vms;      // with this cluster's template mark
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_observation& x) {
  return f(caf::meta::type_name("template_observation"), x.region, x.ok, x.error, x.hosts, x.vms);
}

// --- steps
// -----------------------------------------------------------------------------------------

// The reply of every step: `vmid` is the VM created or cloned (create, clone), else the one the
// step acted on.
struct template_step_reply {
  bool ok = false;
  region_error error;
  std::uint32_t vmid = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_step_reply& x) {
  return f(caf::meta::type_name("template_step_reply"), x.ok, x.error, x.vmid);
}

// download-url of an image into an import storage, waited for (PROXMOX_DOWNLOAD_TIMEOUT).
struct template_download_request {
  proxmox::download_url_request download;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_download_request& x) {
  return f(caf::meta::type_name("template_download_request"), x.download);
}

// A new VM (POST /nodes/{host}/qemu, typically `scsi0: <storage>:0,import-from=<volid>`) with a
// VMID from the region's allocator. `config` must hold a `description` whose template mark names
// this cluster and `template_name` ("invalid_request" otherwise), so the VM is ours from its
// first moment. The VMID is in the reply.
struct template_create_request {
  std::string host;
  std::string template_name;
  std::vector<std::pair<std::string, std::string>> config;  // every key, in order; no vmid
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_create_request& x) {
  return f(caf::meta::type_name("template_create_request"), x.host, x.template_name, x.config);
}

// A clone of one of our template VMs (its mark must name this cluster and `template_name`) with
// a VMID from the region's allocator. `description` must carry a template mark of this cluster.
struct template_clone_request {
  std::string host;  // where the source lives
  std::uint32_t source_vmid = 0;
  std::string template_name;
  std::string name;
  std::string description;
  bool full = true;
  std::string target;   // another host; "" keeps the source's
  std::string storage;  // full clones only
  std::string pool;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_clone_request& x) {
  return f(caf::meta::type_name("template_clone_request"), x.host, x.source_vmid, x.template_name,
           x.name, x.description, x.full, x.target, x.storage, x.pool);
}

// Converts a VM of ours to a template (PROXMOX_TEMPLATE_TIMEOUT).
struct template_convert_request {
  std::string host;
  std::uint32_t vmid = 0;
  std::string template_name;  // the expected mark's template=
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_convert_request& x) {
  return f(caf::meta::type_name("template_convert_request"), x.host, x.vmid, x.template_name);
}

// One config write to a template VM of ours (retiring it: name, tags, description).
struct template_retire_request {
  std::string host;
  std::uint32_t vmid = 0;
  std::string template_name;
  std::vector<std::pair<std::string, std::string>> config;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_retire_request& x) {
  return f(caf::meta::type_name("template_retire_request"), x.host, x.vmid, x.template_name,
           x.config);
}

// Destroys a VM of ours with its disks (purge). Proxmox refuses a template whose base volume
// linked clones still use: that is a failed step, and the VM stays.
struct template_delete_request {
  std::string host;
  std::uint32_t vmid = 0;
  std::string template_name;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, template_delete_request& x) {
  return f(caf::meta::type_name("template_delete_request"), x.host, x.vmid, x.template_name);
}

}  // namespace kp::protocol
