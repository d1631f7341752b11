// Unit tests of every setting parser: values, flags (one dash or two), environment and precedence.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "config/command_line.hpp"
#include "config/duration.hpp"
#include "config/secret_namespaces.hpp"
#include "config/setting_table.hpp"
#include "config/value_parsers.hpp"

namespace kp::config {
namespace {

using namespace std::chrono_literals;

environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

result<command_line> parse(std::vector<std::string> args,
                           std::map<std::string, std::string> vars = {}) {
  return parse_command_line(args, env_of(std::move(vars)));
}

TEST(Duration, ParsesGoSyntax) {
  EXPECT_EQ(*parse_duration("10s"), 10s);
  EXPECT_EQ(*parse_duration("1m30s"), 90s);
  EXPECT_EQ(*parse_duration("500ms"), 500ms);
  EXPECT_EQ(*parse_duration("15m"), 15min);
  EXPECT_EQ(*parse_duration("1.5h"), 90min);
  EXPECT_EQ(*parse_duration("2h45m"), 165min);
  EXPECT_EQ(*parse_duration("100us"), 100us);
  EXPECT_EQ(*parse_duration("100\xC2\xB5s"), 100us);
  EXPECT_EQ(*parse_duration("7ns"), 7ns);
  EXPECT_EQ(*parse_duration("0"), 0s);
  EXPECT_EQ(*parse_duration("-1s"), -1s);
  EXPECT_EQ(*parse_duration(".5s"), 500ms);
}

TEST(Duration, RefusesMissingUnitsUnknownUnitsAndGarbage) {
  for (auto bad : {"10", "", "s", "1d", "1 s", "abc", "1.s2", "--1s", "99999999999999999999h"}) {
    auto parsed = parse_duration(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.error().message.find("Go syntax"), std::string::npos) << bad;
    }
  }
}

TEST(Duration, FormatsLikeGo) {
  EXPECT_EQ(format_duration(10s), "10s");
  EXPECT_EQ(format_duration(5min), "5m0s");
  EXPECT_EQ(format_duration(1h), "1h0m0s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(500ms), "500ms");
  EXPECT_EQ(format_duration(1500ms), "1.5s");
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(-2s), "-2s");
  EXPECT_EQ(format_duration(7ns), "7ns");
}

TEST(Duration, FormattedValuesReadBackTheSame) {
  for (auto d :
       {duration(1ns), duration(1500us), duration(61s), duration(26h), duration(123456789ns)}) {
    EXPECT_EQ(*parse_duration(format_duration(d)), d) << format_duration(d);
  }
}

TEST(ValueParsers, BooleansFollowGoStrconv) {
  for (auto yes : {"1", "t", "T", "true", "TRUE", "True"}) EXPECT_TRUE(*parse_bool(yes)) << yes;
  for (auto no : {"0", "f", "F", "false", "FALSE", "False"}) EXPECT_FALSE(*parse_bool(no)) << no;
  for (auto bad : {"yes", "on", "", "tRuE", "2"}) EXPECT_FALSE(parse_bool(bad).ok()) << bad;
}

TEST(ValueParsers, IntegersAreDecimalAndBounded) {
  EXPECT_EQ(*parse_integer("8080", 0, 65535), 8080);
  EXPECT_EQ(*parse_integer("-1", -1, 10), -1);
  EXPECT_EQ(*parse_integer("+5", 0, 10), 5);
  EXPECT_FALSE(parse_integer("65536", 0, 65535).ok());
  EXPECT_FALSE(parse_integer("80a", 0, 65535).ok());
  EXPECT_FALSE(parse_integer("", 0, 65535).ok());
  EXPECT_FALSE(parse_integer("1.5", 0, 65535).ok());
  EXPECT_FALSE(parse_integer("99999999999999999999", 0, 65535).ok());
  EXPECT_EQ(parse_integer("x", 0, 9).error().message,
            "invalid value \"x\": expected an integer from 0 to 9");
}

TEST(ValueParsers, NumbersAreBounded) {
  EXPECT_DOUBLE_EQ(*parse_number("0.075", 0, 0.99), 0.075);
  EXPECT_FALSE(parse_number("1.5", 0, 0.99).ok());
  EXPECT_FALSE(parse_number("abc", 0, 0.99).ok());
  EXPECT_FALSE(parse_number("nan", 0, 0.99).ok());
}

TEST(ValueParsers, ChoicesAreExactAndListTheAllowedValues) {
  EXPECT_EQ(*parse_choice("Ignore", {"Respect", "Ignore"}), 1u);
  auto bad = parse_choice("respect", {"Respect", "Ignore"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "invalid value \"respect\": expected one of Respect, Ignore");
}

TEST(FeatureGates, DefaultsMatchKarpenter) {
  feature_gates g;
  EXPECT_EQ(format_feature_gates(g),
            "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,"
            "NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false");
  EXPECT_EQ(feature_gate_names().size(), 6u);
}

TEST(FeatureGates, NamedGatesChangeAndOthersKeepTheirDefault) {
  auto g = parse_feature_gates("NodeRepair=true, SpotToSpotConsolidation=True");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->node_repair);
  EXPECT_TRUE(g->spot_to_spot_consolidation);
  EXPECT_TRUE(g->reserved_capacity);
  EXPECT_FALSE(g->capacity_buffer);
  EXPECT_EQ(*parse_feature_gates(""), feature_gates{});
  auto all = parse_feature_gates(format_feature_gates(feature_gates{}));
  EXPECT_EQ(*all, feature_gates{});
}

TEST(FeatureGates, UnknownGateOrMalformedEntryIsRefused) {
  auto unknown = parse_feature_gates("NodeRepair=true,Drift=true");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown feature gate \"Drift\""), std::string::npos);
  EXPECT_NE(unknown.error().message.find("NodeRepair"), std::string::npos);
  EXPECT_FALSE(parse_feature_gates("NodeRepair").ok());
  EXPECT_FALSE(parse_feature_gates("NodeRepair=maybe").ok());
}

