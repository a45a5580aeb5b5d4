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

{{/*
Settings a container reads: the whole ConfigMap (nothing secret in it), then only the Secret
keys it needs, one secretKeyRef each (never envFrom the Secret): the worker must not hold
JWT_SECRET, and the API never talks to SMTP. `keys` are required (a missing key stops the pod
with the key's name in its events); `optional` ones may be absent from an existing Secret.
usage: include "supportdesk.env" (dict "root" . "keys" (list ...) "optional" (list ...))
*/}}
{{- define "supportdesk.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "supportdesk.fullname" .root }}-config
env:
{{- range .keys }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef: { name: {{ include "supportdesk.secretName" $.root }}, key: {{ . }}{{ if has . ($.optional | default (list)) }}, optional: true{{ end }} }
{{- end }}
{{- end -}}

{{/* The API's secrets; the migration Job runs the same binary with the same settings. */}}
{{- define "supportdesk.apiSecretKeys" -}}
{{- list "ConnectionStrings__DefaultConnection" "JWT_SECRET" "EMAIL_TOKEN_SECRET" "REDIS_URL" | toJson -}}
{{- end -}}

{{/* The object store's credentials: the API and the worker read and delete attachments. */}}
{{- define "supportdesk.storageSecretKeys" -}}
{{- list "AWS_ACCESS_KEY_ID" "AWS_SECRET_ACCESS_KEY" | toJson -}}
{{- end -}}

{{/*
Attachments live in an S3-compatible store that every API and worker pod reaches: refuse, with
the fix named, what would leave them nowhere or fail at start (values.schema.json checks the
shapes; these say why, even with --skip-schema-validation).
*/}}
{{- define "supportdesk.storageChecks" -}}
{{- $url := trim (.Values.storage.url | default "") }}
{{- if not $url }}
{{- fail "storage.url is empty: set storage.url=s3://BUCKET (or s3://BUCKET/PREFIX) on an S3-compatible store (AWS S3, MinIO, Cloudflare R2, Ceph RGW), with its keys (and storage.s3.endpoint for a store other than AWS S3); the chart has no local-disk option, since the API and worker pods share no disk" }}
{{- end }}
{{- if not (regexMatch "^s3://[^/\\s]+(/\\S*)?$" $url) }}
{{- fail (printf "storage.url %q is not s3://BUCKET[/PREFIX]: attachments must be in an object store that every API and worker pod reaches (a file:// directory would be one pod's disk)" $url) }}
{{- end }}
{{- if and (hasPrefix "http://" (.Values.storage.s3.endpoint | default "")) (not .Values.storage.s3.allowHttp) }}
{{- fail "storage.s3.endpoint is plain http: set storage.s3.allowHttp=true for a store inside the cluster, or use its https:// address" }}
{{- end }}
{{- if and .Values.existingSecret (or .Values.storage.s3.accessKeyId .Values.storage.s3.secretAccessKey) }}
{{- fail "storage.s3.accessKeyId and storage.s3.secretAccessKey would be ignored with existingSecret: put them in that Secret as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and unset them here" }}
{{- end }}
{{- end -}}

{{/* Prometheus' conventional scrape annotations, for pods serving /metrics on `port`. */}}
{{- define "supportdesk.scrapeAnnotations" -}}
prometheus.io/scrape: "true"
prometheus.io/port: {{ . | quote }}
prometheus.io/path: /metrics
{{- end -}}

{{/*
The widget's public address (WIDGET_URL): config.widgetUrl, else the widget's Ingress host.
*/}}
{{- define "supportdesk.widgetUrl" -}}
{{- if .Values.config.widgetUrl -}}
{{- .Values.config.widgetUrl -}}
{{- else if and .Values.widget.enabled .Values.widget.ingress.enabled .Values.widget.ingress.host -}}
{{- printf "https://%s" .Values.widget.ingress.host -}}
{{- end -}}
{{- end }}

{{/*
The dashboard's public address (APP_URL, the base of emailed links): config.appUrl, else the
dashboard's Ingress host.
*/}}
{{- define "supportdesk.appUrl" -}}
{{- if .Values.config.appUrl -}}
{{- .Values.config.appUrl -}}
{{- else if and .Values.dashboard.enabled .Values.dashboard.ingress.host -}}
{{- printf "https://%s" .Values.dashboard.ingress.host -}}
{{- else -}}
{{- fail "config.appUrl is required unless the dashboard has an Ingress host (dashboard.ingress.host)" -}}
{{- end -}}
{{- end }}
