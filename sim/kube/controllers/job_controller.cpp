// The batch/v1 Job controller: keeps min(parallelism, completions - succeeded) pods running
// (parallelism pods until the first success when completions is unset), counts each finished
// pod once (a pod deleted before finishing counts as failed and is replaced at once), and ends
// the Job with Complete (CompletionsReached) or Failed (BackoffLimitExceeded, DeadlineExceeded),
// removing the pods still running. suspend: true stops its pods (Suspended condition). Status:
// active, ready, succeeded, failed, startTime, completionTime, conditions. Job pods carry the
// job-name and controller-uid labels; the simulated kubelet ends them after their run time (see
// kubelet.cpp). Not simulated: Indexed completion, pod failure policies, retry back-off delays.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "sim/kube/controllers/controller.hpp"
#include "sim/kube/controllers/workload_pods.hpp"
#include "sim/kube/json_util.hpp"

namespace kp::sim::kube {
namespace json = boost::json;

namespace {

bool condition_true(const json::object& o, std::string_view type) {
  return condition_status(o, type) == "True";
}

// A JobCondition (lastProbeTime and lastTransitionTime); unchanged when status and reason are.
void put_condition(json::object& status, std::string_view type, std::string_view value,
                   std::string_view reason, std::string_view message, const std::string& now) {
  auto& conds = ensure_array(status, "conditions");
  for (auto& c : conds) {
    if (!c.is_object() || string_at(c.get_object(), {"type"}) != type) continue;
    auto& co = c.get_object();
    if (string_at(co, {"status"}) == value && string_at(co, {"reason"}) == reason) return;
    if (string_at(co, {"status"}) != value) co["lastTransitionTime"] = now;
    co["status"] = value;
    co["reason"] = reason;
    co["message"] = message;
    co["lastProbeTime"] = now;
    return;
  }
  conds.push_back(json::object{{"type", type},
                               {"status", value},
                               {"lastProbeTime", now},
                               {"lastTransitionTime", now},
                               {"reason", reason},
                               {"message", message}});
}

class job_controller final : public controller {
 public:
  const char* name() const override { return "job"; }

  void reconcile(controller_context& ctx) override {
    auto& store = ctx.ops.store();
    const auto* jobs = store.objects("batch/jobs");
    if (!jobs || jobs->empty()) {
      counted_.clear();
      return;
    }
    std::vector<object_ptr> all;
    std::set<std::string> alive;
    for (const auto& [k, j] : *jobs) {
      all.push_back(j);
      alive.insert(std::string(meta_uid(j->object)));
    }
    for (auto it = counted_.begin(); it != counted_.end();)
      it = alive.count(it->first) ? std::next(it) : counted_.erase(it);
    std::map<std::string, std::unordered_map<std::string, std::vector<object_ptr>>> pods_by_ns;
    for (const auto& j : all) {
      std::string ns(meta_namespace(j->object));
      auto found = pods_by_ns.find(ns);
      if (found == pods_by_ns.end())
        found = pods_by_ns.emplace(ns, objects_by_controller(store, "/pods", ns)).first;
      sync(ctx, j->object, found->second[std::string(meta_uid(j->object))]);
    }
  }

