// Whole cloud-init documents rendered from data shaped like the Go provider's (records with the
// Go field names, yaml tags and omitempty), compared with the text the Go provider produces.
#include <gtest/gtest.h>

#include "test/core/gotemplate/render.hpp"

namespace kp::gotemplate {
namespace {

using testing::render;

field_options tag(const std::string& yaml) {
  return {.yaml_name = yaml, .json_name = "", .omit_empty = true};
}

field_options pointer_tag(const std::string& yaml) {
  return {.yaml_name = yaml, .json_name = "", .omit_empty = true, .pointer = true};
}

value taint(const std::string& key, const std::string& effect) {
  value t = value::record();
  t.field("Key", key, tag("key"))
      .field("Value", "", tag("value"))
      .field("Effect", effect, tag("effect"));
  return t;
}

// instance.KubeletConfiguration: every field, in declaration order, omitempty.
value kubelet_configuration(const std::string& provider_id) {
  value k = value::record();
  const char* names[][2] = {{"CPUManagerPolicy", "cpuManagerPolicy"},
                            {"CPUCFSQuota", "cpuCFSQuota"},
                            {"CPUManagerPolicyOptions", "cpuManagerPolicyOptions"},
                            {"CPUManagerReconcilePeriod", "cpuManagerReconcilePeriod"},
                            {"MemoryManagerPolicy", "memoryManagerPolicy"},
                            {"TopologyManagerPolicy", "topologyManagerPolicy"},
                            {"TopologyManagerScope", "topologyManagerScope"},
                            {"TopologyManagerPolicyOptions", "topologyManagerPolicyOptions"},
                            {"ImageMinimumGCAge", "imageMinimumGCAge"},
                            {"ImageMaximumGCAge", "imageMaximumGCAge"},
                            {"ImageGCHighThresholdPercent", "imageGCHighThresholdPercent"},
                            {"ImageGCLowThresholdPercent", "imageGCLowThresholdPercent"},
                            {"ShutdownGracePeriod", "shutdownGracePeriod"},
                            {"ShutdownGracePeriodCriticalPods", "shutdownGracePeriodCriticalPods"},
                            {"AllowedUnsafeSysctls", "allowedUnsafeSysctls"},
                            {"ClusterDNS", "clusterDNS"},
                            {"MaxPods", "maxPods"},
                            {"ProviderID", "providerID"},
                            {"FailSwapOn", "failSwapOn"},
                            {"SystemReserved", "systemReserved"},
                            {"KubeReserved", "kubeReserved"},
                            {"EvictionHard", "evictionHard"},
                            {"RegisterWithTaints", "registerWithTaints"}};
  // Pointer fields (*bool, *int32, *metav1.Duration) are omitted only when nil.
  const std::string pointers =
      " CPUCFSQuota CPUManagerReconcilePeriod ImageMinimumGCAge ImageMaximumGCAge "
      "ImageGCHighThresholdPercent ImageGCLowThresholdPercent ShutdownGracePeriod "
      "ShutdownGracePeriodCriticalPods MaxPods FailSwapOn ";
  for (const auto& n : names) {
    field_options options = tag(n[1]);
    options.pointer = pointers.find(std::string(" ") + n[0] + " ") != std::string::npos;
    k.field(n[0], value(), options);
  }
  k.field("ProviderID", provider_id, tag("providerID"));
  return k;
}

value metadata() {
  value m = value::record();
  m.field("Hostname", "hostname-1")
      .field("InstanceID", "100")
      .field("InstanceUUID", "")
      .field("InstanceType", "t1.2VCPU-6GB")
      .field("ProviderID", "proxmox://test-region/100")
      .field("Region", "test-region")
      .field("Zone", "test-zone")
      .field("Tags", value::strings({"tag1", "tag2"}))
      .field("NodeClass", "node-class-1");
  return m;
}

value resources(int hugepages_1g, int hugepages_2m) {
  value r = value::record();
  r.field("CPU", 2, tag("cpu"))
      .field("Memory", 6144, tag("memory"))
      .field("Hugepages1Gi", hugepages_1g, tag("hugepages1Gi"))
      .field("Hugepages2Mi", hugepages_2m, tag("hugepages2Mi"));
  return r;
}

// The data of the Go provider's userdata test.
value userdata_values() {
  value kubelet = kubelet_configuration("proxmox://test-region/100");
  kubelet.field("AllowedUnsafeSysctls", value::strings({"kernel.msgmax", "kernel.shmmax"}),
                tag("allowedUnsafeSysctls"));
  kubelet.field("TopologyManagerPolicy", "best-effort", tag("topologyManagerPolicy"));
  kubelet.field("RegisterWithTaints", value::list({taint("example-key", "NoSchedule")}),
                tag("registerWithTaints"));
  value data = value::record();
  data.field("Metadata", metadata())
      .field("Resources", resources(1, 1024))
      .field("KubeletConfiguration", kubelet)
      .field("Values", value::string_map({{"SSHAuthorizedKeys",
                                           "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCu...,ssh-rsa "
                                           "AAAAB3NzaC1yc2EAAAADAQABAAABAQDk..."}}));
  return data;
}

TEST(GotemplateCloudConfig, UserDataWithKubeletConfigAndValuesDumpMatchesTheGoProvider) {
  const char* tmpl = R"(#cloud-config
hostname: {{ .Metadata.Hostname }}
fqdn: {{ .Metadata.Hostname }}.{{ .Metadata.Region }}
users:
  - name: admin
    sudo: ALL=(ALL) NOPASSWD:ALL
    {{- with get .Values "SSHAuthorizedKeys" }}
    ssh_authorized_keys:
      {{- toYaml (split . ",") | nindent 6 }}
    {{- end }}
write_files:
  {{- with .Resources.Hugepages2Mi }}
  - path: /etc/sysctl.d/90-hugepages.conf
    content: |
      vm.nr_hugepages = {{ . }}
  {{- end }}
  - path: /var/lib/kubelet/config.yaml
    content: |
      apiVersion: kubelet.config.k8s.io/v1beta1
      kind: KubeletConfiguration
      {{- .KubeletConfiguration | toYamlPretty | nindent 6 }}
{{- if hasTag .Metadata.Tags "tag2" }}
  - path: /etc/node-labels
    content: {{ join .Metadata.Tags "," | quote }}
{{- end }}
  - path: /etc/values.yaml
    content: |
      {{- . | toYamlPretty | nindent 6 }}
)";
  const char* expected = R"(#cloud-config
hostname: hostname-1
fqdn: hostname-1.test-region
users:
  - name: admin
    sudo: ALL=(ALL) NOPASSWD:ALL
    ssh_authorized_keys:
      - ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCu...
      - ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDk...
write_files:
  - path: /etc/sysctl.d/90-hugepages.conf
    content: |
      vm.nr_hugepages = 1024
  - path: /var/lib/kubelet/config.yaml
    content: |
      apiVersion: kubelet.config.k8s.io/v1beta1
      kind: KubeletConfiguration
      topologyManagerPolicy: best-effort
      allowedUnsafeSysctls:
        - kernel.msgmax
        - kernel.shmmax
      providerID: proxmox://test-region/100
      registerWithTaints:
        - key: example-key
          effect: NoSchedule
  - path: /etc/node-labels
    content: "tag1,tag2"
  - path: /etc/values.yaml
    content: |
      metadata:
        hostname: hostname-1
        instanceid: "100"
        instanceuuid: ""
        instancetype: t1.2VCPU-6GB
        providerid: proxmox://test-region/100
        region: test-region
        zone: test-zone
        tags:
          - tag1
          - tag2
        nodeclass: node-class-1
      resources:
        cpu: 2
        memory: 6144
        hugepages1Gi: 1
        hugepages2Mi: 1024
      kubeletconfiguration:
        topologyManagerPolicy: best-effort
        allowedUnsafeSysctls:
          - kernel.msgmax
          - kernel.shmmax
        providerID: proxmox://test-region/100
        registerWithTaints:
          - key: example-key
            effect: NoSchedule
      values:
        SSHAuthorizedKeys: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCu...,ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDk...
)";
  EXPECT_EQ(render(tmpl, userdata_values(), "user-data"), expected);
}

