#pragma once
// The read-only tools' door to both APIs: the controller's clients, built from the controller's
// settings (api_clients), kept open between looks so that a refreshing tool (`view`) reuses its
// connections. Each `read` is one live_world (live_world.hpp), GETs only, within a deadline.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmd/karpenter-proxmox/plan/live_world.hpp"
#include "config/clusters_file.hpp"
#include "config/settings.hpp"
#include "core/instance_types/instance_type.hpp"
#include "core/result.hpp"
#include "core/topology/node_settings.hpp"

namespace kp::plan {

class live_reader {
 public:
  // `tool` names the command in stderr lines ("plan", "view"). The error names what is wrong:
  // the Kubernetes client configuration or its client.
  static result<std::unique_ptr<live_reader>> create(const config::settings& settings,
                                                     const config::clusters_file& clusters,
                                                     const std::string& tool);
  ~live_reader();  // closes the clients and stops their I/O thread
  live_reader(const live_reader&) = delete;
  live_reader& operator=(const live_reader&) = delete;

  // Kubernetes, then each region in the clusters file's order. An error only when Kubernetes
  // cannot be read; a region that cannot be read keeps its reason in `region_reading::error`.
  result<live_world> read(std::chrono::steady_clock::time_point deadline);

 private:
  struct clients;
  explicit live_reader(std::unique_ptr<clients> c);
  std::unique_ptr<clients> clients_;
};

// The clients' warnings go to stderr, so stdout holds the tool's output alone.
status log_warnings_to_stderr();

// The files the controller loads at start, loaded the same way: the clusters file (its secrets
// registered with the log redaction at once), NODE_SETTING_FILE and the instance types. The
// error is the loader's one line naming the file and field.
struct controller_files {
  config::clusters_file clusters;
  std::optional<topology::node_settings_file> node_settings;  // none when the file lists no host
  std::vector<instance_types::instance_type> instance_types;
};
result<controller_files> load_controller_files(const config::settings& settings);

}  // namespace kp::plan