TEST(CommandLine, DefaultsAreKarpentersWithoutFlagsOrEnvironment) {
  auto cl = parse({});
  ASSERT_TRUE(cl.ok());
  const settings& s = cl->values;
  EXPECT_EQ(s.metrics_port, 8080);
  EXPECT_EQ(s.health_probe_port, 8081);
  EXPECT_EQ(s.batch_max_duration, 10s);
  EXPECT_EQ(s.batch_idle_duration, 1s);
  EXPECT_EQ(s.kube_client_qps, 200);
  EXPECT_EQ(s.kube_client_burst, 300);
  EXPECT_EQ(s.leader_election_name, "karpenter-leader-election");
  EXPECT_EQ(s.log_level, log_verbosity::info);
  EXPECT_EQ(s.preference_policy, preference_mode::respect);
  EXPECT_EQ(s.min_values_policy, min_values_mode::strict);
  EXPECT_EQ(s.node_policy, node_policy_mode::simple);
  EXPECT_EQ(s.proxmox_vmid, 20000);
  EXPECT_EQ(s.system_namespace, "kube-system");
  EXPECT_EQ(s.launch_timeout, 5min);
  EXPECT_EQ(s.registration_timeout, 15min);
  EXPECT_EQ(s.proxmox_max_inflight, 8);
  EXPECT_TRUE(s.cluster_name.empty());
  EXPECT_TRUE(cl->arguments.empty());
}

TEST(CommandLine, AcceptsOneDashOrTwoAndBothValueForms) {
  for (auto args : std::vector<std::vector<std::string>>{{"-metrics-port=9000"},
                                                         {"--metrics-port=9000"},
                                                         {"-metrics-port", "9000"},
                                                         {"--metrics-port", "9000"}}) {
    auto cl = parse(args);
    ASSERT_TRUE(cl.ok()) << args[0];
    EXPECT_EQ(cl->values.metrics_port, 9000) << args[0];
  }
}