value interface_config(const std::string& name, const std::string& mac, bool dhcp4, bool slaac,
                       std::vector<std::string> address6, int mtu, const std::string& node6) {
  value i = value::record();
  i.field("Name", name, {.yaml_name = "name", .json_name = "", .omit_empty = false})
      .field("MacAddr", mac, tag("mac_address"))
      .field("DHCPv4", dhcp4, tag("dhcp4"))
      .field("DHCPv6", false, tag("dhcp6"))
      .field("SLAAC", slaac, tag("slaac"))
      .field("Address4", value(), tag("addresses4"))
      .field("Address6", address6.empty() ? value() : value::strings(address6), tag("addresses6"))
      .field("Gateway4", "", tag("gateway4"))
      .field("Gateway6", "", tag("gateway6"))
      .field("MTU", mtu, tag("mtu"))
      .field("NodeAddress4", "", tag("node_address4"))
      .field("NodeAddress6", node6, tag("node_address6"))
      .field("NodeGateway4", "", tag("node_gateway4"))
      .field("NodeGateway6", "", tag("node_gateway6"));
  return i;
}

TEST(GotemplateCloudConfig, K3sStyleNetworkConfigRangesOverInterfacesWithSlaac) {
  value network = value::record();
  network
      .field("Interfaces", value::list({interface_config("eth0", "BC:24:11:AA:BB:CC", true, true,
                                                         {}, 1500, "2001:db8:5::10/64"),
                                        interface_config("eth1", "BC:24:11:00:00:01", false, false,
                                                         {"fd60:172:16::5/64"}, 9000, "")}))
      .field("SearchDomains", value(), tag("search_domains"))
      .field("NameServers", value::strings({"1.1.1.1", "2606:4700:4700::1111"}),
             tag("name_servers"));
  const char* tmpl = R"(network:
  version: 2
  ethernets:
{{- range .Interfaces }}
    {{ .Name }}:
      match:
        macaddress: {{ .MacAddr | lower | quote }}
      dhcp4: {{ .DHCPv4 }}
{{- if ne .MTU 1500 }}
      mtu: {{ .MTU }}
{{- end }}
{{- range .Address6 }}
      addresses:
        - {{ . | quote }}
{{- end }}
{{- if .SLAAC }}
      addresses:
        - {{ .NodeAddress6 | cidrslaac .MacAddr | quote }}
      routes:
        - to: "::/0"
          via: {{ .NodeAddress6 | cidrhost | quote }}
{{- end }}
{{- end }}
{{- with .NameServers }}
  nameservers: {{ toJson . }}
{{- end }}
)";
  const char* expected = R"(network:
  version: 2
  ethernets:
    eth0:
      match:
        macaddress: "bc:24:11:aa:bb:cc"
      dhcp4: true
      addresses:
        - "2001:db8:5:0:be24:11ff:feaa:bbcc/64"
      routes:
        - to: "::/0"
          via: "2001:db8:5::10"
    eth1:
      match:
        macaddress: "bc:24:11:00:00:01"
      dhcp4: false
      mtu: 9000
      addresses:
        - "fd60:172:16::5/64"
  nameservers: ["1.1.1.1","2606:4700:4700::1111"]
)";
  EXPECT_EQ(render(tmpl, network, "network-config"), expected);
  EXPECT_EQ(
      render("{{ toYamlPretty (index .Interfaces 1) }}", network),
      "name: eth1\nmac_address: BC:24:11:00:00:01\naddresses6:\n  - fd60:172:16::5/64\nmtu: 9000");
}

