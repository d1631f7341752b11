#include "sim/kube/selectors.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace kp::sim::kube {
namespace {
namespace json = boost::json;

TEST(KubeSimLabelSelector, SupportsEveryOperatorOfTheQuerySyntax) {
  json::object labels = json::parse(R"({"app":"web","tier":"front","v":"3"})").as_object();
  auto match = [&](const std::string& s) {
    auto sel = label_selector::parse(s);
    EXPECT_TRUE(sel.ok()) << s;
    return sel.ok() && sel.value().matches(&labels);
  };
  EXPECT_TRUE(match("app=web"));
  EXPECT_TRUE(match("app==web,tier"));
  EXPECT_TRUE(match("app!=db"));
  EXPECT_TRUE(match("tier in (front, back)"));
  EXPECT_TRUE(match("tier notin (back)"));
  EXPECT_TRUE(match("!missing"));
  EXPECT_FALSE(match("app=db"));
  EXPECT_FALSE(match("missing"));
  EXPECT_FALSE(match("!app"));
  EXPECT_TRUE(match(""));
}

TEST(KubeSimLabelSelector, MalformedSelectorsAreBadRequests) {
  auto sel = label_selector::parse("app in (a");
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().code, 400);
}

TEST(KubeSimLabelSelector, LabelSelectorObjectsMatchLabelsAndExpressions) {
  json::object selector =
      json::parse(
          R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["front"]}]})")
          .as_object();
  auto sel = label_selector::from_object(&selector);
  ASSERT_TRUE(sel.ok());
  json::object yes = json::parse(R"({"app":"web","tier":"front"})").as_object();
  json::object no = json::parse(R"({"app":"web"})").as_object();
  EXPECT_TRUE(sel.value().matches(&yes));
  EXPECT_FALSE(sel.value().matches(&no));
  EXPECT_FALSE(label_selector::from_object(nullptr).value().matches(&yes))
      << "a missing selector selects nothing";
}

TEST(KubeSimFieldSelector, UnregisteredFieldsAreRefusedWith400) {
  auto sel = field_selector::parse("spec.foo=bar", "Pod");
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.error().code, 400);
  EXPECT_EQ(sel.error().message, "field label not supported: spec.foo");
}

TEST(KubeSimFieldSelector, MatchesPodFieldsWithEqualityAndInequality) {
  json::object pod =
      json::parse(
          R"({"metadata":{"name":"p","namespace":"d"},"spec":{"nodeName":"w1"},"status":{"phase":"Running"}})")
          .as_object();
  auto sel =
      field_selector::parse("spec.nodeName=w1,status.phase!=Succeeded,status.phase!=Failed", "Pod");
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel.value().matches(pod));
  EXPECT_FALSE(field_selector::parse("metadata.name==q", "Pod").value().matches(pod));
  EXPECT_TRUE(field_selector::parse("type=bootstrap.kubernetes.io/token", "Secret").ok());
}

}  // namespace
}  // namespace kp::sim::kube
