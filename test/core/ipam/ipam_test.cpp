#include <gtest/gtest.h>

#include <random>

#include "core/ipam/address_pool.hpp"
#include "core/ipam/ipconfig.hpp"
#include "core/ipam/ipv4.hpp"
#include "core/ipam/simple_ipam.hpp"

namespace kp::ipam {
namespace {

ipv4_address ip(const char* text) {
  return *parse_ipv4(text);
}

ipv4_subnet subnet(const char* text) {
  return parse_ipv4_cidr(text)->subnet;
}

// --- addresses ------------------------------------------------------------------------------

struct address_case {
  const char* text;
  bool valid;
};

class Ipv4Parsing : public ::testing::TestWithParam<address_case> {};

TEST_P(Ipv4Parsing, OnlyStrictDottedQuadsAreAddresses) {
  auto a = parse_ipv4(GetParam().text);
  EXPECT_EQ(a.has_value(), GetParam().valid) << GetParam().text;
  if (a) {
    EXPECT_EQ(a->to_string(), GetParam().text);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Ipv4Parsing,
    ::testing::Values(address_case{"10.0.0.5", true}, address_case{"0.0.0.0", true},
                      address_case{"255.255.255.255", true}, address_case{"256.0.0.1", false},
                      address_case{"10.0.0", false}, address_case{"10.0.0.5.6", false},
                      address_case{"10.00.0.5", false}, address_case{"10..0.5", false},
                      address_case{"10.0.0.5 ", false}, address_case{"", false},
                      address_case{"fd00::1", false}));

TEST(Ipv4Cidr, TheNetworkAddressIsTheAllocationSignal) {
  auto net = parse_ipv4_cidr("192.168.0.0/24");
  ASSERT_TRUE(net.ok());
  EXPECT_TRUE(net->is_network());
  EXPECT_EQ(net->subnet.broadcast().to_string(), "192.168.0.255");
  auto host = parse_ipv4_cidr("192.168.0.1/24");
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE(host->is_network());
  EXPECT_EQ(host->subnet.to_string(), "192.168.0.0/24");
  EXPECT_FALSE(parse_ipv4_cidr("192.168.0.0").ok());
  EXPECT_FALSE(parse_ipv4_cidr("192.168.0.0/33").ok());
  EXPECT_FALSE(parse_ipv4_cidr("192.168.0.0/x").ok());
}

TEST(AddressRange, SingleAddressesRangesAndCidrsAreRanges) {
  auto one = parse_address_range("10.0.0.9");
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->contains(ip("10.0.0.9")));
  EXPECT_FALSE(one->contains(ip("10.0.0.10")));
  auto span = parse_address_range("10.0.0.10-10.0.0.20");
  ASSERT_TRUE(span.ok());
  EXPECT_TRUE(span->contains(ip("10.0.0.20")));
  auto cidr = parse_address_range("10.0.0.64/30");
  ASSERT_TRUE(cidr.ok());
  EXPECT_EQ(cidr->last.to_string(), "10.0.0.67");
  EXPECT_FALSE(parse_address_range("10.0.0.20-10.0.0.10").ok());
  EXPECT_FALSE(parse_address_range("ten").ok());
}

// --- ipconfig -------------------------------------------------------------------------------

struct ipconfig_case {
  const char* text;
  const char* rendered;  // nullptr: refused
  const char* error = "";
};

class IpconfigParsing : public ::testing::TestWithParam<ipconfig_case> {};

TEST_P(IpconfigParsing, ParsesAndRendersInProxmoxKeyOrder) {
  auto c = parse_ipconfig(GetParam().text);
  if (GetParam().rendered == nullptr) {
    ASSERT_FALSE(c.ok()) << GetParam().text;
    EXPECT_EQ(c.error().code, "invalid_ipconfig");
    EXPECT_NE(c.error().message.find(GetParam().error), std::string::npos) << c.error().message;
    return;
  }
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(render_ipconfig(*c), GetParam().rendered);
}

INSTANTIATE_TEST_SUITE_P(
    Table, IpconfigParsing,
    ::testing::Values(ipconfig_case{"ip=10.0.0.5/24,gw=10.0.0.1", "ip=10.0.0.5/24,gw=10.0.0.1"},
                      ipconfig_case{"gw=10.0.0.1,ip=10.0.0.5/24", "ip=10.0.0.5/24,gw=10.0.0.1"},
                      ipconfig_case{"ip=dhcp", "ip=dhcp"},
                      ipconfig_case{"ip=dhcp,ip6=auto", "ip=dhcp,ip6=auto"},
                      ipconfig_case{"ip6=fd00:1::/64,gw6=fd00:1::1",
                                    "ip6=fd00:1::/64,gw6=fd00:1::1"},
                      ipconfig_case{"", ""},
                      ipconfig_case{"ip=10.0.0.5", nullptr, "neither dhcp nor an IPv4 CIDR"},
                      ipconfig_case{"ip=10.0.0.5/24,gw=10.0.0", nullptr, "gw \"10.0.0\""},
                      ipconfig_case{"ip6=10.0.0.0/24", nullptr, "ip6 \"10.0.0.0/24\""},
                      ipconfig_case{"gw6=10.0.0.1", nullptr, "gw6"},
                      ipconfig_case{"ip=dhcp,ip=dhcp", nullptr, "ip given twice"},
                      ipconfig_case{"ip=dhcp,mtu=9000", nullptr, "unknown key \"mtu\""},
                      ipconfig_case{"dhcp", nullptr, "has no ="}));

// --- one pool ---------------------------------------------------------------------------------

TEST(AddressPool, NetworkBroadcastGatewayAndExcludedRangesAreNeverHandedOut) {
  auto pool = address_pool::create(
      {subnet("10.0.0.0/29"), ip("10.0.0.1"), {*parse_address_range("10.0.0.3-10.0.0.4")}});
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  EXPECT_EQ(pool->capacity(), 3u);  // .2 .5 .6
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) {
    auto a = pool->allocate();
    ASSERT_TRUE(a.ok()) << a.error().message;
    got.push_back(a->to_string());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"10.0.0.2", "10.0.0.5", "10.0.0.6"}));
  auto none = pool->allocate();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, "ipam_exhausted");
  EXPECT_NE(none.error().message.find("subnet 10.0.0.0/29: no free address (3 allocatable"),
            std::string::npos)
      << none.error().message;
}