value kubernetes_values() {
  value kubelet = kubelet_configuration("proxmox://region-1/101");
  kubelet.field("ClusterDNS", value::strings({"10.96.0.10"}), tag("clusterDNS"));
  kubelet.field("MaxPods", 110, pointer_tag("maxPods"));
  kubelet.field("FailSwapOn", false, pointer_tag("failSwapOn"));
  kubelet.field(
      "SystemReserved",
      value::string_map({{"cpu", "100m"}, {"memory", "256Mi"}, {"ephemeral-storage", "1Gi"}}),
      tag("systemReserved"));
  kubelet.field(
      "KubeReserved",
      value::string_map({{"memory", "512Mi"}, {"cpu", "200m"}, {"ephemeral-storage", "1Gi"}}),
      tag("kubeReserved"));
  kubelet.field("EvictionHard",
                value::string_map({{"memory.available", "100Mi"},
                                   {"nodefs.available", "10%"},
                                   {"imagefs.available", "15%"}}),
                tag("evictionHard"));
  kubelet.field("RegisterWithTaints",
                value::list({taint("karpenter.sh/unregistered", "NoExecute")}),
                tag("registerWithTaints"));
  value k8s = value::record();
  k8s.field("Version", "v1.31.2")
      .field("RootCA", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
      .field("BootstrapToken", "abcdef.0123456789abcdef")
      .field("KubeletConfiguration", kubelet);
  value data = value::record();
  data.field("Metadata", metadata())
      .field("Resources", resources(0, 512))
      .field("Kubernetes", k8s)
      .field("Values", value::string_map({{"machineToken", "tok"},
                                          {"clusterEndpoint", "https://api.example.com:6443"},
                                          {"clusterName", "proxmox"}}));
  return data;
}

TEST(GotemplateCloudConfig, TalosStyleMachineConfigEmbedsKubeletConfigAndEncodedCa) {
  const char* tmpl = R"(version: v1alpha1
machine:
  type: worker
  token: {{ .Values.machineToken }}
  kubelet:
    image: ghcr.io/siderolabs/kubelet:{{ .Kubernetes.Version }}
    extraConfig:
      {{- .Kubernetes.KubeletConfiguration | toYamlPretty | nindent 6 }}
  sysfs:
    {{- with .Resources.Hugepages1Gi }}
    devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages: {{ . }}
    {{- end }}
    {{- with .Resources.Hugepages2Mi }}
    devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages: {{ . }}
    {{- end }}
cluster:
  controlPlane:
    endpoint: {{ .Values.clusterEndpoint }}
  clusterName: {{ .Values.clusterName }}
  token: {{ .Kubernetes.BootstrapToken }}
  ca:
    crt: {{ .Kubernetes.RootCA | b64enc | quote }}
)";
  const char* expected = R"(version: v1alpha1
machine:
  type: worker
  token: tok
  kubelet:
    image: ghcr.io/siderolabs/kubelet:v1.31.2
    extraConfig:
      clusterDNS:
        - 10.96.0.10
      maxPods: 110
      providerID: proxmox://region-1/101
      failSwapOn: false
      systemReserved:
        cpu: 100m
        ephemeral-storage: 1Gi
        memory: 256Mi
      kubeReserved:
        cpu: 200m
        ephemeral-storage: 1Gi
        memory: 512Mi
      evictionHard:
        imagefs.available: 15%
        memory.available: 100Mi
        nodefs.available: 10%
      registerWithTaints:
        - key: karpenter.sh/unregistered
          effect: NoExecute
  sysfs:
    devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages: 512
cluster:
  controlPlane:
    endpoint: https://api.example.com:6443
  clusterName: proxmox
  token: abcdef.0123456789abcdef
  ca:
    crt: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
)";
  EXPECT_EQ(render(tmpl, kubernetes_values(), "user-data"), expected);
}

