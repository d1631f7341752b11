// Each entry is what Proxmox VE's API checks for that call (its "permissions" block and the
// checks in the handler), for the parameters this client sends.
#include "protocol/proxmox/privileges.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace kp::proxmox {

namespace {

constexpr std::array<call_privileges, 44> table{{
    // --- reads that decide everything else
    {"version", "GET", "/version", "", "", "client only: any user may read the version", false},
    {"cluster_resources", "GET", "/cluster/resources", "/",
     "VM.Audit Sys.Audit Datastore.Audit Pool.Audit",
     "Proxmox filters the list: a VM, host, storage or pool the token cannot audit is missing, "
     "so inventory, orphan collection and adoption would not see it"},
    {"node_status", "GET", "/nodes/{node}/status", "/nodes/{node}", "Sys.Audit",
     "host CPU, memory and NUMA capacity for placement"},
    {"node_network", "GET", "/nodes/{node}/network", "/nodes/{node}", "Sys.Audit",
     "bridges a node class may attach to"},
    {"pci_mappings", "GET", "/cluster/mapping/pci", "/mapping/pci/{id}", "Mapping.Use",
     "any of Mapping.Use, Mapping.Audit or Mapping.Modify per mapping: Proxmox lists only those, "
     "so a ProxmoxNodeClass's pciDevices mapping without it has no devices anywhere"},
    {"next_vmid", "GET", "/cluster/nextid", "", "",
     "client only: VMIDs come from the region's allocator over /cluster/resources", false},
    {"task_status", "GET", "/nodes/{node}/tasks/{upid}/status", "/nodes/{node}", "Sys.Audit",
     "own tasks need nothing; Sys.Audit covers tasks a restart left behind"},
    {"cluster_tasks", "GET", "/cluster/tasks", "/", "Sys.Audit",
     "one read answers every task wait of the region; without Sys.Audit on / Proxmox lists only "
     "tasks of the caller's own user, and each wait then reads its own task's status"},
    // --- VMs
    {"vm_config", "GET", "/nodes/{node}/qemu/{vmid}/config", "/vms/{vmid}", "VM.Audit",
     "the ownership mark, tags, pool and drives before every change"},
    {"vm_status", "GET", "/nodes/{node}/qemu/{vmid}/status/current", "/vms/{vmid}", "VM.Audit",
     "power state while launching and deleting"},
    {"clone_vm", "POST", "/nodes/{node}/qemu/{vmid}/clone",
     "/vms/{vmid}, /vms/{newid}, /storage/{storage}",
     "VM.Clone VM.Allocate Datastore.AllocateSpace",
     "VM.Clone on the template, VM.Allocate on the new VMID (and on /pool/{pool} with "
     "resourcePool), Datastore.AllocateSpace on the target storage of a full clone"},
    {"create_vm", "POST", "/nodes/{node}/qemu",
     "/vms/{vmid}, /storage/{storage}, /mapping/pci/{id}",
     "VM.Allocate VM.Config.CPU VM.Config.Memory VM.Config.Disk VM.Config.Network "
     "VM.Config.HWType VM.Config.Options VM.Config.Cloudinit Datastore.AllocateSpace "
     "Datastore.Audit Mapping.Use SDN.Use",
     "the template builder creates a VM importing the downloaded image: VM.Allocate plus the "
     "VM.Config.* of each key it sets (cores, memory, scsi0/efidisk0/tpmstate0, net, machine, "
     "vga, smbios, agent, tags, ipconfig), space on the storage, read access to the import "
     "volume, Mapping.Use for pciDevices and SDN.Use on the bridge"},
    {"convert_to_template", "POST", "/nodes/{node}/qemu/{vmid}/template", "/vms/{vmid}",
     "VM.Allocate", "the template builder converts the imported VM into a template"},
    {"update_vm_config", "POST", "/nodes/{node}/qemu/{vmid}/config",
     "/vms/{vmid}, /sdn/zones/{zone}/{bridge}, /mapping/pci/{id}",
     "VM.Config.CPU VM.Config.Memory VM.Config.Network VM.Config.CDROM VM.Config.Cloudinit "
     "VM.Config.Options VM.Config.HWType VM.Config.Disk SDN.Use Mapping.Use",
     "launch sets cores/sockets/numa (CPU), memory (Memory), net (Network and SDN.Use on the "
     "bridge), ide2 (CDROM), ipconfig0/sshkeys (Cloudinit), tags/onboot/description "
     "(Options), smbios1 (HWType), boot (Disk), hostpciN mapping=<id> (HWType and Mapping.Use on "
     "the mapping, for pciDevices); sync rewrites tags; ISO release deletes ide2"},
    {"put_vm_config", "PUT", "/nodes/{node}/qemu/{vmid}/config", "/vms/{vmid}",
     "VM.Config.Options VM.Config.CDROM", "client only: the synchronous form of the same change",
     false},
    {"resize_disk", "PUT", "/nodes/{node}/qemu/{vmid}/resize", "/vms/{vmid}, /storage/{storage}",
     "VM.Config.Disk Datastore.AllocateSpace", "bootDevice.size grows the cloned disk"},
    {"start_vm", "POST", "/nodes/{node}/qemu/{vmid}/status/start", "/vms/{vmid}", "VM.PowerMgmt",
     "start after launch"},
    {"stop_vm", "POST", "/nodes/{node}/qemu/{vmid}/status/stop", "/vms/{vmid}", "VM.PowerMgmt",
     "stop before delete"},
    {"shutdown_vm", "POST", "/nodes/{node}/qemu/{vmid}/status/shutdown", "/vms/{vmid}",
     "VM.PowerMgmt", "client only: graceful stop", false},
    {"delete_vm", "DELETE", "/nodes/{node}/qemu/{vmid}", "/vms/{vmid}", "VM.Allocate",
     "delete the VM with purge=1 and destroy-unreferenced-disks=1"},
    // --- storage
    {"storages", "GET", "/nodes/{node}/storage", "/storage/{storage}", "Datastore.Audit",
     "client only: the controller takes the storage list from /cluster/resources, which shows "
     "only storages the token can audit",
     false},
    {"storage_content", "GET", "/nodes/{node}/storage/{storage}/content", "/storage/{storage}",
     "Datastore.Audit", "ISOs to release, import images the template builder already has"},
    {"upload", "POST", "/nodes/{node}/storage/{storage}/upload", "/storage/{storage}",
     "Datastore.AllocateTemplate", "the NoCloud cloud-init ISO of each VM"},
    {"download_url", "POST", "/nodes/{node}/storage/{storage}/download-url",
     "/storage/{storage}, /nodes/{node}", "Datastore.AllocateTemplate Sys.Audit Sys.AccessNetwork",
     "the template builder downloads sourceImage.url; Proxmox wants Sys.AccessNetwork on the "
     "node (or Sys.Modify on /) because the download probes the host's network"},
    {"delete_volume", "DELETE", "/nodes/{node}/storage/{storage}/content/{volume}",
     "/storage/{storage}", "Datastore.Allocate",
     "ISO release after the node joined and the template builder's unused images; Proxmox "
     "wants Datastore.Allocate to delete a volume that is not a VM disk"},
    // --- firewall and pools
    {"firewall_options", "GET", "/nodes/{node}/qemu/{vmid}/firewall/options", "/vms/{vmid}",
     "VM.Audit", "securityGroups: is the VM firewall on"},
    {"set_firewall_options", "PUT", "/nodes/{node}/qemu/{vmid}/firewall/options", "/vms/{vmid}",
     "VM.Config.Network", "securityGroups: turn the VM firewall on"},
    {"firewall_rules", "GET", "/nodes/{node}/qemu/{vmid}/firewall/rules", "/vms/{vmid}", "VM.Audit",
     "securityGroups: the group rules present"},
    {"add_firewall_rule", "POST", "/nodes/{node}/qemu/{vmid}/firewall/rules", "/vms/{vmid}",
     "VM.Config.Network", "securityGroups: add a group rule"},
    {"delete_firewall_rule", "DELETE", "/nodes/{node}/qemu/{vmid}/firewall/rules/{pos}",
     "/vms/{vmid}", "VM.Config.Network", "securityGroups: remove a group rule"},
    {"firewall_groups", "GET", "/cluster/firewall/groups", "/", "Sys.Audit",
     "client only: list security groups", false},
    {"create_firewall_group", "POST", "/cluster/firewall/groups", "/", "Sys.Modify",
     "client only; the controller never creates groups", false},
    {"add_firewall_group_rule", "POST", "/cluster/firewall/groups/{group}", "/", "Sys.Modify",
     "client only; the controller never writes group rules", false},
    {"pools", "GET", "/pools", "/pool/{poolid}", "Pool.Audit", "client only: list pools", false},
    {"pool", "GET", "/pools/{poolid}", "/pool/{poolid}", "Pool.Audit", "client only: read a pool",
     false},
    {"create_pool", "POST", "/pools", "/pool/{poolid}", "Pool.Allocate",
     "client only; the controller never creates pools", false},
    {"set_pool_member", "PUT", "/pools/{poolid}", "/pool/{poolid}, /vms/{vmid}",
     "Pool.Allocate VM.Allocate",
     "resourcePool: move a VM into or out of a pool (Pool.Allocate on the pool, VM.Allocate on "
     "the VM)"},
    // --- guest agent (metadataOptions.type: guestAgent, kproximate's join)
    {"agent_ping", "POST", "/nodes/{node}/qemu/{vmid}/agent/ping", "/vms/{vmid}", "VM.Monitor",
     "wait for the guest agent", true, 8, 8},
    {"agent_exec", "POST", "/nodes/{node}/qemu/{vmid}/agent/exec", "/vms/{vmid}", "VM.Monitor",
     "run joinCommand in the guest", true, 8, 8},
    {"agent_exec_status", "GET", "/nodes/{node}/qemu/{vmid}/agent/exec-status", "/vms/{vmid}",
     "VM.Monitor", "the join command's exit code", true, 8, 8},
    {"agent_ping", "POST", "/nodes/{node}/qemu/{vmid}/agent/ping", "/vms/{vmid}",
     "VM.GuestAgent.Unrestricted",
     "wait for the guest agent (VM.GuestAgent.Audit would do for this call alone)", true, 9, 9},
    {"agent_exec", "POST", "/nodes/{node}/qemu/{vmid}/agent/exec", "/vms/{vmid}",
     "VM.GuestAgent.Unrestricted", "run joinCommand in the guest (guest-exec needs Unrestricted)",
     true, 9, 9},
    {"agent_exec_status", "GET", "/nodes/{node}/qemu/{vmid}/agent/exec-status", "/vms/{vmid}",
     "VM.GuestAgent.Unrestricted", "the join command's exit code", true, 9, 9},
    {"login", "POST", "/access/ticket", "", "",
     "password login (root@pam for CPU pinning); tokens skip it"},
}};

}  // namespace

std::span<const call_privileges> required_privileges() {
  return table;
}

std::vector<std::string> role_privileges(int major) {
  std::set<std::string> all;
  for (const auto& c : table) {
    if (!c.used_by_controller || major < c.from_major || major > c.to_major) continue;
    std::string_view rest = c.privileges;
    while (!rest.empty()) {
      auto space = rest.find(' ');
      auto word = rest.substr(0, space);
      if (!word.empty()) all.emplace(word);
      rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
    }
  }
  return {all.begin(), all.end()};
}

}  // namespace kp::proxmox
