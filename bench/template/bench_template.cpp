// Renders hostile Go templates over cloud-init data with the engine's default limits (or a
// function budget given in MiB) and prints one `key=value` line per case: the outcome, wall and
// CPU seconds, and the peak RSS of a child process that rendered only that case.
//
//   bench-template [--function-budget-mib N]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cloudinit/template_data.hpp"
#include "core/gotemplate/template_set.hpp"

namespace {

struct hostile_case {
  const char* name;
  const char* text;
};

// The fuzzer's slow input, the loop shapes of issue 15, and a read-only loop over a large string.
constexpr hostile_case cases[] = {
    {"printf_width_over_map", "{{ printf \"m%6086200d\" . | quote }}"},
    {"printf_width_in_loop", "{{ range 1000000 }}{{ printf \"%9999999d\" 1 | len }}{{ end }}"},
    {"printf_precision_in_loop", "{{ range 100000 }}{{ printf \"%.9999999g\" 1.5 }}{{ end }}"},
    {"indent_times_lines",
     "{{ $s := printf \"%600000s\" \"\" | replace \" \" \"\\n\" }}{{ indent 2000000 $s | len }}"},
    {"eq_large_string_in_loop",
     "{{ $s := printf \"%9999999d\" 1 }}{{ range 1000000 }}{{ if eq $s $s }}{{ end }}{{ end }}"},
    {"read_large_variable_in_loop",
     "{{ $s := printf \"%9999999d\" 1 }}{{ range 1000000 }}{{ if $s }}{{ end }}{{ end }}"},
};

kp::gotemplate::value cloud_init_data() {
  return kp::cloudinit::user_data_values({.hostname = "bench-node",
                                          .instance_id = "4242",
                                          .instance_type = "c1.4VCPU-8GB",
                                          .provider_id = "proxmox://bench/4242",
                                          .region = "bench",
                                          .zone = "pve-bench",
                                          .tags = {"bench"},
                                          .cpus = 4,
                                          .memory_bytes = std::int64_t{8} << 30,
                                          .node_labels = {{"bench", "yes"}, {"tier", "hostile"}},
                                          .values = {{"a", "1"}, {"b", "2"}}});
}

double cpu_seconds(const rusage& u) {
  auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

// Renders one case in this (child) process and prints its outcome; the parent ends the line with
// what it measured of the child.
void render_case(const hostile_case& c, std::size_t function_budget) {
  auto data = cloud_init_data();
  auto t = kp::gotemplate::template_set::parse("bench", c.text);
  if (!t) {
    std::printf("result=parse_error");
    return;
  }
  kp::gotemplate::execution_limits limits;
  if (function_budget > 0) limits.max_function_bytes = function_budget;
  t->set_limits(limits);
  auto start = std::chrono::steady_clock::now();
  auto out = t->execute(data);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string outcome = out ? "ok output_bytes=" + std::to_string(out->size()) : "error";
  std::printf("result=%s render_seconds=%.3f", outcome.c_str(), seconds);
  if (!out) {
    // The reason after the last "<...>: ", enough to tell which limit stopped it.
    const std::string& m = out.error().message;
    auto at = m.find(">: ");
    std::printf(" reason=\"%s\"", at == std::string::npos ? m.c_str() : m.c_str() + at + 3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t function_budget = 0;  // 0: the default
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--function-budget-mib") == 0 && i + 1 < argc) {
      function_budget = std::strtoull(argv[++i], nullptr, 10) << 20;
    } else {
      std::fprintf(stderr, "usage: bench-template [--function-budget-mib N]\n");
      return 2;
    }
  }
  for (const auto& c : cases) {
    std::printf("case=%s ", c.name);
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      render_case(c, function_budget);
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    rusage usage{};
    if (child < 0 || wait4(child, &status, 0, &usage) != child) return 1;
    std::printf(" cpu_seconds=%.3f peak_rss_mib=%.1f exit=%d\n", cpu_seconds(usage),
                static_cast<double>(usage.ru_maxrss) / 1024.0,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return 0;
}
