{{- define "karpenter-proxmox.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "karpenter-proxmox.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "karpenter-proxmox.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "karpenter-proxmox.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "karpenter-proxmox.selectorLabels" -}}
app.kubernetes.io/name: {{ include "karpenter-proxmox.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "karpenter-proxmox.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "karpenter-proxmox.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "karpenter-proxmox.configSecretName" -}}
{{- default (include "karpenter-proxmox.fullname" .) .Values.existingConfigSecret }}
{{- end }}

{{- /* Where bootstrap token Secrets live (SYSTEM_NAMESPACE): kube-system unless overridden. */ -}}
{{- define "karpenter-proxmox.systemNamespace" -}}
{{- default "kube-system" .Values.systemNamespace }}
{{- end }}

{{- /* TEMPLATE_SECRET_NAMESPACES in force, comma-separated: the value when set, else the system
namespace and the release namespace (the controller's own default). */ -}}
{{- define "karpenter-proxmox.templateSecretNamespaces" -}}
{{- if .Values.templateSecretNamespaces }}
{{- .Values.templateSecretNamespaces | uniq | join "," }}
{{- else }}
{{- list (include "karpenter-proxmox.systemNamespace" .) .Release.Namespace | uniq | join "," }}
{{- end }}
{{- end }}