TEST(AddressPool, AReleasedAddressIsHandedOutAgain) {
  auto pool = address_pool::create({subnet("10.0.0.0/30"), std::nullopt, {}});
  ASSERT_TRUE(pool.ok());
  auto a = pool->allocate();
  auto b = pool->allocate();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(pool->allocate().ok());
  EXPECT_TRUE(pool->release(*a));
  EXPECT_FALSE(pool->release(*a)) << "releasing twice";
  auto again = pool->allocate();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *a);
  EXPECT_EQ(pool->available(), 0u);
}

TEST(AddressPool, TheSearchStartsAtTheHintAndWrapsAround) {
  auto pool = address_pool::create({subnet("10.0.0.0/29"), std::nullopt, {}});
  ASSERT_TRUE(pool.ok());
  ASSERT_TRUE(pool->reserve(ip("10.0.0.5")));
  EXPECT_EQ(pool->allocate(ip("10.0.0.5"))->to_string(), "10.0.0.6");
  EXPECT_EQ(pool->allocate(ip("10.0.0.5"))->to_string(), "10.0.0.1") << "7 is the broadcast";
  EXPECT_EQ(pool->allocate(ip("192.168.0.1"))->to_string(), "10.0.0.2") << "hint outside";
}

TEST(AddressPool, ReservingMarksSeenAddressesAndRefusesOthers) {
  auto pool = address_pool::create({subnet("10.0.0.0/29"), ip("10.0.0.1"), {}});
  ASSERT_TRUE(pool.ok());
  EXPECT_TRUE(pool->reserve(ip("10.0.0.2")));
  EXPECT_TRUE(pool->reserve(ip("10.0.0.2"))) << "twice is fine";
  EXPECT_EQ(pool->used(), 1u);
  EXPECT_FALSE(pool->reserve(ip("10.0.0.1"))) << "the gateway";
  EXPECT_FALSE(pool->reserve(ip("10.0.0.0"))) << "the network";
  EXPECT_FALSE(pool->reserve(ip("10.0.1.2"))) << "outside";
  EXPECT_EQ(pool->allocate()->to_string(), "10.0.0.3");
}

TEST(AddressPool, PrefixesOutsideSixteenToThirtyAndForeignGatewaysAreRefused) {
  EXPECT_EQ(address_pool::create({subnet("10.0.0.0/8"), std::nullopt, {}}).error().code,
            "invalid_pool");
  EXPECT_FALSE(address_pool::create({subnet("10.0.0.0/31"), std::nullopt, {}}).ok());
  auto foreign = address_pool::create({subnet("10.0.0.0/24"), ip("10.0.1.1"), {}});
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message.find("gateway 10.0.1.1 is outside"), std::string::npos);
  auto big = address_pool::create({subnet("10.1.0.0/16"), std::nullopt, {}});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->capacity(), 65534u);
}