TEST(GotemplateCloudConfig, MultiLineValuesDumpAsLiteralBlocks) {
  value data = kubernetes_values();
  std::string out = render("{{ toYamlPretty .Kubernetes }}", data);
  EXPECT_EQ(out.substr(0, out.find("kubeletconfiguration:")),
            "version: v1.31.2\nrootca: |\n  -----BEGIN CERTIFICATE-----\n  MIIB\n  -----END "
            "CERTIFICATE-----\nbootstraptoken: abcdef.0123456789abcdef\n");
  EXPECT_EQ(render("{{ .Kubernetes.KubeletConfiguration.MaxPods }} {{ .Metadata.Tags }}", data),
            "110 [tag1 tag2]");
}

TEST(GotemplateCloudConfig, MetaDataTemplateSkipsEmptyFields) {
  value md = value::record();
  md.field("Hostname", "n1")
      .field("InstanceID", "101")
      .field("InstanceType", "")
      .field("Zone", "pve1");
  const char* tmpl = R"(hostname: {{ .Hostname }}
instance-id: {{ .InstanceID }}
{{- if .InstanceType }}
instance-type: {{ .InstanceType }}
{{- end }}
availability-zone: {{ .Zone }}
)";
  EXPECT_EQ(render(tmpl, md, "meta-data"),
            "hostname: n1\ninstance-id: 101\navailability-zone: pve1\n");
}

}  // namespace
}  // namespace kp::gotemplate