 private:
  void sync(controller_context& ctx, const json::object& job,
            const std::vector<object_ptr>& owned) {
    const auto& pod_type = builtin_type(ctx.ops, "", "pods");
    std::string ns(meta_namespace(job));
    std::string uid(meta_uid(job));
    auto now = format_time(ctx.now);
    auto& counted = counted_[uid];
    auto succeeded = int_at(job, {"status", "succeeded"}, 0);
    auto failed = int_at(job, {"status", "failed"}, 0);
    std::vector<object_ptr> active;
    for (const auto& p : owned) {
      const auto& pod = p->object;
      auto phase = string_at(pod, {"status", "phase"});
      bool done = phase == "Succeeded" || phase == "Failed" || has_deletion_timestamp(pod);
      if (!done) {
        active.push_back(p);
        continue;
      }
      if (!counted.insert(std::string(meta_uid(pod))).second) continue;
      if (phase == "Succeeded")
        ++succeeded;
      else
        ++failed;
    }
    std::sort(active.begin(), active.end(), [](const object_ptr& a, const object_ptr& b) {
      return string_at(a->object, {"metadata", "creationTimestamp"}) <
             string_at(b->object, {"metadata", "creationTimestamp"});
    });

    json::object next = job;
    auto& st = ensure_object(next, "status");
    bool finished = condition_true(job, "Complete") || condition_true(job, "Failed");
    const auto* completions_v = find_path(job, {"spec", "completions"});
    bool has_completions = completions_v && !completions_v->is_null();
    auto completions = int_at(job, {"spec", "completions"}, 1);
    auto parallelism = std::max<std::int64_t>(0, int_at(job, {"spec", "parallelism"}, 1));
    auto backoff_limit = int_at(job, {"spec", "backoffLimit"}, 6);
    const auto* suspend_v = find_path(job, {"spec", "suspend"});
    bool suspended = suspend_v && suspend_v->is_bool() && suspend_v->get_bool();
    auto deadline = int_at(job, {"spec", "activeDeadlineSeconds"}, 0);
    auto started = parse_time(string_at(job, {"status", "startTime"}));
    if (!started && !suspended && !finished) {
      st["startTime"] = now;
      started = ctx.now;
    }

    auto keep = std::numeric_limits<std::size_t>::max();  // active pods that stay, oldest first
    if (!finished && !has_deletion_timestamp(job)) {
      bool complete = has_completions ? succeeded >= completions : succeeded > 0 && active.empty();
      if (failed > backoff_limit) {
        finish(st, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
               now);
        keep = 0;
      } else if (complete) {
        put_condition(st, "SuccessCriteriaMet", "True", "CompletionsReached",
                      "Reached expected number of succeeded pods", now);
        finish(st, "Complete", "CompletionsReached", "Reached expected number of succeeded pods",
               now);
        st["completionTime"] = now;
        keep = 0;
      } else if (deadline > 0 && started && *started + std::chrono::seconds(deadline) <= ctx.now) {
        finish(st, "Failed", "DeadlineExceeded", "Job was active longer than specified deadline",
               now);
        keep = 0;
      } else if (suspended) {
        put_condition(st, "Suspended", "True", "JobSuspended", "Job suspended", now);
        st.erase("startTime");
        keep = 0;
      } else {
        if (condition_true(job, "Suspended"))
          put_condition(st, "Suspended", "False", "JobResumed", "Job resumed", now);
        std::int64_t want =
            has_completions
                ? std::min(parallelism, std::max<std::int64_t>(0, completions - succeeded))
                : (succeeded > 0 ? 0 : parallelism);
        auto have = static_cast<std::int64_t>(active.size());
        if (want < have) keep = static_cast<std::size_t>(want);
        const auto* tmpl = object_at(job, {"spec", "template"});
        for (auto i = have; i < want && tmpl; ++i) {
          json::object pod_tmpl = *tmpl;
          auto& labels = ensure_object(ensure_object(pod_tmpl, "metadata"), "labels");
          labels["batch.kubernetes.io/controller-uid"] = uid;
          labels["batch.kubernetes.io/job-name"] = meta_name(job);
          labels["controller-uid"] = uid;
          labels["job-name"] = meta_name(job);
          write_options wo;
          auto r = ctx.ops.create(pod_type, ns, pod_from_template(job, "batch/v1", "Job", pod_tmpl),
                                  controller_user("job-controller"), wo);
          if (r) active.push_back(r.value());
        }
      }
    } else if (finished) {
      keep = 0;
    }
    for (std::size_t i = keep; i < active.size(); ++i)
      (void)ctx.ops.remove(pod_type, ns, meta_name(active[i]->object), {});
    if (keep < active.size()) active.resize(keep);

    std::int64_t ready = 0;
    for (const auto& p : active) ready += pod_ready(p->object) ? 1 : 0;
    auto set_count = [&](const char* field, std::int64_t n) {
      if (n > 0)
        st[field] = n;
      else
        st.erase(field);  // omitempty, as the API does
    };
    set_count("active", static_cast<std::int64_t>(active.size()));
    set_count("succeeded", succeeded);
    set_count("failed", failed);
    st["ready"] = ready;
    st["uncountedTerminatedPods"] = json::object{};
    ctx.ops.write(builtin_type(ctx.ops, "batch", "jobs"), std::move(next));
  }

  static void finish(json::object& status, const char* type, const char* reason,
                     const char* message, const std::string& now) {
    if (std::string_view(type) == "Failed")
      put_condition(status, "FailureTarget", "True", reason, message, now);
    put_condition(status, type, "True", reason, message, now);
  }

  // Finished pods already counted in each Job's status, by Job uid.
  std::map<std::string, std::set<std::string>> counted_;
};

}  // namespace

std::unique_ptr<controller> make_job_controller() {
  return std::make_unique<job_controller>();
}

}  // namespace kp::sim::kube
