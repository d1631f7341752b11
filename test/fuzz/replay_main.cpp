// The main() of every fuzz target in the default (gcc) build: runs the target's committed
// corpus, then deterministic mutations of it up to a bounded number of executions, so ctest
// exercises each target in a second or two. With clang and KP_FUZZ=ON libFuzzer's own main
// replaces this file. Flags follow libFuzzer's spelling: -runs=N, -seed=N, -max_len=N; every
// other argument is a corpus file or directory. Should an input crash the process, it is
// written first to ./fuzz-crash-<target> so it can be replayed and added to the corpus.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse_number.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// The input being run, for the crash handler (which may only use async-signal-safe calls).
const std::uint8_t* running = nullptr;
std::size_t running_size = 0;
char crash_path[512] = "fuzz-crash";

void on_crash(int sig) {
  int fd = ::open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    std::size_t done = 0;
    while (done < running_size) {
      auto n = ::write(fd, running + done, running_size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  static constexpr char note[] = "fuzz replay: an input crashed; it is in ./fuzz-crash-*\n";
  [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, note, sizeof note - 1);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_crash_handler(const std::string& target) {
  std::string name = target.starts_with("fuzz-") ? target.substr(5) : target;
  std::snprintf(crash_path, sizeof crash_path, "fuzz-crash-%s", name.c_str());
  // Its own stack, so a stack overflow is still reported.
  static std::array<char, 1 << 16> alternate;
  stack_t ss{};
  ss.ss_sp = alternate.data();
  ss.ss_size = alternate.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) ::sigaction(sig, &sa, nullptr);
}

std::vector<std::uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void run(const std::vector<std::uint8_t>& input) {
  running = input.data();
  running_size = input.size();
  LLVMFuzzerTestOneInput(input.data(), input.size());
}

// Byte strings that parsers of this project treat specially; mutations splice them in.
const std::vector<std::string>& tokens() {
  static const std::vector<std::string> t = {"{{",
                                             "}}",
                                             "{{-",
                                             "(",
                                             ")",
                                             "|",
                                             "\"",
                                             "'",
                                             "\\",
                                             ":",
                                             ",",
                                             "=",
                                             ";",
                                             "/",
                                             "-",
                                             "+",
                                             ".",
                                             "e",
                                             "E",
                                             "Ki",
                                             "Pi",
                                             "Ei",
                                             "m",
                                             "0",
                                             "9",
                                             "99999999999999999999",
                                             "-9223372036854775808",
                                             "\n",
                                             "\r\n",
                                             "\r\n\r\n",
                                             "\t",
                                             " ",
                                             "\x00",
                                             "\xff",
                                             "[",
                                             "]",
                                             "{",
                                             "}",
                                             "null",
                                             "true",
                                             "1e308",
                                             "%",
                                             "$",
                                             "*",
                                             "?",
                                             "@",
                                             "!",
                                             "&",
                                             "*/",
                                             "0x",
                                             "net",
                                             "cpus=",
                                             "hostnodes=",
                                             "Content-Length: ",
                                             "Transfer-Encoding: chunked\r\n",
                                             "proxmox://",
                                             "UPID:"};
  return t;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> x,
                                 const std::vector<std::vector<std::uint8_t>>& corpus,
                                 std::mt19937_64& rng, std::size_t max_len) {
  auto pick = [&](std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  const int steps = 1 + static_cast<int>(pick(4));
  for (int s = 0; s < steps; ++s) {
    switch (pick(7)) {
      case 0:  // flip a bit
        if (!x.empty()) x[pick(x.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
        break;
      case 1:  // a random byte in
        x.insert(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size() + 1)),
                 static_cast<std::uint8_t>(pick(256)));
        break;
      case 2: {  // a range out
        if (x.empty()) break;
        auto at = pick(x.size());
        auto n = 1 + pick(std::min<std::size_t>(x.size() - at, 16));
        x.erase(x.begin() + static_cast<std::ptrdiff_t>(at),
                x.begin() + static_cast<std::ptrdiff_t>(at + n));
        break;
      }
      case 3: {  // a range repeated (deep nesting, long runs)
        if (x.empty()) break;
        auto at = pick(x.size());
        auto n = 1 + pick(std::min<std::size_t>(x.size() - at, 8));
        std::vector<std::uint8_t> piece(x.begin() + static_cast<std::ptrdiff_t>(at),
                                        x.begin() + static_cast<std::ptrdiff_t>(at + n));
        auto times = 1 + pick(64);
        for (std::size_t k = 0; k < times; ++k)
          x.insert(x.begin() + static_cast<std::ptrdiff_t>(at), piece.begin(), piece.end());
        break;
      }
      case 4: {  // a token in
        const auto& t = tokens()[pick(tokens().size())];
        x.insert(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size() + 1)), t.begin(), t.end());
        break;
      }
      case 5: {  // splice with another input
        if (corpus.empty()) break;
        const auto& other = corpus[pick(corpus.size())];
        auto cut = pick(x.size() + 1);
        auto from = pick(other.size() + 1);
        x.resize(cut);
        x.insert(x.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
      case 6:  // truncate
        x.resize(pick(x.size() + 1));
        break;
    }
  }
  if (x.size() > max_len) x.resize(max_len);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t runs = 0;
  std::uint64_t seed = 1;
  std::size_t max_len = 64 * 1024;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto flag = [&](std::string_view name) -> std::optional<std::uint64_t> {
      if (!arg.starts_with(name)) return std::nullopt;
      auto v = kp::parse_integer<std::uint64_t>(arg.substr(name.size()));
      if (!v) {
        std::fprintf(stderr, "fuzz replay: bad value in %s\n", argv[i]);
        std::exit(2);
      }
      return v;
    };
    if (auto v = flag("-runs=")) {
      runs = *v;
    } else if (auto v = flag("-seed=")) {
      seed = *v;
    } else if (auto v = flag("-max_len=")) {
      max_len = *v;
    } else if (arg.starts_with("-")) {
      continue;  // other libFuzzer flags mean nothing here
    } else if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  install_crash_handler(fs::path(argv[0]).filename().string());

  const auto started = std::chrono::steady_clock::now();
  std::vector<std::vector<std::uint8_t>> corpus;
  for (const auto& f : files) corpus.push_back(read_file(f));
  std::size_t executed = 0;
  for (const auto& input : corpus) {
    run(input);
    ++executed;
  }
  std::mt19937_64 rng(seed);
  const std::vector<std::uint8_t> empty;
  while (executed < runs) {
    const auto& base =
        corpus.empty()
            ? empty
            : corpus[std::uniform_int_distribution<std::size_t>(0, corpus.size() - 1)(rng)];
    run(mutate(base, corpus, rng, max_len));
    ++executed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("fuzz replay: %zu corpus inputs, %zu executions in %.2f s, no crash\n", corpus.size(),
              executed, seconds);
  return 0;
}
