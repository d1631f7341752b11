// The image's runtime contents come from the built binary and Debian packages alone, and the
// controller runs from them as UID 65532 on a read-only root (a private mount namespace, a
// read-only bind mount and chroot), so the image recipe is exercised without a Docker engine.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "test/sim/kube/kube_sim_process.hpp"

namespace kp::image {
namespace {

namespace fs = std::filesystem;
using kp::sim::kube::testing::command_result;
using kp::sim::kube::testing::run_command;
using namespace std::chrono_literals;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a tool found on PATH (run_command execs its first argument as a path).
command_result run_tool(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  argv.insert(argv.begin(), "/usr/bin/env");
  return run_command(argv, {}, "", timeout);
}

std::string describe(const command_result& r) {
  return "exit " + std::to_string(r.exit_code) + (r.timed_out ? " (timed out)" : "") +
         "\nstdout: " + r.out + "\nstderr: " + r.err;
}

class RootfsImage : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = env_or("KP_BIN_DIR", "build/bin") + "/karpenter-proxmox";
    if (access(binary_.c_str(), X_OK) != 0) GTEST_SKIP() << binary_ << " is not built";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::path(KP_ROOTFS_TEST_DIR) / info->name();
    fs::create_directories(root_.parent_path());
    auto built = run_tool({"bash", env_or("KP_SOURCE_DIR", ".") + "/scripts/build-rootfs.sh",
                           binary_, root_.string()},
                          60s);
    ASSERT_EQ(built.exit_code, 0) << "build-rootfs.sh failed: " << describe(built);
  }
  void TearDown() override {
    if (root_.empty()) return;
    std::error_code ec;
    fs::remove_all(root_, ec);
    fs::remove(root_.string() + ".manifest", ec);
  }

  // The library paths ldd reports for the binary (the dynamic loader included).
  std::set<std::string> ldd_paths() {
    auto r = run_tool({"ldd", binary_}, 20s);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    std::set<std::string> out;
    std::istringstream in(r.out);
    std::string first, arrow, second;
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      first = arrow = second = "";
      words >> first >> arrow >> second;
      if (arrow == "=>" && !second.empty() && second[0] == '/')
        out.insert(second);
      else if (!first.empty() && first[0] == '/')
        out.insert(first);
    }
    return out;
  }

  // Runs `args` in the folder as UID/GID 65532 with an empty environment, inside a private mount
  // namespace where the folder is bind-mounted read-only onto itself. Exit 92 means the root was
  // still writable.
  command_result run_isolated(const std::vector<std::string>& args) {
    std::vector<std::string> argv{
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" || exit 91\n"
        "if touch \"$1/.probe\" 2>/dev/null; then echo 'the root is writable' >&2; exit 92; fi\n"
        "root=$1; shift\n"
        "exec env -i \"$(command -v chroot)\" --userspec=65532:65532 \"$root\" \"$@\"",
        "sh",
        root_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_tool(argv, 30s);
  }

  // Skips the test, with the reason, where this machine cannot isolate a process that way.
  void skip_unless_isolation_works() {
    if (geteuid() != 0) {
      GTEST_SKIP() << "running as uid " << geteuid()
                   << ": a mount namespace, a read-only bind mount and chroot to UID 65532 need "
                      "root (CAP_SYS_ADMIN, CAP_SYS_CHROOT, CAP_SETUID)";
    }
    auto ns = run_tool({"unshare", "--mount", "--propagation", "private", "--", "true"}, 20s);
    if (ns.exit_code != 0) GTEST_SKIP() << "unshare --mount is refused here: " << describe(ns);
    auto ro = run_tool(
        {"unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
         "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\"", "sh", root_.string()},
        20s);
    if (ro.exit_code != 0)
      GTEST_SKIP() << "a read-only bind mount is refused here: " << describe(ro);
    auto ch = run_tool({"chroot", "/", "true"}, 20s);
    if (ch.exit_code != 0) GTEST_SKIP() << "chroot is refused here: " << describe(ch);
  }

  std::string binary_;
  fs::path root_;
};

