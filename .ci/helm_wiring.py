"""Asserts the chart's wiring from rendered YAML: default render (a trial: mail to files), full
render (every option, existingSecret, an in-cluster object store), production render (chart's
Secret, SMTP, AWS S3, LoadBalancer)."""
import base64
import json
import sys

import yaml


def load(path):
    with open(path) as f:
        return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(f) if d}


def container(doc):
    return doc["spec"]["template"]["spec"]["containers"][0]


def check_security(doc):
    pod = doc["spec"]["template"]["spec"]
    sec = container(doc)["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] is True, doc["metadata"]["name"]
    assert sec["readOnlyRootFilesystem"] is True and sec["allowPrivilegeEscalation"] is False
    assert sec["capabilities"]["drop"] == ["ALL"]
    assert pod["automountServiceAccountToken"] is False


def env_names(doc):
    c = container(doc)
    return {e["name"] for e in c.get("env", [])}, [e["configMapRef"]["name"] for e in c.get("envFrom", [])]


def secret_refs(doc):
    """env name -> its secretKeyRef, for every variable taken from a Secret."""
    return {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container(doc).get("env", [])
            if "secretKeyRef" in e.get("valueFrom", {})}


def port(doc, name):
    return next(p["containerPort"] for p in container(doc)["ports"] if p["name"] == name)


def config_keys(rendered, doc):
    """Every variable name a container gets: env, plus the keys of each envFrom source."""
    c = container(doc)
    keys = {e["name"] for e in c.get("env", [])}
    for source in c.get("envFrom", []):
        assert set(source) <= {"configMapRef", "prefix"}, f"envFrom {source}: only the ConfigMap, never the Secret"
        keys |= set(rendered[("ConfigMap", source["configMapRef"]["name"])]["data"])
    return keys


def check_no_jwt_secret(rendered, worker):
    """The worker never signs sessions: JWT_SECRET reaches it by no path at all."""
    assert "JWT_SECRET" not in json.dumps(worker), "JWT_SECRET named in the worker Deployment"
    assert "JWT_SECRET" not in config_keys(rendered, worker), "JWT_SECRET in an envFrom source"
    pod = worker["spec"]["template"]["spec"]
    assert not any("secret" in v or "projected" in v for v in pod.get("volumes", [])), "no Secret mounted"
    for c in pod["containers"] + pod.get("initContainers", []):
        assert all("secretRef" not in s for s in c.get("envFrom", [])), "no whole Secret in envFrom"


def check_scrape(doc, port_name):
    annotations = doc["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true", annotations
    assert annotations["prometheus.io/path"] == "/metrics", annotations
    assert annotations["prometheus.io/port"] == str(port(doc, port_name)), (annotations, port_name)


def check_metrics_off_ingress(rendered):
    """/metrics has a port of its own, reachable through no Ingress and no public Service."""
    api = rendered[("Deployment", "sd-supportdesk-api")]
    metrics, http = port(api, "metrics"), port(api, "http")
    assert metrics != http
    bind = {e["name"]: e.get("value") for e in container(api)["env"]}["METRICS_BIND"]
    assert bind == f"0.0.0.0:{metrics}", bind
    check_scrape(api, "metrics")
    # The public Service (whatever its type) lists the http port alone.
    public = rendered[("Service", "sd-supportdesk-api")]
    assert [p["targetPort"] for p in public["spec"]["ports"]] == ["http"], public["spec"]["ports"]
    # The metrics Service: in-cluster, per pod, to the metrics port only.
    scrape = rendered[("Service", "sd-supportdesk-api-metrics")]["spec"]
    assert scrape["type"] == "ClusterIP" and scrape["clusterIP"] == "None", scrape
    assert [(p["port"], p["targetPort"]) for p in scrape["ports"]] == [(metrics, "metrics")], scrape["ports"]
    # Every Ingress backend resolves, through its Service, to the container's http port.
    for (kind, _), ingress in rendered.items():
        if kind != "Ingress":
            continue
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                service = rendered[("Service", backend["name"])]
                wanted = backend["port"]
                svc_port = next((p for p in service["spec"]["ports"]
                                 if p.get("name") == wanted.get("name") or p["port"] == wanted.get("number")), None)
                assert svc_port, f"Ingress backend {backend} is no port of its Service"
                target = svc_port["targetPort"]
                assert target in ("http", http) and target not in ("metrics", metrics), (path, svc_port)
                assert wanted.get("number") != metrics and wanted.get("name") != "metrics", path


STORAGE_SETTINGS = {"STORAGE_URL", "S3_REGION", "S3_ALLOW_HTTP", "STORAGE_WORKSPACE_QUOTA_BYTES"}
STORAGE_KEYS = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
# The keys helm-check passes as storage.s3.accessKeyId / secretAccessKey.
ACCESS_KEY_ID, SECRET_ACCESS_KEY = "AKIDEXAMPLE", "wJalrXUtnFEMI-EXAMPLEKEY"


def check_storage(rendered, secret_name, expected):
    """Attachments: the API and the worker get the store's settings from the ConfigMap and its
    keys from the Secret, required, one secretKeyRef each; the keys are nowhere else."""
    config = rendered[("ConfigMap", "sd-supportdesk-config")]["data"]
    for name, value in expected.items():
        assert config.get(name) == value, (name, config.get(name), value)
    assert not STORAGE_KEYS & set(config), "the store's keys never go in the ConfigMap"
    for doc in rendered.values():
        if doc["kind"] in ("Secret",):
            continue
        text = json.dumps(doc)
        assert ACCESS_KEY_ID not in text and SECRET_ACCESS_KEY not in text, f"a key in {doc['kind']} {doc['metadata']['name']}"
    for component in ("api", "worker"):
        doc = rendered[("Deployment", f"sd-supportdesk-{component}")]
        assert STORAGE_SETTINGS <= config_keys(rendered, doc), (component, STORAGE_SETTINGS - config_keys(rendered, doc))
        refs = secret_refs(doc)
        for key in STORAGE_KEYS:
            assert refs[key] == {"name": secret_name, "key": key}, (component, refs.get(key))
        plain = {e["name"] for e in container(doc)["env"] if "value" in e}
        assert not STORAGE_KEYS & plain, (component, "keys only from the Secret")
    # The migration Job reads the settings (they are validated at start) but stores nothing.
    job = rendered[("Job", "sd-supportdesk-migrate")]
    assert "STORAGE_URL" in config_keys(rendered, job)
    assert not STORAGE_KEYS & set(secret_refs(job)), "the migration Job holds no storage keys"
    secret = rendered.get(("Secret", secret_name))
    if secret is not None:
        data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
        assert (data["AWS_ACCESS_KEY_ID"], data["AWS_SECRET_ACCESS_KEY"]) == (ACCESS_KEY_ID, SECRET_ACCESS_KEY)


def check_worker_env(rendered, worker, smtp_optional):
    keys = config_keys(rendered, worker)
    needs = {"ConnectionStrings__DefaultConnection", "REDIS_URL", "EMAIL_TOKEN_SECRET", "SMTP_URL",
             "MAIL_FROM", "APP_URL", "REDIS_NAMESPACE", "ASPNETCORE_ENVIRONMENT", "RUST_LOG",
             "WORKER_HEALTH_PORT", "WORKER_CONCURRENCY", "SPARE_SCHEMAS"} | STORAGE_SETTINGS | STORAGE_KEYS
    assert needs <= keys, needs - keys
    refs = secret_refs(worker)
    assert set(refs) == {"ConnectionStrings__DefaultConnection", "REDIS_URL", "EMAIL_TOKEN_SECRET", "SMTP_URL"} | STORAGE_KEYS, refs
    # The worker refuses to start without EMAIL_TOKEN_SECRET; SMTP_URL may be absent only when
    # files were asked for (smtp.fileTransportForTrials).
    assert not refs["EMAIL_TOKEN_SECRET"].get("optional", False)
    assert refs["SMTP_URL"].get("optional", False) is smtp_optional, refs["SMTP_URL"]
    check_no_jwt_secret(rendered, worker)
    check_scrape(worker, "health")


default, full, prod = (load(path) for path in sys.argv[1:4])

api = default[("Deployment", "sd-supportdesk-api")]
c = container(api)
assert c["args"] == ["serve", "--bind", "0.0.0.0:5000"], c["args"]
assert port(api, "http") == 5000 and port(api, "metrics") == 9464
for probe in ("readinessProbe", "livenessProbe"):
    assert c[probe]["httpGet"] == {"path": "/healthz", "port": "http"}, probe
names, config_maps = env_names(api)
assert {"ConnectionStrings__DefaultConnection", "JWT_SECRET", "EMAIL_TOKEN_SECRET", "REDIS_URL", "METRICS_BIND"} | STORAGE_KEYS <= names, names
assert "SMTP_URL" not in names, "the API never talks to SMTP: no mail credentials in it"
assert not secret_refs(api)["EMAIL_TOKEN_SECRET"].get("optional", False), "the worker's key must be the API's"
assert config_maps == ["sd-supportdesk-config"]
check_security(api)
assert c["resources"]["requests"] and c["resources"]["limits"]

config = default[("ConfigMap", "sd-supportdesk-config")]["data"]
assert config["RUN_MIGRATIONS_ON_STARTUP"] == "false"
assert config["ASPNETCORE_ENVIRONMENT"] == "Production"
assert config["MAIL_TRANSPORT"] == "file", "the trial render asked for files"
for rendered in (full, prod):
    assert "MAIL_TRANSPORT" not in rendered[("ConfigMap", "sd-supportdesk-config")]["data"], "files only when asked"
assert prod[("ConfigMap", "sd-supportdesk-config")]["data"]["TRUSTED_PROXIES"] == "10.244.0.0/16"

worker = default[("Deployment", "sd-supportdesk-worker")]
w = container(worker)
assert w["command"] == ["/usr/local/bin/supportdesk-worker"]
assert w["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
assert port(worker, "health") == 5001
worker_env = {e["name"]: e.get("value") for e in w["env"]}
assert worker_env["WORKER_HEALTH_PORT"] == "5001"
assert worker_env["SPARE_SCHEMAS"] == "20", "the worker keeps spare schemas by default"
assert worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > 25, "longer than the drain"
check_security(worker)
check_worker_env(default, worker, smtp_optional=True)
for rendered in (full, prod):
    check_worker_env(rendered, rendered[("Deployment", "sd-supportdesk-worker")], smtp_optional=False)

# Attachments: an S3 bucket (AWS S3 by default, https only), 10 GB per workspace; in the full
# render an in-cluster store over http, its keys in the existing Secret.
storage_defaults = {"STORAGE_URL": "s3://supportdesk-files", "S3_REGION": "us-east-1", "S3_ALLOW_HTTP": "false",
                    "STORAGE_WORKSPACE_QUOTA_BYTES": "10000000000"}
for rendered in (default, prod):
    check_storage(rendered, "sd-supportdesk-secrets", storage_defaults)
    assert "S3_ENDPOINT" not in rendered[("ConfigMap", "sd-supportdesk-config")]["data"], "empty: AWS S3"
check_storage(full, "sd-secrets", {"STORAGE_URL": "s3://supportdesk/desk", "S3_ENDPOINT": "http://minio.storage.svc:9000",
                                   "S3_ALLOW_HTTP": "true", "STORAGE_WORKSPACE_QUOTA_BYTES": "5000000000"})

job = default[("Job", "sd-supportdesk-migrate")]
hooks = job["metadata"]["annotations"]
assert hooks["helm.sh/hook"] == "pre-install,pre-upgrade"
assert container(job)["args"][0] == "migrate"
assert {"ConnectionStrings__DefaultConnection", "JWT_SECRET"} <= env_names(job)[0], "the API's settings"
check_security(job)
for kind, name in (("Secret", "sd-supportdesk-secrets"), ("ConfigMap", "sd-supportdesk-config")):
    annotations = default[(kind, name)]["metadata"]["annotations"]
    assert int(annotations["helm.sh/hook-weight"]) < int(hooks["helm.sh/hook-weight"]), "exists before the Job"

secret = default[("Secret", "sd-supportdesk-secrets")]["data"]
assert len(secret["JWT_SECRET"]) >= 40, "a generated JWT secret, never a default"
assert len(secret["EMAIL_TOKEN_SECRET"]) >= 40, "a generated email-token secret, never a default"
# The email channel: the MTA's token, generated, reaches the API only (optional, so an existing
# Secret without it leaves POST /inbound/email off); its domain only when set.
assert len(secret["INBOUND_EMAIL_SECRET"]) >= 40, "a generated inbound-email secret, never a default"
assert secret_refs(api)["INBOUND_EMAIL_SECRET"].get("optional") is True
assert "INBOUND_EMAIL_SECRET" not in json.dumps(worker) and "INBOUND_EMAIL_SECRET" not in json.dumps(job)
assert "INBOUND_EMAIL_DOMAIN" not in config, "empty: APP_URL's host"
assert full[("ConfigMap", "sd-supportdesk-config")]["data"]["INBOUND_EMAIL_DOMAIN"] == "in.desk.example.com"
assert "SMTP_URL" in prod[("Secret", "sd-supportdesk-secrets")]["data"]
# Webhooks: https to public addresses by default; ranges the operator lets through, for the
# API (saving endpoints) and the worker (connecting), both reading the ConfigMap.
assert config["WEBHOOK_ALLOW_HTTP"] == "false" and config["WEBHOOK_ALLOWED_PRIVATE_RANGES"] == ""
full_config = full[("ConfigMap", "sd-supportdesk-config")]["data"]
assert full_config["WEBHOOK_ALLOWED_PRIVATE_RANGES"] == "10.96.0.0/12,fd00::/8"

service = default[("Service", "sd-supportdesk-api")]
assert service["spec"]["ports"][0]["targetPort"] == "http"
assert ("PodDisruptionBudget", "sd-supportdesk-api") in default
assert ("Ingress", "sd-supportdesk-api") not in default and ("HorizontalPodAutoscaler", "sd-supportdesk-api") not in default
for rendered in (default, full, prod):
    check_metrics_off_ingress(rendered)
assert prod[("Service", "sd-supportdesk-api")]["spec"]["type"] == "LoadBalancer"

# Every optional feature on, with an existing Secret.
assert ("Secret", "sd-supportdesk-secrets") not in full, "existingSecret: no generated Secret"
full_api = full[("Deployment", "sd-supportdesk-api")]
refs = {e["valueFrom"]["secretKeyRef"]["name"] for e in container(full_api)["env"] if "valueFrom" in e}
assert refs == {"sd-secrets"}, refs
assert "replicas" not in full_api["spec"], "the HPA owns replicas"
hpa = full[("HorizontalPodAutoscaler", "sd-supportdesk-api")]
assert hpa["spec"]["scaleTargetRef"]["name"] == "sd-supportdesk-api"
ingress = full[("Ingress", "sd-supportdesk-api")]
paths = [p["path"] for p in ingress["spec"]["rules"][0]["http"]["paths"]]
assert "/hubs/chat" in paths and "/" in paths
assert ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
assert ("Ingress", "sd-supportdesk-api") in prod

# The chat widget: its own Deployment and Service, probes on /healthz, PORT 3000, the API's
# address at run time; with its Ingress on, the API allows its origin (WIDGET_URL).
widget = default[("Deployment", "sd-supportdesk-widget")]
wc = container(widget)
assert port(widget, "http") == 3000
for probe in ("readinessProbe", "livenessProbe"):
    assert wc[probe]["httpGet"]["path"] == "/healthz", probe
widget_env = {e["name"]: e.get("value") for e in wc["env"]}
assert widget_env["PORT"] == "3000"
assert {"NEXT_PUBLIC_API_URL", "NEXT_PUBLIC_SIGNALR_URL"} <= set(widget_env), widget_env
assert widget_env["NEXT_PUBLIC_SIGNALR_URL"].endswith("/hubs/chat"), widget_env
assert "JWT_SECRET" not in widget_env and not secret_refs(widget), "the widget holds no secret"
check_security(widget)
assert ("Service", "sd-supportdesk-widget") in default
assert ("Ingress", "sd-supportdesk-widget") not in default
assert "WIDGET_URL" not in default[("ConfigMap", "sd-supportdesk-config")]["data"]
widget_ingress = full[("Ingress", "sd-supportdesk-widget")]
host = widget_ingress["spec"]["rules"][0]["host"]
assert full[("ConfigMap", "sd-supportdesk-config")]["data"]["WIDGET_URL"] == f"https://{host}"

# The dashboard likewise; APP_URL (emailed links, CORS) defaults to its host.
dashboard = default[("Deployment", "sd-supportdesk-dashboard")]
dc = container(dashboard)
assert port(dashboard, "http") == 3000
for probe in ("readinessProbe", "livenessProbe"):
    assert dc[probe]["httpGet"]["path"] == "/healthz", probe
dashboard_env = {e["name"]: e.get("value") for e in dc["env"]}
assert dashboard_env["PORT"] == "3000"
assert {"NEXT_PUBLIC_API_URL", "NEXT_PUBLIC_SIGNALR_URL", "NEXT_PUBLIC_WIDGET_URL"} <= set(dashboard_env)
assert not secret_refs(dashboard), "the dashboard holds no secret"
check_security(dashboard)
assert ("Service", "sd-supportdesk-dashboard") in default
assert config["APP_URL"] == "https://support.example.com", config["APP_URL"]
assert full[("Deployment", "sd-supportdesk-dashboard")]
full_dashboard_env = {e["name"]: e.get("value") for e in container(full[("Deployment", "sd-supportdesk-dashboard")])["env"]}
assert full_dashboard_env["NEXT_PUBLIC_WIDGET_URL"] == f"https://{host}", "the embed snippet names the widget's host"
print("wiring: ok")