// --- the registry -----------------------------------------------------------------------------

const host_bridge pve1{"192.168.10.11/24", "192.168.10.1"};
const char* mac = "BC:24:11:00:00:01";

TEST(SimpleIpam, ATemplateNetworkAddressIsReplacedByAFreeAddressNearTheHostBridge) {
  simple_ipam ipam;
  auto a = ipam.allocate("ip=192.168.10.0/24,gw=192.168.10.1", pve1, mac);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->ipconfig, "ip=192.168.10.12/24,gw=192.168.10.1");
  EXPECT_EQ(a->address4, "192.168.10.12/24");
  EXPECT_EQ(a->gateway4, "192.168.10.1");
  ASSERT_TRUE(a->address);
  EXPECT_EQ(a->address->to_string(), "192.168.10.12");
  auto b = ipam.allocate("ip=192.168.10.0/24,gw=192.168.10.1", pve1, mac);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->address4, "192.168.10.13/24");
  EXPECT_EQ(ipam.pool_count(), 1u);
}

TEST(SimpleIpam, WithoutAGatewayTheBridgeAddressIsTheGateway) {
  simple_ipam ipam;
  auto a = ipam.allocate("ip=192.168.10.0/24", pve1, mac);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->ipconfig, "ip=192.168.10.12/24,gw=192.168.10.11");
}

TEST(SimpleIpam, StaticAndDhcpConfigsPassThroughUnchanged) {
  simple_ipam ipam;
  auto s = ipam.allocate("ip=10.0.0.5/24,gw=10.0.0.1", pve1, mac);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ipconfig, "ip=10.0.0.5/24,gw=10.0.0.1");
  EXPECT_FALSE(s->address);
  EXPECT_EQ(s->address4, "10.0.0.5/24");
  auto d = ipam.allocate("ip=dhcp,ip6=auto", pve1, mac);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ipconfig, "ip=dhcp,ip6=auto");
  EXPECT_EQ(ipam.pool_count(), 0u);
}

TEST(SimpleIpam, AnIpv6PrefixBecomesTheNicsSlaacAddress) {
  simple_ipam ipam;
  auto a = ipam.allocate("ip=dhcp,ip6=fd00:1::/64,gw6=fd00:1::1", pve1, "00:1a:2b:3c:4d:5e");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->ipconfig, "ip=dhcp,ip6=fd00:1::21a:2bff:fe3c:4d5e/64,gw6=fd00:1::1");
  EXPECT_EQ(a->address6, "fd00:1::21a:2bff:fe3c:4d5e/64");
  auto bad = ipam.allocate("ip=192.168.10.0/24,ip6=fd00:1::/64", pve1, "not-a-mac");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "invalid_mac");
  EXPECT_EQ(ipam.pool(subnet("192.168.10.0/24"))->used(), 1u)
      << "only the bridge: the IPv4 address taken before the failure is given back";
}

TEST(SimpleIpam, RebuildingFromNodesVmsAndBridgesAvoidsEveryAddressInUse) {
  simple_ipam ipam;
  ipam.rebuild({"10.0.0.2", "10.0.0.3/24", "fd00::5", "garbage"},
               {"ip=10.0.0.4/24,gw=10.0.0.1", "ip=dhcp", "ip=10.0.0.0/24"},
               {{"10.0.0.5/24", "10.0.0.1"}});
  auto a = ipam.allocate("ip=10.0.0.0/24,gw=10.0.0.1", {"", ""}, mac);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->address4, "10.0.0.6/24");
  // A later rebuild forgets what is gone (the VM holding .6 was deleted meanwhile).
  ipam.rebuild({"10.0.0.2"}, {}, {});
  auto b = ipam.allocate("ip=10.0.0.0/24,gw=10.0.0.1", {"", ""}, mac);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->address4, "10.0.0.3/24");
}

TEST(SimpleIpam, AddressesSeenBeforeThePoolExistsAreStillAvoided) {
  simple_ipam ipam;
  ipam.observe_address("10.0.0.2");
  ASSERT_TRUE(ipam.observe_ipconfig("ip=10.0.0.3/24").ok());
  EXPECT_FALSE(ipam.observe_ipconfig("ip=nope").ok());
  auto a = ipam.allocate("ip=10.0.0.0/24,gw=10.0.0.1", {"", ""}, mac);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->address4, "10.0.0.4/24");
}

