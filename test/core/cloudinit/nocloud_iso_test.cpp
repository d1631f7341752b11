#include "core/cloudinit/nocloud_iso.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kp::cloudinit {
namespace {

namespace fs = std::filesystem;

nocloud_files sample_files() {
  nocloud_files files;
  std::string user_data = "#cloud-config\nwrite_files:\n";
  for (int i = 0; i < 300; ++i) {
    user_data += "  - path: /etc/file-" + std::to_string(i) + "\n    content: line " +
                 std::to_string(i) + "\n";
  }
  files.user_data = user_data;
  files.meta_data = "instance-id: vm-101\nlocal-hostname: nodeclaim-abc\n";
  files.network_config = "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n";
  files.vendor_data = "#cloud-config\npackages: []\n";
  return files;
}

// A scratch directory removed at the end of the test.
class scratch_dir {
 public:
  scratch_dir() {
    std::string pattern = (fs::temp_directory_path() / "kp-cloudinit-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    if (made != nullptr) path_ = made;
  }
  ~scratch_dir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command and returns its standard output; exit status in *code.
std::string run(const std::string& command, int* code) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *code = -1;
    return out;
  }
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int st = pclose(pipe);
  *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

bool have_tool(const char* name) {
  int code = 0;
  run(std::string("command -v ") + name + " >/dev/null 2>&1", &code);
  return code == 0;
}

TEST(NocloudIso, WrittenImageReadsBackWithTheSameFiles) {
  auto files = sample_files();
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok()) << image.error().message;
  EXPECT_EQ(image->size() % 2048, 0u);
  auto back = read_nocloud_iso(*image);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, files);
}

TEST(NocloudIso, OptionalFilesAreAbsentWhenNotWritten) {
  nocloud_files files;
  files.user_data = "#cloud-config\n";
  files.meta_data = "";  // empty meta-data is valid NoCloud
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto back = read_nocloud_iso(*image);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->user_data, "#cloud-config\n");
  EXPECT_EQ(back->meta_data, "");
  EXPECT_FALSE(back->network_config.has_value());
  EXPECT_FALSE(back->vendor_data.has_value());
}

TEST(NocloudIso, BinaryContentSurvivesExactly) {
  nocloud_files files;
  std::mt19937 rng(7);
  for (int i = 0; i < 70000; ++i) files.user_data.push_back(static_cast<char>(rng() & 0xff));
  files.meta_data = std::string("a\0b", 3);
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto back = read_nocloud_iso(*image);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, files);
}

TEST(NocloudIso, AFixedTimestampMakesImagesByteIdentical) {
  iso_write_options options;
  options.fixed_timestamp = 1700000000;
  auto a = write_nocloud_iso(sample_files(), options);
  auto b = write_nocloud_iso(sample_files(), options);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a == *b);
  options.fixed_timestamp = 1700000001;
  auto c = write_nocloud_iso(sample_files(), options);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(*a == *c);
}

TEST(NocloudIso, ContentOverTheLimitIsRefused) {
  iso_write_options options;
  options.max_content_bytes = 100;
  auto image = write_nocloud_iso(sample_files(), options);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.error().code, "invalid_argument");
}

