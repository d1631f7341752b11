#include "core/cloudinit/default_templates.hpp"

namespace kp::cloudinit {

const std::string_view default_user_data = R"(#cloud-config
hostname: {{ .Metadata.Hostname }}
manage_etc_hosts: true
{{- with get .Values "SSHAuthorizedKeys" }}
ssh_authorized_keys:
  {{- toYaml (split . ",") | nindent 2 }}
{{- end }}
write_files:
  - path: /var/lib/kubelet/bootstrap-kubeconfig
    permissions: "0600"
    content: |
      apiVersion: v1
      kind: Config
      clusters:
        - name: kubernetes
          cluster:
            server: {{ .Kubernetes.Endpoint }}
            certificate-authority-data: {{ .Kubernetes.RootCA | b64enc }}
      contexts:
        - name: kubelet-bootstrap@kubernetes
          context:
            cluster: kubernetes
            user: kubelet-bootstrap
      current-context: kubelet-bootstrap@kubernetes
      users:
        - name: kubelet-bootstrap
          user:
            token: {{ .Kubernetes.BootstrapToken }}
  - path: /var/lib/kubelet/config.yaml
    permissions: "0644"
    content: |
      apiVersion: kubelet.config.k8s.io/v1beta1
      kind: KubeletConfiguration
      authentication:
        anonymous:
          enabled: false
        webhook:
          enabled: true
        x509:
          clientCAFile: /etc/kubernetes/pki/ca.crt
      authorization:
        mode: Webhook
      rotateCertificates: true
      {{- .Kubernetes.KubeletConfiguration | toYamlPretty | nindent 6 }}
  - path: /etc/kubernetes/pki/ca.crt
    permissions: "0644"
    content: |
      {{- .Kubernetes.RootCA | trim | nindent 6 }}
  - path: /etc/default/kubelet
    permissions: "0644"
    content: |
      KUBELET_EXTRA_ARGS="--bootstrap-kubeconfig=/var/lib/kubelet/bootstrap-kubeconfig --kubeconfig=/var/lib/kubelet/kubeconfig --config=/var/lib/kubelet/config.yaml --hostname-override={{ .Metadata.Hostname }}{{ with .Kubernetes.NodeLabels }} --node-labels={{ . }}{{ end }}"
runcmd:
  - [systemctl, daemon-reload]
  - [systemctl, enable, --now, kubelet]
)";

const std::string_view default_meta_data = R"(instance-id: {{ .InstanceID }}
local-hostname: {{ .Hostname }}
hostname: {{ .Hostname }}
instance-type: {{ .InstanceType }}
provider-id: {{ .ProviderID }}
region: {{ .Region }}
zone: {{ .Zone }}
availability-zone: {{ .Zone }}
)";

const std::string_view default_network_config = R"(version: 2
ethernets:
{{- range .Interfaces }}
  {{ .Name }}:
    match:
      macaddress: {{ lower .MacAddr | quote }}
    set-name: {{ .Name }}
    mtu: {{ .MTU }}
    dhcp4: {{ .DHCPv4 }}
    dhcp6: {{ .DHCPv6 }}
    {{- if or .Address4 .Address6 }}
    addresses:
      {{- range .Address4 }}
      - {{ . }}
      {{- end }}
      {{- range .Address6 }}
      - {{ . | quote }}
      {{- end }}
    {{- end }}
    {{- if or .Gateway4 .Gateway6 }}
    routes:
      {{- with .Gateway4 }}
      - to: 0.0.0.0/0
        via: {{ . }}
      {{- end }}
      {{- with .Gateway6 }}
      - to: "::/0"
        via: {{ . | quote }}
      {{- end }}
    {{- end }}
    {{- if or $.NameServers $.SearchDomains }}
    nameservers:
      {{- with $.NameServers }}
      addresses:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $.SearchDomains }}
      search:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
{{- end }}
)";

}  // namespace kp::cloudinit
