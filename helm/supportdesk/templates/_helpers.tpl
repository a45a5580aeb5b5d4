{{- define "supportdesk.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "supportdesk.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "supportdesk.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "supportdesk.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "supportdesk.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-secrets" (include "supportdesk.fullname" .)) -}}
{{- end -}}

{{/* Non-root, read-only, no privileges: for every container. */}}
{{- define "supportdesk.containerSecurity" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  readOnlyRootFilesystem: true
  allowPrivilegeEscalation: false
  capabilities:
    drop: ["ALL"]
  seccompProfile:
    type: RuntimeDefault
{{- end -}}

{{- define "supportdesk.podSecurity" -}}
securityContext:
  runAsNonRoot: true
  fsGroup: 10001
  seccompProfile:
    type: RuntimeDefault
{{- end -}}

{{/* Settings every process reads: the ConfigMap and the Secret. */}}
{{- define "supportdesk.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "supportdesk.fullname" . }}-config
env:
  - name: ConnectionStrings__DefaultConnection
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" . }}, key: ConnectionStrings__DefaultConnection }
  - name: JWT_SECRET
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" . }}, key: JWT_SECRET }
  - name: EMAIL_TOKEN_SECRET
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" . }}, key: EMAIL_TOKEN_SECRET, optional: true }
  - name: REDIS_URL
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" . }}, key: REDIS_URL }
  - name: SMTP_URL
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" . }}, key: SMTP_URL, optional: true }
{{- end -}}