TEST(CommandLine, BooleanFlagsAloneMeanTrueAndTakeOnlyAttachedValues) {
  auto on = parse({"-disable-leader-election"});
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->values.disable_leader_election);
  auto off = parse({"--ignore-dra-requests=false"});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->values.ignore_dra_requests);
  // As in Go, "-flag false" is the flag and then a positional argument.
  auto positional = parse({"-disable-leader-election", "false"});
  ASSERT_TRUE(positional.ok());
  EXPECT_TRUE(positional->values.disable_leader_election);
  EXPECT_EQ(positional->arguments, std::vector<std::string>{"false"});
}

TEST(CommandLine, GoProviderChartArgumentsAreAccepted) {
  auto cl = parse({"-log-level=debug", "-leader-election-name=proxmox-karpenter-leader-election",
                   "-metrics-port=8080", "-health-probe-port=8081", "-cloud-config",
                   "/etc/proxmox/config.yaml", "-node-policy=static", "-proxmox-vmid=30000"});
  ASSERT_TRUE(cl.ok()) << cl.error().message;
  EXPECT_EQ(cl->values.log_level, log_verbosity::debug);
  EXPECT_EQ(cl->values.leader_election_name, "proxmox-karpenter-leader-election");
  EXPECT_EQ(cl->values.cloud_config, "/etc/proxmox/config.yaml");
  EXPECT_EQ(cl->values.node_policy, node_policy_mode::static_pinning);
  EXPECT_EQ(cl->values.proxmox_vmid, 30000);
}

TEST(CommandLine, EnvironmentSetsValuesAndFlagsWin) {
  auto cl = parse({"--batch-idle-duration=2s"}, {{"BATCH_IDLE_DURATION", "5s"},
                                                 {"BATCH_MAX_DURATION", "1m30s"},
                                                 {"FEATURE_GATES", "NodeRepair=true"},
                                                 {"PREFERENCE_POLICY", "Ignore"},
                                                 {"MIN_VALUES_POLICY", "BestEffort"},
                                                 {"VM_MEMORY_OVERHEAD_PERCENT", "0.1"},
                                                 {"DISABLE_LEADER_ELECTION", "true"},
                                                 {"KUBECONFIG", "/tmp/kc"}});
  ASSERT_TRUE(cl.ok()) << cl.error().message;
  EXPECT_EQ(cl->values.batch_idle_duration, 2s);
  EXPECT_EQ(cl->values.batch_max_duration, 90s);
  EXPECT_TRUE(cl->values.gates.node_repair);
  EXPECT_EQ(cl->values.preference_policy, preference_mode::ignore);
  EXPECT_EQ(cl->values.min_values_policy, min_values_mode::best_effort);
  EXPECT_DOUBLE_EQ(cl->values.vm_memory_overhead_percent, 0.1);
  EXPECT_TRUE(cl->values.disable_leader_election);
  EXPECT_EQ(cl->values.kubeconfig, "/tmp/kc");
}

TEST(CommandLine, AFlagOverridesAnInvalidEnvironmentValue) {
  auto cl = parse({"--metrics-port=9100"}, {{"METRICS_PORT", "not-a-port"}});
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->values.metrics_port, 9100);
}

TEST(CommandLine, TheLastOfARepeatedFlagWins) {
  auto cl = parse({"-log-level=debug", "--log-level", "error"});
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->values.log_level, log_verbosity::error);
}