TEST(NocloudIso, IsoinfoSeesVolumeCidataWithRockRidgeAndJoliet) {
  if (!have_tool("isoinfo")) GTEST_SKIP() << "isoinfo (genisoimage) is not installed";
  scratch_dir dir;
  ASSERT_FALSE(dir.path().empty());
  auto files = sample_files();
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto iso = dir.path() / "cidata.iso";
  write_bytes(iso, *image);
  int code = 0;
  auto info = run("isoinfo -d -i '" + iso.string() + "' 2>&1", &code);
  ASSERT_EQ(code, 0) << info;
  EXPECT_NE(info.find("Volume id: cidata"), std::string::npos) << info;
  EXPECT_NE(info.find("Rock Ridge signatures"), std::string::npos) << info;
  EXPECT_NE(info.find("Joliet"), std::string::npos) << info;

  auto user_data = run("isoinfo -R -i '" + iso.string() + "' -x /user-data", &code);
  ASSERT_EQ(code, 0);
  EXPECT_TRUE(user_data == files.user_data)
      << "isoinfo extracted " << user_data.size() << " bytes, expected " << files.user_data.size();
  auto network = run("isoinfo -J -i '" + iso.string() + "' -x /network-config", &code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(network, *files.network_config);
  auto listing = run("isoinfo -R -l -i '" + iso.string() + "'", &code);
  EXPECT_NE(listing.find("-rw-r--r--"), std::string::npos) << listing;
}

// Images made by another tool (what cloud-localds produces) read the same way.
TEST(NocloudIso, ImagesMadeByGenisoimageAreRead) {
  if (!have_tool("genisoimage")) GTEST_SKIP() << "genisoimage is not installed";
  scratch_dir dir;
  ASSERT_FALSE(dir.path().empty());
  write_bytes(dir.path() / "user-data", "#cloud-config\nhostname: a\n");
  write_bytes(dir.path() / "meta-data", "instance-id: i-1\n");
  int code = 0;
  auto make = [&](const std::string& volid, const std::string& names, const std::string& out) {
    run("cd '" + dir.path().string() + "' && genisoimage -quiet -output " + out + " -volid " +
            volid + " -joliet -rock " + names + " 2>&1",
        &code);
    return read_bytes(dir.path() / out);
  };
  auto good = make("cidata", "user-data meta-data", "good.iso");
  ASSERT_EQ(code, 0);
  auto files = read_nocloud_iso(good);
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(files->user_data, "#cloud-config\nhostname: a\n");
  EXPECT_EQ(files->meta_data, "instance-id: i-1\n");

  auto wrong_label = read_nocloud_iso(make("config2", "user-data meta-data", "other.iso"));
  ASSERT_FALSE(wrong_label.ok());
  EXPECT_EQ(wrong_label.error().code, "not_nocloud");

  auto no_user_data = read_nocloud_iso(make("cidata", "meta-data", "partial.iso"));
  ASSERT_FALSE(no_user_data.ok());
  EXPECT_EQ(no_user_data.error().code, "missing_file");
}

// cloud-localds and other tools may write only one of the two name extensions, or neither.
TEST(NocloudIso, ImagesWithOnlyRockRidgeOrOnlyJolietNamesAreReadAndPlainNamesAreNot) {
  if (!have_tool("genisoimage")) GTEST_SKIP() << "genisoimage is not installed";
  scratch_dir dir;
  ASSERT_FALSE(dir.path().empty());
  write_bytes(dir.path() / "user-data", "#cloud-config\nhostname: b\n");
  write_bytes(dir.path() / "meta-data", "instance-id: i-2\n");
  write_bytes(dir.path() / "network-config", "version: 2\n");
  auto make = [&](const std::string& extensions, const std::string& out) {
    int code = 0;
    run("cd '" + dir.path().string() + "' && genisoimage -quiet -output " + out +
            " -volid cidata " + extensions + " user-data meta-data network-config 2>&1",
        &code);
    EXPECT_EQ(code, 0) << extensions;
    return read_bytes(dir.path() / out);
  };
  for (const std::string extensions : {"-rock", "-joliet", "-joliet -rational-rock"}) {
    auto files = read_nocloud_iso(make(extensions, "one.iso"));
    ASSERT_TRUE(files.ok()) << extensions << ": " << files.error().message;
    EXPECT_EQ(files->user_data, "#cloud-config\nhostname: b\n") << extensions;
    EXPECT_EQ(files->meta_data, "instance-id: i-2\n") << extensions;
    EXPECT_EQ(files->network_config, "version: 2\n") << extensions;
    EXPECT_FALSE(files->vendor_data.has_value()) << extensions;
  }
  // Plain ISO9660 names are 8.3 (USER_DAT.;1), which a guest would not find either.
  auto plain = read_nocloud_iso(make("", "plain.iso"));
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().code, "missing_file");
}

TEST(NocloudIso, GarbageIsAnErrorValue) {
  EXPECT_EQ(read_nocloud_iso("").error().code, "invalid_iso");
  EXPECT_EQ(read_nocloud_iso(std::string(100000, '\0')).error().code, "invalid_iso");
  std::mt19937 rng(42);
  for (int round = 0; round < 50; ++round) {
    std::string junk(40 * 2048, '\0');
    for (auto& c : junk) c = static_cast<char>(rng() & 0xff);
    // Pass the magic check so the reader must cope with the rest.
    junk.replace(16 * 2048, 6,
                 "\x01"
                 "CD001");
    auto r = read_nocloud_iso(junk);
    EXPECT_FALSE(r.ok());
  }
}

TEST(NocloudIso, TruncatedImagesNeverCrashOrReturnWrongContent) {
  auto files = sample_files();
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok());
  for (std::size_t cut = 0; cut < image->size(); cut += 1021) {
    auto r = read_nocloud_iso(std::string_view(*image).substr(0, cut));
    if (r.ok()) {
      EXPECT_EQ(*r, files) << "cut at " << cut;
    }
  }
  // Cutting inside the volume descriptors or the directories must fail.
  EXPECT_FALSE(read_nocloud_iso(std::string_view(*image).substr(0, 17 * 2048)).ok());
  EXPECT_FALSE(read_nocloud_iso(std::string_view(*image).substr(0, 16 * 2048 + 100)).ok());
}

TEST(NocloudIso, CorruptedBytesNeverCrash) {
  auto files = sample_files();
  auto image = write_nocloud_iso(files);
  ASSERT_TRUE(image.ok());
  std::mt19937 rng(1234);
  int failures = 0;
  for (int round = 0; round < 300; ++round) {
    std::string copy = *image;
    // Corrupt the descriptors and directory records, where the structure lives.
    for (int i = 0; i < 8; ++i) {
      std::size_t at = 16 * 2048 + rng() % (20 * 2048);
      copy[at] = static_cast<char>(rng() & 0xff);
    }
    auto r = read_nocloud_iso(copy);
    if (!r.ok()) ++failures;
  }
  SUCCEED() << failures << " of 300 corrupted images were refused";
}

TEST(NocloudIso, ConcurrentBuildsFromSeveralThreadsAllSucceed) {
  constexpr int threads = 6;
  constexpr int builds = 40;
  std::atomic<int> good{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([t, &good] {
      for (int i = 0; i < builds; ++i) {
        nocloud_files files;
        files.user_data =
            "#cloud-config\n# thread " + std::to_string(t) + " build " + std::to_string(i) + "\n";
        files.meta_data = "instance-id: " + std::to_string(t * 1000 + i) + "\n";
        auto image = write_nocloud_iso(files);
        if (!image.ok()) continue;
        auto back = read_nocloud_iso(*image);
        if (back.ok() && *back == files) ++good;
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(good.load(), threads * builds);
}

}  // namespace
}  // namespace kp::cloudinit
