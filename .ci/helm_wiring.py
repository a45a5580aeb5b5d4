"""Asserts the chart's wiring from rendered YAML: default render, then full render."""
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


default, full = load(sys.argv[1]), load(sys.argv[2])

api = default[("Deployment", "sd-supportdesk-api")]
c = container(api)
assert c["args"] == ["serve", "--bind", "0.0.0.0:5000"], c["args"]
assert c["ports"][0]["containerPort"] == 5000
for probe in ("readinessProbe", "livenessProbe"):
    assert c[probe]["httpGet"] == {"path": "/healthz", "port": "http"}, probe
names, config_maps = env_names(api)
assert {"ConnectionStrings__DefaultConnection", "JWT_SECRET", "REDIS_URL", "SMTP_URL"} <= names, names
assert config_maps == ["sd-supportdesk-config"]
check_security(api)
assert c["resources"]["requests"] and c["resources"]["limits"]

config = default[("ConfigMap", "sd-supportdesk-config")]["data"]
assert config["RUN_MIGRATIONS_ON_STARTUP"] == "false"
assert config["ASPNETCORE_ENVIRONMENT"] == "Production"

worker = default[("Deployment", "sd-supportdesk-worker")]
w = container(worker)
assert w["command"] == ["/usr/local/bin/supportdesk-worker"]
assert w["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
assert w["ports"][0]["containerPort"] == 5001
assert {"WORKER_HEALTH_PORT", "JWT_SECRET"} <= env_names(worker)[0]
assert worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > 25, "longer than the drain"
check_security(worker)

job = default[("Job", "sd-supportdesk-migrate")]
hooks = job["metadata"]["annotations"]
assert hooks["helm.sh/hook"] == "pre-install,pre-upgrade"
assert container(job)["args"][0] == "migrate"
check_security(job)
for kind, name in (("Secret", "sd-supportdesk-secrets"), ("ConfigMap", "sd-supportdesk-config")):
    annotations = default[(kind, name)]["metadata"]["annotations"]
    assert int(annotations["helm.sh/hook-weight"]) < int(hooks["helm.sh/hook-weight"]), "exists before the Job"

secret = default[("Secret", "sd-supportdesk-secrets")]["data"]
assert len(secret["JWT_SECRET"]) >= 40, "a generated JWT secret, never a default"

service = default[("Service", "sd-supportdesk-api")]
assert service["spec"]["ports"][0]["targetPort"] == "http"
assert ("PodDisruptionBudget", "sd-supportdesk-api") in default
assert ("Ingress", "sd-supportdesk-api") not in default and ("HorizontalPodAutoscaler", "sd-supportdesk-api") not in default

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
print("wiring: ok")