TEST(CommandLine, ErrorsNameTheFlagOrVariableTheValueAndWhatIsAllowed) {
  struct bad_case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string expected;
  };
  std::vector<bad_case> cases = {
      {{"--no-such-flag"}, {}, "flag provided but not defined: --no-such-flag"},
      {{"-metrics-port=http"},
       {},
       "flag -metrics-port: invalid value \"http\": expected an integer from 0 to 65535"},
      {{"--batch-max-duration=10"},
       {},
       "flag --batch-max-duration: invalid duration \"10\": missing unit"},
      {{},
       {{"BATCH_IDLE_DURATION", "1x"}},
       "environment variable BATCH_IDLE_DURATION: invalid duration \"1x\": unknown unit \"x\""},
      {{},
       {{"FEATURE_GATES", "Bogus=true"}},
       "environment variable FEATURE_GATES: unknown feature gate \"Bogus\""},
      {{"--preference-policy=Sometimes"}, {}, "expected one of Respect, Ignore"},
      {{"--min-values-policy=Loose"}, {}, "expected one of Strict, BestEffort"},
      {{"--node-policy=dynamic"}, {}, "expected one of simple, static"},
      {{"--log-level=verbose"}, {}, "expected one of debug, info, warn, error"},
      {{"--disable-leader-election=perhaps"},
       {},
       "flag --disable-leader-election: invalid value \"perhaps\": expected true or false"},
      {{"--kube-client-qps=0"}, {}, "flag --kube-client-qps: value \"0\" is out of range"},
      {{"--health-probe-port=70000"}, {}, "expected an integer from 0 to 65535"},
      {{"--launch-timeout=-5m"}, {}, "expected more than zero"},
      {{"--registration-timeout=0s"}, {}, "expected more than zero"},
      {{"--proxmox-max-inflight=0"}, {}, "flag --proxmox-max-inflight"},
      {{"--vm-memory-overhead-percent=2"}, {}, "expected a number from 0 to 0.99"},
      {{"--metrics-port"}, {}, "flag needs an argument: --metrics-port"},
      {{"---metrics-port=1"}, {}, "bad flag syntax: ---metrics-port=1"},
  };
  for (const auto& c : cases) {
    auto cl = parse(c.args, c.env);
    ASSERT_FALSE(cl.ok()) << c.expected;
    EXPECT_NE(cl.error().message.find(c.expected), std::string::npos)
        << "got: " << cl.error().message << "\nwanted: " << c.expected;
    EXPECT_EQ(cl.error().message.find('\n'), std::string::npos) << "one line only";
  }
}

TEST(CommandLine, MetricsAndHealthProbesNeedDifferentPortsUnlessBothArePicked) {
  auto same = parse({"--metrics-port=9000"}, {{"HEALTH_PROBE_PORT", "9000"}});
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().message,
            "METRICS_PORT and HEALTH_PROBE_PORT are both 9000: they must differ");
  EXPECT_TRUE(parse({"--metrics-port=0", "--health-probe-port=0"}).ok());
}

TEST(CommandLine, ZeroDrainTimeoutMeansNone) {
  auto cl = parse({"--drain-timeout=0s"});
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(cl->values.drain_timeout, 0s);
}

TEST(CommandLine, ParsingStopsAtTheFirstArgumentAndAtDoubleDash) {
  auto lab = parse({"--log-level=debug", "lab", "--scenario", "x.yaml"});
  ASSERT_TRUE(lab.ok());
  EXPECT_EQ(lab->arguments, (std::vector<std::string>{"lab", "--scenario", "x.yaml"}));
  auto dashdash = parse({"--", "-metrics-port=1"});
  ASSERT_TRUE(dashdash.ok());
  EXPECT_EQ(dashdash->values.metrics_port, 8080);
  EXPECT_EQ(dashdash->arguments, std::vector<std::string>{"-metrics-port=1"});
}

TEST(CommandLine, HelpAndVersionAreRecognisedWithEitherDashCount) {
  for (auto flag : {"-h", "--h", "-help", "--help"}) EXPECT_TRUE(parse({flag})->help) << flag;
  for (auto flag : {"-version", "--version"}) EXPECT_TRUE(parse({flag})->version) << flag;
}

