// Which templatesRef/valuesRef Secrets the controller may read: only those in
// TEMPLATE_SECRET_NAMESPACES, with words that name the setting when it refuses one.
#include <gtest/gtest.h>

#include "actors/nodeclaim/template_secret_access.hpp"

namespace kp::actors::nodeclaim {
namespace {

TEST(TemplateSecretAccess, ASecretInAnAllowedNamespaceIsRead) {
  template_secret_scope scope{"kube-system", {"kube-system", "karpenter"}};
  EXPECT_FALSE(refuse_template_secret("templatesRef", {"tmpl", "karpenter"}, scope));
  EXPECT_FALSE(refuse_template_secret("templatesRef", {"tmpl", "kube-system"}, scope));
  // No namespace: the system namespace.
  EXPECT_EQ(secret_namespace({"tmpl", ""}, scope), "kube-system");
  EXPECT_FALSE(refuse_template_secret("valuesRef", {"tmpl", ""}, scope));
}

TEST(TemplateSecretAccess, ASecretElsewhereIsRefusedNamingTheSetting) {
  template_secret_scope scope{"kube-system", {"kube-system", "karpenter"}};
  auto why = refuse_template_secret("valuesRef", {"db", "payments"}, scope);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "valuesRef Secret payments/db is outside TEMPLATE_SECRET_NAMESPACES (kube-system, "
            "karpenter): move the Secret there or add namespace payments to the setting");
}

TEST(TemplateSecretAccess, TheSettingsGiveTheScope) {
  config::settings s;
  auto scope = template_secret_scope_of(s);
  EXPECT_EQ(scope.system_namespace, "kube-system");
  EXPECT_EQ(scope.namespaces, (std::vector<std::string>{"kube-system"}));
  s.template_secret_namespaces = {"kube-system", "karpenter"};
  EXPECT_EQ(template_secret_scope_of(s).namespaces,
            (std::vector<std::string>{"kube-system", "karpenter"}));
}

}  // namespace
}  // namespace kp::actors::nodeclaim
