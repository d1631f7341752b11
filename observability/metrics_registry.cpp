#include "observability/metrics_registry.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

namespace kp::obs {

metrics_registry::metrics_registry()
    : registry_(std::make_shared<prometheus::Registry>()),
      per_object_(std::make_shared<prometheus::Registry>()) {}

void metrics_registry::add_per_object(std::shared_ptr<const object_gauges> family) {
  per_object_extra_.push_back(std::move(family));
}

std::string metrics_registry::serialize() const {
  return serialize({});
}

metrics_registry::selection metrics_registry::select(const std::vector<std::string>& names) const {
  auto families = registry_->Collect();
  auto wanted = [&](const prometheus::MetricFamily& f) {
    return std::find(names.begin(), names.end(), f.name) != names.end();
  };
  if (!names.empty()) {
    std::erase_if(families, [&](const prometheus::MetricFamily& f) { return !wanted(f); });
  }
  selection out;
  if (names.empty() || families.size() < names.size()) {
    for (auto& f : per_object_->Collect()) {
      if (names.empty() || wanted(f)) families.push_back(std::move(f));
    }
    for (const auto& extra : per_object_extra_) {
      const bool asked =
          names.empty() || std::find(names.begin(), names.end(), extra->name()) != names.end();
      if (asked) out.streamed.push_back(extra);
    }
  }
  std::ostringstream text;
  prometheus::TextSerializer{}.Serialize(text, families);
  families.clear();
  out.text = std::move(text).str();  // the stream's buffer itself, not a copy of it
  return out;
}

std::string metrics_registry::serialize(const std::vector<std::string>& names) const {
  auto chosen = select(names);
  // Written a batch at a time: the text is all a scrape holds of 100,000 pod series.
  for (const auto& family : chosen.streamed) family->serialize(chosen.text);
  return std::move(chosen.text);
}

std::function<std::string()> metrics_registry::text_pieces(
    const std::vector<std::string>& names) const {
  struct pieces {
    std::string first;
    bool first_given = false;
    std::vector<std::function<std::string()>> families;
    std::size_t at = 0;
  };
  auto p = std::make_shared<pieces>();
  auto chosen = select(names);
  p->first = std::move(chosen.text);
  // Each family's series are those current now, whenever the client takes them.
  for (const auto& family : chosen.streamed) p->families.push_back(family->text_pieces());
  return [p]() -> std::string {
    if (!p->first_given) {
      p->first_given = true;
      if (!p->first.empty()) return std::move(p->first);
    }
    for (; p->at < p->families.size(); ++p->at) {
      auto piece = p->families[p->at]();
      if (!piece.empty()) return piece;
    }
    return {};
  };
}

void register_build_info(prometheus::Registry& registry, const std::string& version,
                         const std::string& commit) {
#if defined(__x86_64__)
  const std::string arch = "amd64";
#elif defined(__aarch64__)
  const std::string arch = "arm64";
#else
  const std::string arch = "unknown";
#endif
  std::string compiler = "unknown";
#if defined(__clang__)
  compiler = "clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
  compiler = "gcc-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#endif
  prometheus::BuildGauge()
      .Name("karpenter_build_info")
      .Help("A metric with a constant '1' value labeled by version from which karpenter was built.")
      .Register(registry)
      .Add({{"version", version}, {"goversion", compiler}, {"goarch", arch}, {"commit", commit}})
      .Set(1);
}

}  // namespace kp::obs