TEST(SettingTable, EveryEntryHasAUniqueFlagAndVariableAndItsDefaultReadsBack) {
  std::set<std::string> flags, envs;
  for (const auto& spec : setting_table()) {
    EXPECT_TRUE(flags.insert(spec.flag).second) << spec.flag;
    EXPECT_TRUE(envs.insert(spec.env).second) << spec.env;
    EXPECT_FALSE(spec.help.empty()) << spec.flag;
    settings s;
    std::string shown = spec.show(s);
    // Applying the shown default gives back the same shown value.
    auto applied = spec.apply(s, shown);
    if (shown.empty()) continue;
    ASSERT_TRUE(applied.ok()) << spec.flag << ": " << applied.error().message;
    EXPECT_EQ(spec.show(s), shown) << spec.flag;
  }
  for (auto required : {"BATCH_MAX_DURATION",
                        "BATCH_IDLE_DURATION",
                        "METRICS_PORT",
                        "HEALTH_PROBE_PORT",
                        "LOG_LEVEL",
                        "FEATURE_GATES",
                        "PREFERENCE_POLICY",
                        "MIN_VALUES_POLICY",
                        "KUBE_CLIENT_QPS",
                        "KUBE_CLIENT_BURST",
                        "DISABLE_LEADER_ELECTION",
                        "LEADER_ELECTION_NAME",
                        "LEADER_ELECTION_NAMESPACE",
                        "CLOUD_CONFIG",
                        "INSTANCE_TYPES_FILE",
                        "NODE_SETTING_FILE",
                        "NODE_POLICY",
                        "PROXMOX_VMID",
                        "SYSTEM_NAMESPACE",
                        "VM_MEMORY_OVERHEAD_PERCENT",
                        "CLUSTER_NAME",
                        "CLUSTER_ENDPOINT",
                        "KUBECONFIG",
                        "LAUNCH_TIMEOUT",
                        "REGISTRATION_TIMEOUT",
                        "PROXMOX_CLONE_TIMEOUT",
                        "PROXMOX_MAX_INFLIGHT"}) {
    EXPECT_TRUE(envs.count(required)) << required;
  }
}

TEST(TemplateSecretNamespaces, DefaultToTheSystemNamespaceAndTheControllersOwn) {
  auto cl = parse({});
  ASSERT_TRUE(cl.ok());
  EXPECT_TRUE(cl->values.template_secret_namespaces.empty());
  EXPECT_EQ(template_secret_namespaces(cl->values, "karpenter"),
            (std::vector<std::string>{"kube-system", "karpenter"}));
  EXPECT_EQ(template_secret_namespaces(cl->values, "kube-system"),
            (std::vector<std::string>{"kube-system"}));
  EXPECT_EQ(template_secret_namespaces(cl->values, ""), (std::vector<std::string>{"kube-system"}));
  auto moved = parse({"--system-namespace=infra"});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(template_secret_namespaces(moved->values, "karpenter"),
            (std::vector<std::string>{"infra", "karpenter"}));
}

TEST(TemplateSecretNamespaces, TheFlagOrEnvironmentReplacesTheDefault) {
  auto env = parse({}, {{"TEMPLATE_SECRET_NAMESPACES", "kube-system, templates,templates"}});
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_EQ(env->values.template_secret_namespaces,
            (std::vector<std::string>{"kube-system", "templates"}));
  EXPECT_EQ(template_secret_namespaces(env->values, "karpenter"),
            (std::vector<std::string>{"kube-system", "templates"}));
  auto flag = parse({"-template-secret-namespaces=a,b"});
  ASSERT_TRUE(flag.ok()) << flag.error().message;
  EXPECT_EQ(flag->values.template_secret_namespaces, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(format_namespace_list(flag->values.template_secret_namespaces), "a,b");
}

TEST(TemplateSecretNamespaces, RefusesWhatIsNotANamespaceNamingTheSetting) {
  for (const char* bad : {"Kube-System", "a,,b", "-a", "a/b", "*"}) {
    auto r = parse({}, {{"TEMPLATE_SECRET_NAMESPACES", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("TEMPLATE_SECRET_NAMESPACES"), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace kp::config
