#pragma once
// Internal to sim/pve: storages as a node sees them: the storage list, content listings, volume
// info and delete, ISO and image uploads (multipart) and download-url. ISO and import files are
// real files under DATA_DIR/<node>/<storage>/<content>/; VM disks exist only in VM configs.
#include "sim/pve/api_call.hpp"

namespace kp::sim::pve {

class world_model;
class task_board;
class api_router;

class storage_api {
 public:
  storage_api(world_model& world, task_board& tasks) : world_(world), tasks_(tasks) {}
  void add_routes(api_router& router);

 private:
  api_reply get_storage_list(api_call& c);
  api_reply get_content(api_call& c);
  api_reply get_volume(api_call& c);
  api_reply delete_volume(api_call& c);
  api_reply post_upload(api_call& c);
  api_reply post_download_url(api_call& c);

  world_model& world_;
  task_board& tasks_;
};

}  // namespace kp::sim::pve