TEST_F(RootfsImage, holdsTheBinaryItsLibrariesTheCaBundleAndTheUsersAndNothingElse) {
  std::set<std::string> expected{"/usr/local/bin/karpenter-proxmox",
                                 "/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group",
                                 "/etc/nsswitch.conf"};
  const auto libraries = ldd_paths();
  ASSERT_FALSE(libraries.empty());
  // Each library is where ldd names it (symlinks resolved inside the folder, as the loader will).
  std::set<std::string> library_files;
  for (const auto& lib : libraries) {
    std::error_code ec;
    fs::path p = root_ / lib.substr(1);
    auto real = fs::canonical(p, ec);
    // An absolute symlink (/usr/lib64/ld-linux...) points outside the folder until chroot.
    if (ec || real.string().rfind(root_.string(), 0) != 0) {
      auto host_real = fs::canonical(lib);
      real = root_ / host_real.string().substr(1);
    }
    EXPECT_TRUE(fs::is_regular_file(real)) << lib << " is not in the folder";
    library_files.insert("/" + fs::relative(real, root_).string());
  }
  expected.insert(library_files.begin(), library_files.end());

  std::set<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    if (e.is_regular_file() && !e.is_symlink())
      files.insert("/" + fs::relative(e.path(), root_).string());
  }
  EXPECT_EQ(files, expected);

  // OpenSSL's default CA file leads (inside the folder) to Debian's bundle.
  auto cert_link = fs::read_symlink(root_ / "usr/lib/ssl/cert.pem");
  EXPECT_EQ(cert_link, "/etc/ssl/certs/ca-certificates.crt");
  const auto bundle = read_text(root_ / "etc/ssl/certs/ca-certificates.crt");
  std::size_t certificates = 0;
  for (auto at = bundle.find("BEGIN CERTIFICATE"); at != std::string::npos;
       at = bundle.find("BEGIN CERTIFICATE", at + 1))
    ++certificates;
  EXPECT_GT(certificates, 50u);

  EXPECT_NE(read_text(root_ / "etc/passwd").find("nonroot:x:65532:65532:"), std::string::npos);
  EXPECT_NE(read_text(root_ / "etc/group").find("nonroot:x:65532:"), std::string::npos);
  struct stat tmp {};
  ASSERT_EQ(stat((root_ / "tmp").c_str(), &tmp), 0);
  EXPECT_EQ(tmp.st_mode & 07777, 01777u);

  // Every library came from a Debian package, named with its version in the manifest.
  const auto manifest = read_text(root_.string() + ".manifest");
  for (const auto& lib : libraries) {
    auto at = manifest.find(lib + "\t");
    ASSERT_NE(at, std::string::npos) << lib << " is not in the manifest";
    auto line = manifest.substr(at, manifest.find('\n', at) - at);
    EXPECT_EQ(line.find("(generated)"), std::string::npos) << line;
    EXPECT_GE(std::count(line.begin(), line.end(), '\t'), 2) << line;
  }
}

TEST_F(RootfsImage, runsTheVersionAsUid65532OnAReadOnlyRoot) {
  skip_unless_isolation_works();
  if (IsSkipped()) return;
  auto host = run_command({binary_, "--version"}, {}, "", 20s);
  ASSERT_EQ(host.exit_code, 0) << describe(host);

  auto r = run_isolated({"/usr/local/bin/karpenter-proxmox", "--version"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, host.out) << "the folder's binary prints what the built one prints";
  EXPECT_NE(r.out.find("karpenter-proxmox "), std::string::npos) << r.out;

  // The process is not root: a binary only root may run is refused to it.
  const auto inside = root_ / "usr/local/bin/karpenter-proxmox";
  fs::permissions(inside, fs::perms::owner_all, fs::perm_options::replace);
  auto refused = run_isolated({"/usr/local/bin/karpenter-proxmox", "--version"});
  EXPECT_EQ(refused.exit_code, 126) << describe(refused);
  EXPECT_NE(refused.err.find("Permission denied"), std::string::npos) << describe(refused);
}

}  // namespace
}  // namespace kp::image