TEST(SimpleIpam, ReleasingByAddressOrIpconfigFreesTheAddress) {
  simple_ipam ipam;
  auto a = ipam.allocate("ip=10.0.0.0/30", {"", ""}, mac);
  auto b = ipam.allocate("ip=10.0.0.0/30", {"", ""}, mac);
  ASSERT_TRUE(a.ok() && b.ok());
  auto full = ipam.allocate("ip=10.0.0.0/30", {"", ""}, mac);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, "ipam_exhausted");
  EXPECT_TRUE(ipam.release(a->ipconfig));
  EXPECT_FALSE(ipam.release(a->ipconfig));
  EXPECT_TRUE(ipam.release(b->address->to_string()));
  EXPECT_FALSE(ipam.release("not an address"));
  EXPECT_TRUE(ipam.allocate("ip=10.0.0.0/30", {"", ""}, mac).ok());
}

TEST(SimpleIpam, ADeclaredPoolKeepsItsExcludedRangesThroughAllocationAndRebuild) {
  simple_ipam ipam;
  ASSERT_TRUE(ipam.define_pool("10.0.0.0/28", "10.0.0.1", {"10.0.0.2-10.0.0.9", "10.0.0.12"}).ok());
  std::vector<std::string> got;
  for (int i = 0; i < 4; ++i) {
    auto a = ipam.allocate("ip=10.0.0.0/28", {"", ""}, mac);
    ASSERT_TRUE(a.ok()) << a.error().message;
    got.push_back(a->address4);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"10.0.0.10/28", "10.0.0.11/28", "10.0.0.13/28",
                                           "10.0.0.14/28"}));
  EXPECT_EQ(ipam.allocate("ip=10.0.0.0/28", {"", ""}, mac).error().code, "ipam_exhausted");
  ipam.rebuild({"10.0.0.14"}, {}, {});
  EXPECT_EQ(ipam.allocate("ip=10.0.0.0/28", {"", ""}, mac)->address4, "10.0.0.10/28")
      << "still excluded after a rebuild";
  // Redefining keeps what is in use.
  ASSERT_TRUE(ipam.define_pool("10.0.0.0/28", "10.0.0.1", {}).ok());
  EXPECT_EQ(ipam.allocate("ip=10.0.0.0/28", {"", ""}, mac)->address4, "10.0.0.2/28");
  EXPECT_TRUE(ipam.pool(subnet("10.0.0.0/28"))->in_use(ip("10.0.0.14")));
}

TEST(SimpleIpam, ABadPoolDeclarationNamesTheBadPart) {
  simple_ipam ipam;
  EXPECT_EQ(ipam.define_pool("10.0.0.0", "", {}).error().code, "invalid_address");
  EXPECT_NE(
      ipam.define_pool("10.0.0.0/24", "10.0.0", {}).error().message.find("gateway \"10.0.0\""),
      std::string::npos);
  EXPECT_NE(ipam.define_pool("10.0.0.0/24", "", {"10.0.0.9-10.0.0.1"})
                .error()
                .message.find("ends before it starts"),
            std::string::npos);
  EXPECT_EQ(ipam.define_pool("10.0.0.0/24", "10.0.1.1", {}).error().code, "invalid_pool");
  EXPECT_EQ(ipam.pool_count(), 0u);
}

TEST(SimpleIpam, ABadTemplateIpconfigIsAnErrorNotAnAllocation) {
  simple_ipam ipam;
  auto a = ipam.allocate("ip=10.0.0.0/8", {"", ""}, mac);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, "invalid_pool");
  auto b = ipam.allocate("ip=10.0.0.0", {"", ""}, mac);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "invalid_ipconfig");
}

}  // namespace
}  // namespace kp::ipam

namespace kp::ipam {
namespace {

// Garbage in gives an error or a value, never a crash, and what parses renders back the same.
TEST(IpamParsers, RandomInputNeverCrashesAndParsedIpconfigsRoundTrip) {
  std::mt19937 rng(7);
  const std::string alphabet = "ipgw6=,./:-0123456789abcdefdhcpauto ";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 40);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (int n = length(rng); n > 0; --n) s += alphabet[pick(rng)];
    (void)parse_ipv4_cidr(s);
    (void)parse_address_range(s);
    if (auto c = parse_ipconfig(s)) {
      ++parsed;
      auto again = parse_ipconfig(render_ipconfig(*c));
      ASSERT_TRUE(again.ok()) << s;
      EXPECT_EQ(*again, *c) << s;
    }
  }
  EXPECT_GT(parsed, 0);
  simple_ipam ipam;
  for (const char* s : {"ip=", "ip=/", "ip=0.0.0.0/0", "ip=10.0.0.0/30,ip6=::/0", "=,=,"}) {
    (void)ipam.allocate(s, {"garbage", "garbage"}, "garbage");
  }
}

}  // namespace
}  // namespace kp::ipam
