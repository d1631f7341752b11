#include "core/gotemplate/value.hpp"

#include <gtest/gtest.h>

namespace kp::gotemplate {
namespace {

TEST(GotemplateValue, MapsKeepTheirKeysInByteOrderWhateverTheInsertionOrder) {
  value m = value::map({{"b", 1}, {"a", 2}, {"B", 3}});
  m.set("aa", 4);
  std::vector<std::string> keys;
  for (const auto& e : m.as_map().entries) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"B", "a", "aa", "b"}));
}

TEST(GotemplateValue, StringMapsFromStdMapsReadMissingKeysAsEmptyStrings) {
  value m = value::from_string_map({{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(m.type_name(), "map[string]string");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.as_map().entries[0].key, "a");
  EXPECT_EQ(*m.find("b"), value("2"));
  EXPECT_EQ(m.find("c"), nullptr);
  m.set("c", "3");
  EXPECT_EQ(m.as_map().entries.back().key, "c");
}

TEST(GotemplateValue, RecordsKeepTheirFieldsInDeclarationOrder) {
  value r = value::record();
  r.field("Zone", "z").field("Hostname", "h").field("Zone", "z2");
  ASSERT_EQ(r.as_map().entries.size(), 2u);
  EXPECT_EQ(r.as_map().entries[0].key, "Zone");
  EXPECT_EQ(r.as_map().entries[0].val, value("z2"));
  EXPECT_EQ(r.as_map().entries[0].yaml_key, "zone");
  EXPECT_EQ(r.as_map().entries[0].json_key, "Zone");
}

TEST(GotemplateValue, CopiesAreIndependentAfterABuilderCall) {
  value a = value::map({{"k", 1}});
  value b = a;
  b.set("k", 2);
  EXPECT_EQ(*a.find("k"), value(1));
  EXPECT_EQ(*b.find("k"), value(2));
  value l = value::list({1});
  value l2 = l;
  l2.push_back(2);
  EXPECT_EQ(l.size(), 1u);
  EXPECT_EQ(l2.size(), 2u);
}

TEST(GotemplateValue, CopiesOfAStringShareItsBytesAsAGoStringDoes) {
  value a = value(std::string(1000, 'x'));
  value b = a;
  EXPECT_EQ(&a.as_string(), &b.as_string());
  EXPECT_EQ(b, value(std::string(1000, 'x')));
}

TEST(GotemplateValue, TruthFollowsGoAndRecordsAreAlwaysTrue) {
  EXPECT_FALSE(value().truthy());
  EXPECT_FALSE(value(0).truthy());
  EXPECT_FALSE(value(0.0).truthy());
  EXPECT_FALSE(value("").truthy());
  EXPECT_FALSE(value::list().truthy());
  EXPECT_FALSE(value::map().truthy());
  EXPECT_TRUE(value::record().truthy());
  EXPECT_TRUE(value(-1).truthy());
  EXPECT_TRUE(value("x").truthy());
}

TEST(GotemplateValue, EmptyRecordIsOneWhoseFieldsAreAllEmpty) {
  value r = value::record();
  r.field("A", "").field("B", 0);
  EXPECT_TRUE(r.empty());
  r.field("B", 1);
  EXPECT_FALSE(r.empty());
}

TEST(GotemplateValue, TypeNamesAreGoTypeNames) {
  EXPECT_EQ(value(1).type_name(), "int");
  EXPECT_EQ(value(1.5).type_name(), "float64");
  EXPECT_EQ(value("s").type_name(), "string");
  EXPECT_EQ(value::list().type_name(), "[]interface {}");
  EXPECT_EQ(value::map().type_name(), "map[string]interface {}");
  EXPECT_EQ(value::string_map().type_name(), "map[string]string");
}

}  // namespace
}  // namespace kp::gotemplate
