#include "config/setting_table.hpp"

#include <limits>
#include <utility>

#include "config/secret_namespaces.hpp"
#include "config/value_parsers.hpp"

namespace kp::config {
namespace {

// Builders: each ties a spec to one member of `settings`, so apply and show stay consistent.

setting_spec text_setting(std::string group, std::string flag, std::string env, std::string help,
                          std::string settings::*member) {
  return {std::move(group),
          std::move(flag),
          std::move(env),
          "string",
          std::move(help),
          false,
          [member](settings& s, std::string_view text) -> status {
            s.*member = std::string(text);
            return {};
          },
          [member](const settings& s) { return s.*member; }};
}

template <class Int>
setting_spec integer_setting(std::string group, std::string flag, std::string env, std::string help,
                             Int settings::*member, std::int64_t min, std::int64_t max) {
  return {std::move(group),
          std::move(flag),
          std::move(env),
          "int",
          std::move(help),
          false,
          [member, min, max](settings& s, std::string_view text) -> status {
            auto value = parse_integer(text, min, max);
            if (!value) return value.error();
            s.*member = static_cast<Int>(*value);
            return {};
          },
          [member](const settings& s) { return std::to_string(s.*member); }};
}

setting_spec port_setting(std::string group, std::string flag, std::string env, std::string help,
                          int settings::*member) {
  return integer_setting(std::move(group), std::move(flag), std::move(env), std::move(help), member,
                         0, 65535);
}

setting_spec bool_setting(std::string group, std::string flag, std::string env, std::string help,
                          bool settings::*member) {
  return {std::move(group),
          std::move(flag),
          std::move(env),
          "bool",
          std::move(help),
          true,
          [member](settings& s, std::string_view text) -> status {
            auto value = parse_bool(text);
            if (!value) return value.error();
            s.*member = *value;
            return {};
          },
          [member](const settings& s) { return std::string(s.*member ? "true" : "false"); }};
}

// allow_zero: whether 0 is meaningful (e.g. "no timeout"); negative durations are never allowed.
setting_spec duration_setting(std::string group, std::string flag, std::string env,
                              std::string help, duration settings::*member,
                              bool allow_zero = false) {
  return {std::move(group),
          std::move(flag),
          std::move(env),
          "duration",
          std::move(help),
          false,
          [member, allow_zero](settings& s, std::string_view text) -> status {
            auto value = parse_duration(text);
            if (!value) return value.error();
            if (value->count() < 0 || (!allow_zero && value->count() == 0)) {
              return make_error("out_of_range",
                                "invalid duration \"" + std::string(text) + "\": expected " +
                                    (allow_zero ? "zero or more" : "more than zero") +
                                    " (Go syntax such as 500ms, 10s, 1m30s)");
            }
            s.*member = *value;
            return {};
          },
          [member](const settings& s) { return format_duration(s.*member); }};
}

template <class Enum>
setting_spec choice_setting(std::string group, std::string flag, std::string env, std::string help,
                            Enum settings::*member,
                            std::vector<std::pair<std::string, Enum>> choices) {
  std::vector<std::string> names;
  std::string type;
  for (const auto& [name, value] : choices) {
    names.push_back(name);
    type += (type.empty() ? "" : "|") + name;
  }
  return {std::move(group),
          std::move(flag),
          std::move(env),
          type,
          std::move(help),
          false,
          [member, names, choices](settings& s, std::string_view text) -> status {
            auto index = parse_choice(text, names);
            if (!index) return index.error();
            s.*member = choices[*index].second;
            return {};
          },
          [member, choices](const settings& s) {
            for (const auto& [name, value] : choices) {
              if (value == s.*member) return name;
            }
            return std::string();
          }};
}

std::vector<setting_spec> build_table() {
  const std::string karpenter = "Karpenter";
  const std::string provider = "Proxmox provider";
  const std::string ours = "karpenter-proxmox";
  const std::string lifecycle = "Lifecycle timeouts";
  const std::string proxmox = "Proxmox operations";
  const std::string disruption = "Disruption";
  const std::int64_t int_max = std::numeric_limits<int>::max();
  const std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

  std::vector<setting_spec> t;
  // Karpenter core (pkg/operator/options/options.go), same names and defaults.
  t.push_back(text_setting(karpenter, "karpenter-service", "KARPENTER_SERVICE",
                           "Legacy webhook service name; accepted for compatibility, unused.",
                           &settings::karpenter_service));
  t.push_back(port_setting(karpenter, "metrics-port", "METRICS_PORT",
                           "Port of the Prometheus endpoint /metrics (0 picks a free port and "
                           "logs it).",
                           &settings::metrics_port));
  t.push_back(port_setting(karpenter, "health-probe-port", "HEALTH_PROBE_PORT",
                           "Port of /healthz and /readyz (0 picks a free port and logs it).",
                           &settings::health_probe_port));
  t.push_back(integer_setting(karpenter, "kube-client-qps", "KUBE_CLIENT_QPS",
                              "Smoothed rate of requests per second to the Kubernetes API.",
                              &settings::kube_client_qps, 1, int_max));
  t.push_back(integer_setting(karpenter, "kube-client-burst", "KUBE_CLIENT_BURST",
                              "Maximum burst of requests to the Kubernetes API.",
                              &settings::kube_client_burst, 1, int_max));
  t.push_back(bool_setting(karpenter, "enable-profiling", "ENABLE_PROFILING",
                           "Accepted for compatibility; Go's pprof has no C++ counterpart.",
                           &settings::enable_profiling));
  t.push_back(bool_setting(karpenter, "disable-controller-warmup", "DISABLE_CONTROLLER_WARMUP",
                           "When false, watches start before leader election is won.",
                           &settings::disable_controller_warmup));
  t.push_back(bool_setting(karpenter, "disable-leader-election", "DISABLE_LEADER_ELECTION",
                           "Run without taking the leader Lease (single replica only).",
                           &settings::disable_leader_election));
  t.push_back(text_setting(karpenter, "leader-election-name", "LEADER_ELECTION_NAME",
                           "Name of the leader election Lease.", &settings::leader_election_name));
  t.push_back(text_setting(karpenter, "leader-election-namespace", "LEADER_ELECTION_NAMESPACE",
                           "Namespace of the leader election Lease (empty: the pod's namespace).",
                           &settings::leader_election_namespace));
  t.push_back(bool_setting(karpenter, "disable-cluster-state-observability",
                           "DISABLE_CLUSTER_STATE_OBSERVABILITY",
                           "Disable the pod, node and nodepool state metrics.",
                           &settings::disable_cluster_state_observability));
  t.push_back(integer_setting(karpenter, "memory-limit", "MEMORY_LIMIT",
                              "Memory limit of the container in bytes (-1: none); informational.",
                              &settings::memory_limit, -1, i64_max));
  t.push_back(integer_setting(karpenter, "cpu-requests", "CPU_REQUESTS",
                              "CPU requests of the container in millicores; scales concurrency.",
                              &settings::cpu_requests, 1, i64_max));
  t.push_back(choice_setting(karpenter, "log-level", "LOG_LEVEL", "Log verbosity.",
                             &settings::log_level,
                             {{"debug", log_verbosity::debug},
                              {"info", log_verbosity::info},
                              {"warn", log_verbosity::warn},
                              {"error", log_verbosity::error}}));
  t.push_back(text_setting(karpenter, "log-output-paths", "LOG_OUTPUT_PATHS",
                           "Comma-separated log destinations: stdout, stderr or file paths.",
                           &settings::log_output_paths));
  t.push_back(text_setting(karpenter, "log-error-output-paths", "LOG_ERROR_OUTPUT_PATHS",
                           "Accepted for compatibility; the logger's own errors go to stderr.",
                           &settings::log_error_output_paths));
  t.push_back(duration_setting(karpenter, "batch-max-duration", "BATCH_MAX_DURATION",
                               "Longest time a provisioning batch may collect pods.",
                               &settings::batch_max_duration));
  t.push_back(duration_setting(karpenter, "batch-idle-duration", "BATCH_IDLE_DURATION",
                               "A batch closes after this long without a new pending pod.",
                               &settings::batch_idle_duration));
  t.push_back(choice_setting(
      karpenter, "preference-policy", "PREFERENCE_POLICY",
      "Whether preferred affinities and spreads are honoured.", &settings::preference_policy,
      {{"Respect", preference_mode::respect}, {"Ignore", preference_mode::ignore}}));
  t.push_back(choice_setting(
      karpenter, "min-values-policy", "MIN_VALUES_POLICY",
      "Whether NodePool minValues may be relaxed when unsatisfiable.", &settings::min_values_policy,
      {{"Strict", min_values_mode::strict}, {"BestEffort", min_values_mode::best_effort}}));
  t.push_back(bool_setting(karpenter, "ignore-dra-requests", "IGNORE_DRA_REQUESTS",
                           "Skip pods with dynamic resource claims.",
                           &settings::ignore_dra_requests));
  t.push_back(setting_spec{
      karpenter, "feature-gates", "FEATURE_GATES", "Name=bool,...",
      "Karpenter feature gates in Kubernetes map syntax; unnamed gates keep their default.", false,
      [](settings& s, std::string_view text) -> status {
        auto gates = parse_feature_gates(text);
        if (!gates) return gates.error();
        s.gates = *gates;
        return {};
      },
      [](const settings& s) { return format_feature_gates(s.gates); }});
  t.push_back(text_setting(karpenter, "scheduler-config", "SCHEDULER_CONFIG",
                           "Path of a YAML file with default pod topology spread constraints.",
                           &settings::scheduler_config));

  // The Go Proxmox provider (sergelogvinov/karpenter-provider-proxmox), same names.
  t.push_back(text_setting(provider, "cloud-config", "CLOUD_CONFIG",
                           "Path of the Proxmox clusters file (required).",
                           &settings::cloud_config));
  t.push_back(text_setting(provider, "instance-types-file", "INSTANCE_TYPES_FILE",
                           "Path of a JSON list of instance types (empty: generated).",
                           &settings::instance_types_file));
  t.push_back(text_setting(provider, "node-setting-file", "NODE_SETTING_FILE",
                           "Path of a JSON file overriding Proxmox host topology.",
                           &settings::node_setting_file));
  t.push_back(choice_setting(
      provider, "node-policy", "NODE_POLICY",
      "simple, or static for CPU pinning and NUMA placement.", &settings::node_policy,
      {{"simple", node_policy_mode::simple}, {"static", node_policy_mode::static_pinning}}));
  t.push_back(integer_setting(provider, "proxmox-vmid", "PROXMOX_VMID",
                              "Lowest VMID given to new node VMs.", &settings::proxmox_vmid, 100,
                              999999999));
  t.push_back(text_setting(provider, "system-namespace", "SYSTEM_NAMESPACE",
                           "Namespace of the bootstrap token Secrets (Kubernetes reads them "
                           "only from kube-system).",
                           &settings::system_namespace));
  t.push_back(setting_spec{
      provider, "template-secret-namespaces", "TEMPLATE_SECRET_NAMESPACES", "list",
      "Comma-separated namespaces whose Secrets node classes may name in templatesRef and "
      "valuesRef (empty: SYSTEM_NAMESPACE and the controller's own namespace).",
      false,
      [](settings& s, std::string_view text) -> status {
        auto names = parse_namespace_list(text);
        if (!names) return names.error();
        s.template_secret_namespaces = std::move(*names);
        return {};
      },
      [](const settings& s) { return format_namespace_list(s.template_secret_namespaces); }});
  t.push_back(setting_spec{
      provider, "vm-memory-overhead-percent", "VM_MEMORY_OVERHEAD_PERCENT", "number",
      "Fraction of VM memory reserved for the guest OS and hypervisor (0.075 = 7.5%).", false,
      [](settings& s, std::string_view text) -> status {
        auto value = parse_number(text, 0, 0.99);
        if (!value) return value.error();
        s.vm_memory_overhead_percent = *value;
        return {};
      },
      [](const settings& s) { return format_number(s.vm_memory_overhead_percent); }});

  // karpenter-proxmox's own.
  t.push_back(text_setting(ours, "cluster-name", "CLUSTER_NAME",
                           "Name written into each VM's ownership mark (empty: the UID of the "
                           "kube-system namespace).",
                           &settings::cluster_name));
  t.push_back(text_setting(ours, "cluster-endpoint", "CLUSTER_ENDPOINT",
                           "API server URL reachable from new VMs (empty: the kubeconfig's or "
                           "in-cluster server).",
                           &settings::cluster_endpoint));
  t.push_back(text_setting(ours, "kubeconfig", "KUBECONFIG",
                           "Path of a kubeconfig (empty: in-cluster configuration).",
                           &settings::kubeconfig));
  t.push_back(text_setting(ours, "bind-address", "BIND_ADDRESS",
                           "Address the metrics and health endpoints listen on.",
                           &settings::bind_address));

  t.push_back(duration_setting(lifecycle, "launch-timeout", "LAUNCH_TIMEOUT",
                               "A NodeClaim not launched within this is deleted.",
                               &settings::launch_timeout));
  t.push_back(duration_setting(lifecycle, "registration-timeout", "REGISTRATION_TIMEOUT",
                               "A launched NodeClaim whose node has not registered within this is "
                               "deleted.",
                               &settings::registration_timeout));
  t.push_back(duration_setting(lifecycle, "min-drain-duration", "MIN_DRAIN_DURATION",
                               "Shortest drain, to catch pods bound just before the taint.",
                               &settings::min_drain_duration));
  t.push_back(duration_setting(lifecycle, "drain-timeout", "DRAIN_TIMEOUT",
                               "Longest drain before pods are deleted (0: until the "
                               "terminationGracePeriod).",
                               &settings::drain_timeout, true));
  t.push_back(duration_setting(lifecycle, "garbage-collection-interval",
                               "GARBAGE_COLLECTION_INTERVAL",
                               "How often leftover VMs, NodeClaims and tokens are looked for.",
                               &settings::garbage_collection_interval));
  t.push_back(duration_setting(lifecycle, "orphan-vm-grace-period", "ORPHAN_VM_GRACE_PERIOD",
                               "A VM of this cluster without a NodeClaim is deleted only once "
                               "older than this.",
                               &settings::orphan_vm_grace_period));
  t.push_back(duration_setting(
      lifecycle, "provisioning-solve-timeout", "PROVISIONING_SOLVE_TIMEOUT",
      "Longest scheduling simulation per batch.", &settings::provisioning_solve_timeout));
  t.push_back(duration_setting(lifecycle, "initialization-timeout", "INITIALIZATION_TIMEOUT",
                               "A registered node not initialized within this is replaced (0: "
                               "never).",
                               &settings::initialization_timeout, true));
  t.push_back(duration_setting(lifecycle, "bootstrap-token-ttl", "BOOTSTRAP_TOKEN_TTL",
                               "Lifetime of a VM's join token (at most 1h); deleted earlier, once "
                               "the node registers.",
                               &settings::bootstrap_token_ttl));
  t.push_back(duration_setting(
      lifecycle, "leader-election-lease-duration", "LEADER_ELECTION_LEASE_DURATION",
      "How long a leader Lease holds without renewal.", &settings::leader_election_lease_duration));
  t.push_back(duration_setting(lifecycle, "leader-election-renew-deadline",
                               "LEADER_ELECTION_RENEW_DEADLINE",
                               "The leader steps down when it could not renew for this long.",
                               &settings::leader_election_renew_deadline));
  t.push_back(duration_setting(
      lifecycle, "leader-election-retry-period", "LEADER_ELECTION_RETRY_PERIOD",
      "How often the Lease is tried and renewed.", &settings::leader_election_retry_period));
  t.push_back(duration_setting(proxmox, "proxmox-inventory-interval", "PROXMOX_INVENTORY_INTERVAL",
                               "How often each region re-reads hosts, VMs and templates.",
                               &settings::proxmox_inventory_interval));

  t.push_back(duration_setting(disruption, "disruption-poll-interval", "DISRUPTION_POLL_INTERVAL",
                               "How often disruption looks for empty, drifted, expired and "
                               "underused nodes (Karpenter: 10s).",
                               &settings::disruption_poll_interval));
  t.push_back(duration_setting(disruption, "disruption-validation-delay",
                               "DISRUPTION_VALIDATION_DELAY",
                               "A disruption decision is re-checked after this before acting "
                               "(Karpenter: 15s).",
                               &settings::disruption_validation_delay, true));
  t.push_back(duration_setting(disruption, "disruption-replacement-timeout",
                               "DISRUPTION_REPLACEMENT_TIMEOUT",
                               "Replacement nodes must be initialized within this, or the "
                               "disruption is abandoned.",
                               &settings::disruption_replacement_timeout));
  t.push_back(duration_setting(disruption, "node-repair-toleration", "NODE_REPAIR_TOLERATION",
                               "With the NodeRepair gate, a node NotReady this long is replaced.",
                               &settings::node_repair_toleration));
  t.push_back(bool_setting(disruption, "conservative-scale-down", "CONSERVATIVE_SCALE_DOWN",
                           "kproximate's scale-down: one node per pass, stabilization, minimum "
                           "node age and load headroom.",
                           &settings::conservative_scale_down));
  t.push_back(duration_setting(disruption, "scale-down-stabilization", "SCALE_DOWN_STABILIZATION",
                               "Conservative mode: no scale-down while any node is younger "
                               "(kproximate scaleDownStabilizationMinutes).",
                               &settings::scale_down_stabilization, true));
  t.push_back(duration_setting(disruption, "min-node-age", "MIN_NODE_AGE",
                               "Conservative mode: a node younger than this is never removed "
                               "(kproximate minNodeAgeMinutes).",
                               &settings::min_node_age, true));
  t.push_back(setting_spec{
      disruption, "load-headroom", "LOAD_HEADROOM", "number",
      "Conservative mode: requests x (1 + headroom) must stay below what remains (kproximate "
      "loadHeadroom).",
      false,
      [](settings& s, std::string_view text) -> status {
        auto value = parse_number(text, 0, 10);
        if (!value) return value.error();
        s.load_headroom = *value;
        return {};
      },
      [](const settings& s) { return format_number(s.load_headroom); }});

  t.push_back(duration_setting(proxmox, "proxmox-clone-timeout", "PROXMOX_CLONE_TIMEOUT",
                               "Wait for a clone task.", &settings::proxmox_clone_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-config-timeout", "PROXMOX_CONFIG_TIMEOUT",
                               "Wait for a VM config task.", &settings::proxmox_config_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-resize-timeout", "PROXMOX_RESIZE_TIMEOUT",
                               "Wait for a disk resize.", &settings::proxmox_resize_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-start-timeout", "PROXMOX_START_TIMEOUT",
                               "Wait for a VM start task.", &settings::proxmox_start_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-stop-timeout", "PROXMOX_STOP_TIMEOUT",
                               "Wait for a VM stop task.", &settings::proxmox_stop_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-delete-timeout", "PROXMOX_DELETE_TIMEOUT",
                               "Wait for a VM destroy task.", &settings::proxmox_delete_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-upload-timeout", "PROXMOX_UPLOAD_TIMEOUT",
                               "Wait for a cloud-init ISO upload (the Go provider's 5s fails on "
                               "busy hosts).",
                               &settings::proxmox_upload_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-download-timeout", "PROXMOX_DOWNLOAD_TIMEOUT",
                               "Wait for an image download-url task.",
                               &settings::proxmox_download_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-template-timeout", "PROXMOX_TEMPLATE_TIMEOUT",
                               "Wait for a VM-to-template conversion.",
                               &settings::proxmox_template_timeout));
  t.push_back(duration_setting(proxmox, "proxmox-task-poll-interval", "PROXMOX_TASK_POLL_INTERVAL",
                               "Interval between task status polls.",
                               &settings::proxmox_task_poll_interval));
  t.push_back(duration_setting(proxmox, "proxmox-task-first-poll-floor",
                               "PROXMOX_TASK_FIRST_POLL_FLOOR",
                               "A task's first status poll waits for the typical duration of its "
                               "type on its host (learnt from earlier tasks), at least this.",
                               &settings::proxmox_task_first_poll_floor));
  t.push_back(duration_setting(proxmox, "proxmox-task-first-poll-cap",
                               "PROXMOX_TASK_FIRST_POLL_CAP",
                               "The longest a task's first status poll waits for its typical "
                               "duration.",
                               &settings::proxmox_task_first_poll_cap));
  t.push_back(bool_setting(proxmox, "proxmox-cluster-task-list", "PROXMOX_CLUSTER_TASK_LIST",
                           "Task waits share one GET /cluster/tasks read per poll round, which "
                           "answers every task it lists as finished; a task it leaves out is "
                           "polled on its own. false: each wait polls its own task.",
                           &settings::proxmox_cluster_task_list));
  t.push_back(duration_setting(proxmox, "proxmox-task-list-gather", "PROXMOX_TASK_LIST_GATHER",
                               "Task waits falling due within this share one GET /cluster/tasks "
                               "read (a look waits this much longer at most; 0 = read at once).",
                               &settings::proxmox_task_list_gather));
  t.push_back(duration_setting(proxmox, "proxmox-task-answer-wait", "PROXMOX_TASK_ANSWER_WAIT",
                               "Config writes and ISO deletes ask Proxmox to answer once their "
                               "task ended, if within this (1-30s, 0 = never): no status poll.",
                               &settings::proxmox_task_answer_wait));
  t.push_back(duration_setting(proxmox, "proxmox-template-config-max-age",
                               "PROXMOX_TEMPLATE_CONFIG_MAX_AGE",
                               "A template's config read this recently serves the template "
                               "builder's observation without another read.",
                               &settings::proxmox_template_config_max_age));
  t.push_back(duration_setting(proxmox, "proxmox-host-facts-max-age", "PROXMOX_HOST_FACTS_MAX_AGE",
                               "Host status (CPU topology) and bridges are read again at the "
                               "first inventory refresh after this age (and after a failed read).",
                               &settings::proxmox_host_facts_max_age));
  t.push_back(duration_setting(proxmox, "proxmox-launched-config-max-age",
                               "PROXMOX_LAUNCHED_CONFIG_MAX_AGE",
                               "A launched VM's config as the launch wrote it serves the "
                               "inventory this long; the ISO release's ownership read usually "
                               "replaces it sooner, else a refresh reads it.",
                               &settings::proxmox_launched_config_max_age));
  t.push_back(duration_setting(proxmox, "proxmox-request-timeout", "PROXMOX_REQUEST_TIMEOUT",
                               "Timeout of one Proxmox API request.",
                               &settings::proxmox_request_timeout));
  t.push_back(integer_setting(proxmox, "proxmox-max-inflight", "PROXMOX_MAX_INFLIGHT",
                              "Proxmox operations in flight per region; more wait in a queue.",
                              &settings::proxmox_max_inflight, 1, 1024));
  return t;
}

}  // namespace

const std::vector<setting_spec>& setting_table() {
  static const std::vector<setting_spec> table = build_table();
  return table;
}

const setting_spec* find_setting(std::string_view flag) {
  for (const auto& spec : setting_table()) {
    if (spec.flag == flag) return &spec;
  }
  return nullptr;
}

}  // namespace kp::config
