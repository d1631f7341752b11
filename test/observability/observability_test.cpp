// Logging formats, secret scrubbing, health/readiness state and the endpoint handlers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <prometheus/counter.h>
#include <prometheus/text_serializer.h>
#include <boost/json.hpp>

#include "observability/endpoints.hpp"
#include "observability/health_state.hpp"
#include "observability/logging.hpp"
#include "observability/metrics_registry.hpp"
#include "observability/redaction.hpp"

namespace kp::obs {
namespace {

TEST(LogFormat, AJsonLineIsOneObjectWithTimeLevelLoggerMessageAndFields) {
  std::string line = format_json_line("2026-01-01T00:00:00.000Z", log_level::warn, "supervisor",
                                      "child \"x\" stopped\n", {{"actor", "probe"}, {"n", "1"}});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto value = boost::json::parse(line);
  const auto& o = value.as_object();
  EXPECT_EQ(o.at("time").as_string(), "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(o.at("level").as_string(), "warn");
  EXPECT_EQ(o.at("logger").as_string(), "supervisor");
  EXPECT_EQ(o.at("message").as_string(), "child \"x\" stopped\n");
  EXPECT_EQ(o.at("fields").as_object().at("actor").as_string(), "probe");
}

TEST(LogFormat, ControlCharactersAreEscapedInJson) {
  std::string line = format_json_line("t", log_level::info, "l", std::string("a\x01z\tb"), {});
  EXPECT_NE(line.find("\\u0001"), std::string::npos);
  EXPECT_EQ(boost::json::parse(line).as_object().at("message").as_string(), "a\x01z\tb");
}

TEST(LogFormat, TextLinesAreReadable) {
  std::string line = format_text_line("2026-01-01T00:00:00.000Z", log_level::info, "main",
                                      "serving metrics", {{"port", "8080"}, {"addr", "a b"}});
  EXPECT_EQ(line, "2026-01-01T00:00:00.000Z INFO  main: serving metrics port=8080 addr=\"a b\"");
}

TEST(Logging, LinesGoToTheConfiguredFileAsJsonAtTheConfiguredLevelWithSecretsScrubbed) {
  auto path =
      std::filesystem::temp_directory_path() / ("kp-log-" + std::to_string(::getpid()) + ".jsonl");
  log_options options;
  options.level = log_level::info;
  options.output_paths = {path.string()};
  ASSERT_TRUE(setup_logging(options).ok());
  register_secret("s3cr3t-token-value");
  logger log("test");
  log.debug("hidden at info level");
  log.info("connected", {{"url", "https://x?token=s3cr3t-token-value"}});
  log.error("plain {} braces stay");
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::filesystem::remove(path);
  ASSERT_TRUE(setup_logging(log_options{}).ok());  // back to stdout for other tests
  ASSERT_EQ(lines.size(), 2u);
  auto first = boost::json::parse(lines[0]).as_object();
  EXPECT_EQ(first.at("logger").as_string(), "test");
  EXPECT_EQ(first.at("fields").as_object().at("url").as_string(), "https://x?token=<redacted>");
  EXPECT_EQ(boost::json::parse(lines[1]).as_object().at("message").as_string(),
            "plain {} braces stay");
  EXPECT_EQ(lines[0].find("s3cr3t"), std::string::npos);
}

TEST(Logging, TextLinesWhenJsonIsTurnedOff) {
  auto path = std::filesystem::temp_directory_path() /
              ("kp-log-text-" + std::to_string(::getpid()) + ".log");
  log_options options;
  options.level = log_level::debug;
  options.output_paths = {path.string()};
  options.json = false;
  ASSERT_TRUE(setup_logging(options).ok());
  logger("text").debug("shown at debug", {{"k", "v"}});
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::filesystem::remove(path);
  ASSERT_TRUE(setup_logging(log_options{}).ok());
  EXPECT_NE(line.find(" DEBUG text: shown at debug k=v"), std::string::npos) << line;
  EXPECT_EQ(line.front(), '2') << "starts with the time";
}

TEST(Logging, AnUnopenableOutputPathIsNamed) {
  log_options options;
  options.output_paths = {"/nonexistent-dir/x.log"};
  auto s = setup_logging(options);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent-dir/x.log"), std::string::npos);
}

TEST(Redaction, ReplacesEveryOccurrenceOfEachSecret) {
  EXPECT_EQ(redact("a=hunter2 b=hunter2 c=xyz1", {"hunter2", "xyz1"}),
            "a=<redacted> b=<redacted> c=<redacted>");
  EXPECT_EQ(redact("abc", {"ab"}), "abc") << "too short to be a secret";
  EXPECT_EQ(redact_authorization("PVEAPIToken=a@pve!t=1234-5678"), "PVEAPIToken=<redacted>");
  EXPECT_EQ(redact_authorization("Bearer abc.def"), "Bearer <redacted>");
}

TEST(HealthState, ReadinessNamesEveryMissingComponentUntilAllAreReady) {
  health_state h;
  EXPECT_FALSE(h.readiness().ok);
  h.set_condition("kubernetes api", false, "not connected");
  h.set_condition("proxmox region r1", false, "not connected");
  auto report = h.readiness();
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.body, "kubernetes api: not connected; proxmox region r1: not connected");
  h.set_condition("kubernetes api", true, "");
  EXPECT_EQ(h.readiness().body, "proxmox region r1: not connected");
  h.set_condition("proxmox region r1", true, "");
  EXPECT_TRUE(h.readiness().ok);
  EXPECT_TRUE(h.liveness().ok);
}

TEST(HealthState, ConditionsAreExportedAsGauges) {
  metrics_registry m;
  health_state h(&m.registry());
  h.set_condition("kubernetes api", false, "x");
  EXPECT_NE(m.serialize().find("karpenter_proxmox_readiness{component=\"kubernetes api\"} 0"),
            std::string::npos)
      << m.serialize();
}

TEST(Metrics, SerializesTheRegistryInTextFormatWithBuildInfo) {
  metrics_registry m;
  register_build_info(m.registry(), "1.2.3");
  auto& family = prometheus::BuildCounter().Name("kp_test_total").Help("h").Register(m.registry());
  family.Add({}).Increment(3);
  std::string text = m.serialize();
  EXPECT_NE(text.find("# TYPE kp_test_total counter"), std::string::npos);
  EXPECT_NE(text.find("kp_test_total 3"), std::string::npos);
  EXPECT_NE(text.find("karpenter_build_info{"), std::string::npos);
  EXPECT_NE(text.find("version=\"1.2.3\""), std::string::npos);
}

struct recorded_exchange : transport::http_exchange {
  transport::http_response response;
  int pieces = 0;  // of a pulled reply
  void respond(transport::http_response r) override { response = std::move(r); }
  void respond_pulled(int status, transport::header_list headers, body_pieces next) override {
    response.status = status;
    response.headers = std::move(headers);
    for (auto piece = next(); !piece.empty(); piece = next()) {
      response.body += piece;
      ++pieces;
    }
  }
  void start_stream(int, transport::header_list) override {}
  void write(std::string) override {}
  void finish() override {}
  bool open() const override { return true; }
  void on_close(std::function<void()>) override {}
};

transport::http_response call(const transport::request_handler& handler, std::string target,
                              std::string method = "GET") {
  auto exchange = std::make_shared<recorded_exchange>();
  transport::http_request request;
  request.method = std::move(method);
  request.target = std::move(target);
  handler(request, exchange);
  return exchange->response;
}

TEST(Endpoints, HealthzIs200AndReadyzIs503UntilReady) {
  auto h = std::make_shared<health_state>();
  auto handler = health_endpoint(h);
  h->set_condition("proxmox region r1", false, "not connected");
  EXPECT_EQ(call(handler, "/healthz").status, 200);
  auto ready = call(handler, "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body, "proxmox region r1: not connected\n");
  h->set_condition("proxmox region r1", true, "");
  EXPECT_EQ(call(handler, "/readyz?verbose").status, 200);
  EXPECT_EQ(call(handler, "/other").status, 404);
  EXPECT_EQ(call(handler, "/readyz", "POST").status, 405);
}

TEST(Endpoints, MetricsServesTheTextFormat) {
  auto m = std::make_shared<metrics_registry>();
  register_build_info(m->registry(), "9.9.9");
  auto handler = metrics_endpoint(m);
  auto r = call(handler, "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("karpenter_build_info"), std::string::npos);
  EXPECT_EQ(r.header("Content-Type"), metrics_content_type);
  EXPECT_EQ(call(handler, "/").status, 404);
}

TEST(Endpoints, MetricsNamedInTheQueryAreTheOnlyOnesServedAndPerObjectFamiliesOnlyWhenNamed) {
  auto m = std::make_shared<metrics_registry>();
  register_build_info(m->registry(), "9.9.9");
  prometheus::BuildCounter().Name("kp_a_total").Help("h").Register(m->registry()).Add({});
  prometheus::BuildCounter().Name("kp_b_total").Help("h").Register(m->registry()).Add({});
  prometheus::BuildCounter()
      .Name("kp_per_pod")
      .Help("h")
      .Register(m->per_object_registry())
      .Add({{"name", "p1"}});
  auto handler = metrics_endpoint(m);
  auto one = call(handler, "/metrics?name=kp_a_total");
  EXPECT_NE(one.body.find("kp_a_total 0"), std::string::npos) << one.body;
  EXPECT_EQ(one.body.find("kp_b_total"), std::string::npos) << one.body;
  EXPECT_EQ(one.body.find("kp_per_pod"), std::string::npos) << one.body;
  auto two = call(handler, "/metrics?name[]=kp_b_total&name%5B%5D=kp_per_pod");
  EXPECT_NE(two.body.find("kp_b_total 0"), std::string::npos) << two.body;
  EXPECT_NE(two.body.find("kp_per_pod{name=\"p1\"} 0"), std::string::npos) << two.body;
  EXPECT_EQ(two.body.find("karpenter_build_info"), std::string::npos) << two.body;
  auto all = call(handler, "/metrics");
  for (const char* family : {"karpenter_build_info", "kp_a_total", "kp_b_total", "kp_per_pod"})
    EXPECT_NE(all.body.find(family), std::string::npos) << family;
}

// A source that counts how often it was collected.
struct counted_pods : object_gauges::source {
  mutable int collected = 0;
  void collect(std::size_t /*batch_size*/, const object_gauges::batch_sink& flush) const override {
    ++collected;
    prometheus::ClientMetric m;
    m.label = {{"name", "p1"}};
    m.gauge.value = 1;
    std::vector<prometheus::ClientMetric> out{m};
    flush(out);
  }
};

// Series p0..p<count-1>, handed out in batches.
struct numbered_pods : object_gauges::source {
  explicit numbered_pods(int n) : count(n) {}
  int count = 0;
  mutable std::vector<std::size_t> batches;
  std::size_t size() const override { return static_cast<std::size_t>(count); }
  void collect(std::size_t batch_size, const object_gauges::batch_sink& flush) const override {
    std::vector<prometheus::ClientMetric> out;
    for (int i = 0; i < count; ++i) {
      prometheus::ClientMetric m;
      m.label = {{"name", "p" + std::to_string(i)}, {"phase", "Running"}};
      m.gauge.value = 1;
      out.push_back(std::move(m));
      if (out.size() == batch_size) {
        batches.push_back(out.size());
        flush(out);
        out.clear();
      }
    }
    if (!out.empty()) {
      batches.push_back(out.size());
      flush(out);
    }
  }
};

std::string serialized(const object_gauges& family) {
  std::string out;
  family.serialize(out);
  return out;
}

// The family's text as prometheus-cpp writes it with every series collected at once.
std::string whole_text(const object_gauges& family) {
  std::ostringstream whole;
  prometheus::TextSerializer{}.Serialize(whole, family.Collect());
  return whole.str();
}

TEST(Metrics, AnObjectFamilyScrapedInBatchesReadsAsOneFamilyWithEverySeries) {
  object_gauges batched("kp_pods_state", "one series per pod", 3);
  auto source = std::make_shared<numbered_pods>(7);
  batched.set(source);
  const auto text = serialized(batched);
  EXPECT_EQ(source->batches, (std::vector<std::size_t>{3, 3, 1}));
  EXPECT_EQ(text, whole_text(batched));
  EXPECT_EQ(text.find("# TYPE kp_pods_state gauge"), text.rfind("# TYPE kp_pods_state gauge"));
  for (int i = 0; i < 7; ++i)
    EXPECT_NE(text.find("kp_pods_state{name=\"p" + std::to_string(i) + "\",phase=\"Running\"} 1"),
              std::string::npos)
        << i << "\n"
        << text;
  object_gauges empty("kp_pods_state", "one series per pod", 3);
  EXPECT_EQ(serialized(empty),
            "# HELP kp_pods_state one series per pod\n# TYPE kp_pods_state gauge\n");
}

TEST(Metrics, AnObjectFamilysTextIsSizedForEverySeriesOnceItsFirstBatchIsWritten) {
  object_gauges batched("kp_pods_state", "one series per pod", 100);
  batched.set(std::make_shared<numbered_pods>(1000));
  const auto text = serialized(batched);
  EXPECT_EQ(text, whole_text(batched));
  // Grown by doubling, the buffer would end anywhere up to twice the text.
  EXPECT_LE(text.capacity(), text.size() * 12 / 10) << text.size();
}

// /metrics is sent as the scraper takes it: the registries' families, then the per-object
// family's HELP and TYPE lines and its series, each a piece of its own; together they are the
// text serialize() makes.
TEST(Endpoints, MetricsAreSentInPiecesThatReadAsTheWholeText) {
  auto m = std::make_shared<metrics_registry>();
  prometheus::BuildCounter().Name("kp_a_total").Help("h").Register(m->registry()).Add({});
  auto pods = std::make_shared<object_gauges>("kp_pods_state", "help", 3);
  pods->set(std::make_shared<numbered_pods>(7));
  m->add_per_object(pods);
  auto exchange = std::make_shared<recorded_exchange>();
  transport::http_request request;
  request.method = "GET";
  request.target = "/metrics";
  metrics_endpoint(m)(request, exchange);
  EXPECT_EQ(exchange->response.status, 200);
  EXPECT_EQ(exchange->response.header("content-type"), metrics_content_type);
  EXPECT_EQ(exchange->pieces, 3);
  EXPECT_EQ(exchange->response.body, m->serialize());
  EXPECT_NE(exchange->response.body.find("kp_pods_state{name=\"p6\",phase=\"Running\"} 1"),
            std::string::npos);
}

TEST(Endpoints, AnObjectFamilyIsServedWithThePerObjectFamiliesAndMadeOnlyWhenAskedFor) {
  auto m = std::make_shared<metrics_registry>();
  prometheus::BuildCounter().Name("kp_a_total").Help("h").Register(m->registry()).Add({});
  auto pods = std::make_shared<object_gauges>("kp_pods_state", "help");
  m->add_per_object(pods);
  auto handler = metrics_endpoint(m);
  EXPECT_EQ(call(handler, "/metrics").body.find("kp_pods_state{"), std::string::npos)
      << "no series without a source";
  auto source = std::make_shared<counted_pods>();
  pods->set(source);
  auto one = call(handler, "/metrics?name=kp_a_total&name=kp_other");
  EXPECT_EQ(one.body.find("kp_pods_state"), std::string::npos) << one.body;
  EXPECT_EQ(source->collected, 0) << "not made for a scrape that did not name it";
  auto named = call(handler, "/metrics?name=kp_pods_state");
  EXPECT_NE(named.body.find("kp_pods_state{name=\"p1\"} 1"), std::string::npos) << named.body;
  EXPECT_EQ(named.body.find("kp_a_total"), std::string::npos) << named.body;
  EXPECT_NE(call(handler, "/metrics").body.find("kp_pods_state{name=\"p1\"} 1"), std::string::npos);
  EXPECT_EQ(source->collected, 2);
  pods->set(nullptr);
  EXPECT_EQ(call(handler, "/metrics").body.find("kp_pods_state{"), std::string::npos);
}

}  // namespace
}  // namespace kp::obs
