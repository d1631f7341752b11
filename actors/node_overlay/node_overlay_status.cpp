// The NodeOverlay status actor. Writes are merge patches of the status subresource; each
// completes on an io thread and comes back as a `resume` message. An overlay with a write in
// flight is left alone until it completes, then looked at again against the newest snapshot.
// Snapshots lag behind our own writes, so a snapshot still showing the version a write was based
// on does not cause the same write again.
#include "actors/node_overlay/node_overlay_status.hpp"

#include <map>
#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/node_overlay/overlaid_types.hpp"
#include "actors/node_overlay/overlay_conditions.hpp"
#include "actors/status_refusals.hpp"
#include "actors/status_writer.hpp"
#include "observability/logging.hpp"

namespace kp::actors::node_overlay {
namespace {

using namespace kp::protocol;

struct overlay_record {
  int in_flight = 0;
  std::set<std::string> own_versions;  // resourceVersions our writes were based on or produced
  std::optional<kube::node_overlay_status> written;
};

struct status_state {
  controller_context ctx;
  node_overlay_status_options opt;
  snapshot_ptr latest;
  // What the last judgement was made from: a snapshot that changes neither is not judged again.
  shared_objects<kube::node_overlay> judged_overlays;
  shared_objects<kube::proxmox_node_class> judged_classes;
  std::map<std::string, overlays::verdict> verdicts;  // by overlay name
  std::map<std::string, overlay_record> records;
  status_refusals refusals;
  obs::logger log{"nodeoverlay.status"};
  boundary_ptr boundary;
};

using self_ptr = status_writer_ptr<status_state>;

void reconcile(self_ptr self, const kube::node_overlay& object);

// A bad overlay is reported where people look: the log, and an Event on the overlay.
void announce(const status_state& st, const kube::node_overlay& object,
              const kube::condition& validation) {
  st.log.warn("nodeoverlay refused", {{"nodeoverlay", object.metadata.name},
                                      {"reason", validation.reason},
                                      {"message", validation.message}});
  protocol::event_record e;
  e.kind = "NodeOverlay";
  e.api_version = "karpenter.sh/v1alpha1";
  e.name = object.metadata.name;
  e.uid = object.metadata.uid;
  e.type = "Warning";
  e.reason = validation.reason;
  e.message = "ValidationSucceeded=False (" + validation.reason + "): " + validation.message;
  record_event(st.ctx, std::move(e));
}

void write_done(self_ptr self, const std::string& name, const result<kube::node_overlay>& r,
                std::int64_t generation, const std::string& digest) {
  auto& st = self->state;
  auto& rec = st.records[name];
  --rec.in_flight;
  if (!r && status_refusals::is_refusal(r.error())) {
    st.refusals.report(r.error(), "NodeOverlay", name, generation, digest, st.ctx.metrics.get(),
                       st.log);
    rec.written.reset();
  } else if (!r) {
    st.log.warn("nodeoverlay status write failed",
                {{"nodeoverlay", name}, {"code", r.error().code}, {"error", r.error().message}});
    rec.written.reset();
  } else {
    rec.own_versions.insert(r->metadata.resource_version);
    st.refusals.forget(name);
  }
  if (rec.in_flight > 0 || !st.latest) return;
  if (const auto* o = cluster_snapshot::find(st.latest->node_overlays, name)) reconcile(self, *o);
}

void reconcile(self_ptr self, const kube::node_overlay& object) {
  auto& st = self->state;
  const auto& name = object.metadata.name;
  auto v = st.verdicts.find(name);
  if (v == st.verdicts.end()) return;
  auto& rec = st.records[name];
  if (rec.in_flight > 0) return;
  const auto& rv = object.metadata.resource_version;
  const bool ours = rec.own_versions.count(rv) > 0;
  if (!ours) {
    rec.own_versions = {rv};
    rec.written.reset();
  }
  auto desired = desired_status(object, v->second, st.ctx.wall_clock_ms());
  const auto generation = object.metadata.generation;
  const auto digest = conditions_digest(desired.conditions);
  if (equivalent(object.status, desired) ||
      (ours && rec.written && equivalent(*rec.written, desired)) ||
      st.refusals.refused(name, generation, digest))
    return;
  const auto* now = validation_condition(desired);
  const auto* before = validation_condition(object.status);
  if (now && now->status == "False" &&
      (!before || before->status != "False" || before->reason != now->reason ||
       before->message != now->message))
    announce(st, object, *now);
  ++rec.in_flight;
  rec.written = desired;
  if (st.opt.on_write) st.opt.on_write(name);
  st.ctx.kube->patch<kube::node_overlay>(
      {"", name}, kube::patch_type::merge, status_patch(desired),
      resume_in<result<kube::node_overlay>>(
          status_writer_actor{self},
          [self, name, generation, digest](result<kube::node_overlay> r) {
            write_done(self, name, r, generation, digest);
          },
          "NodeOverlay " + name),
      "status");
}

void on_snapshot(self_ptr self, snapshot_ptr snap) {
  auto& st = self->state;
  if (!snap || !snap->synced) return;
  st.latest = std::move(snap);
  const auto& s = *st.latest;
  if (s.node_overlays == st.judged_overlays && s.node_classes == st.judged_classes) return;
  st.judged_overlays = s.node_overlays;
  st.judged_classes = s.node_classes;
  std::vector<std::string> regions;
  for (const auto& [name, r] : st.ctx.regions) regions.push_back(name);
  auto judged = overlay_types(with_node_class_offerings(st.ctx.instance_types, s, regions), s);
  st.verdicts.clear();
  for (auto& v : judged.verdicts) st.verdicts[v.overlay] = std::move(v);
  if (s.node_overlays)
    for (const auto& [key, o] : *s.node_overlays)
      // Confined to the overlay: the others still get their status.
      st.boundary->contain("NodeOverlay " + o->metadata.name, [&] { reconcile(self, *o); });
  for (auto it = st.records.begin(); it != st.records.end();) {
    bool gone = !cluster_snapshot::find(s.node_overlays, it->first) && it->second.in_flight == 0;
    it = gone ? st.records.erase(it) : std::next(it);
  }
}

}  // namespace

protocol::node_overlay_status_actor spawn_node_overlay_status(caf::actor_system& system,
                                                              const controller_context& ctx,
                                                              node_overlay_status_options options) {
  return spawn_status_writer<status_state, on_snapshot>(system, "node_overlay_status", ctx,
                                                        std::move(options));
}

}  // namespace kp::actors::node_overlay
