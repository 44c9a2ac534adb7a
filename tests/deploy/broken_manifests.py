"""Manifests broken on purpose, one rule each: every one must be rejected by the checks
(tests/deploy/check_manifests.py negative)."""
from manifest_rules import pod_spec


def find(objs, kind, name):
    return next(o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name)


def container(objs, kind, name, index=0):
    obj = find(objs, kind, name)
    return pod_spec(obj)["containers"][index]


# Each breaks one rule; the check must name it (the second field is a piece of the message).
def _set(path_fn, key, value):
    def mutate(objs):
        path_fn(objs)[key] = value
    return mutate


BROKEN = [
    ("root filesystem writable", "readOnlyRootFilesystem",
     lambda o: container(o, "StatefulSet", "gpucost")["securityContext"].pop(
         "readOnlyRootFilesystem")),
    ("privilege escalation", "allowPrivilegeEscalation",
     _set(lambda o: container(o, "CronJob", "gpucost-alerts")["securityContext"],
          "allowPrivilegeEscalation", True)),
    ("a capability added", "adds capabilities",
     _set(lambda o: container(o, "DaemonSet", "gpucost-agent")["securityContext"]["capabilities"],
          "add", ["SYS_ADMIN"])),
    ("root in the restricted namespace", "may run as root",
     lambda o: pod_spec(find(o, "StatefulSet", "gpucost"))["securityContext"].pop("runAsNonRoot")),
    ("no seccomp profile", "seccomp",
     lambda o: pod_spec(find(o, "StatefulSet", "gpucost"))["securityContext"].pop(
         "seccompProfile")),
    ("a host path beyond the agent's two", "host path /var/run",
     lambda o: pod_spec(find(o, "DaemonSet", "gpucost-agent"))["volumes"].append(
         {"name": "run", "hostPath": {"path": "/var/run"}})),
    ("a writable host path", "writable",
     _set(lambda o: container(o, "DaemonSet", "gpucost-agent")["volumeMounts"][0],
          "readOnly", False)),
    ("a write verb", "only get, list and watch",
     lambda o: find(o, "ClusterRole", "gpucost-reader")["rules"][0]["verbs"].append("delete")),
    ("a wildcard", "grants *",
     lambda o: find(o, "ClusterRole", "gpucost-reader")["rules"].append(
         {"apiGroups": [""], "resources": ["*"], "verbs": ["get"]})),
    ("a probe on a path serve lacks", "does not serve",
     _set(lambda o: container(o, "StatefulSet", "gpucost")["readinessProbe"]["httpGet"],
          "path", "/ready")),
    ("a probe on a port the container lacks", "is not a container port",
     _set(lambda o: container(o, "DaemonSet", "gpucost-agent")["livenessProbe"]["httpGet"],
          "port", "http")),
    ("a Service port no pod has", "targetPort",
     lambda o: find(o, "Service", "gpucost")["spec"]["ports"][0].update(targetPort="metrics")),
    ("a ServiceMonitor port the Service lacks", "is no port of its Service",
     lambda o: find(o, "ServiceMonitor", "gpucost")["spec"]["endpoints"][0].update(
         port="metrics")),
    ("a PodMonitor selecting nothing", "selects no pod",
     lambda o: find(o, "PodMonitor", "gpucost-agent")["spec"]["selector"].update(
         matchLabels={"app.kubernetes.io/name": "gpu-agent"})),
    ("a flag serve does not have", "is not a flag",
     lambda o: container(o, "StatefulSet", "gpucost")["args"].append("--ledger-path=/x")),
    ("an agent flag it does not have", "is not a flag",
     lambda o: container(o, "DaemonSet", "gpucost-agent")["args"].append("--port=9402")),
    ("a configuration key that is no flag", "configuration key",
     lambda o: find(o, "ConfigMap", "gpucost-config")["data"].update(
         {"serve.yaml": find(o, "ConfigMap", "gpucost-config")["data"]["serve.yaml"] +
          "\nlisten-port: 9464\n"})),
    ("another version's image", "not version",
     _set(lambda o: container(o, "StatefulSet", "gpucost"), "image",
          "ghcr.io/gpucost/gpucost:0.0.9")),
    ("an image from elsewhere", "neither ours",
     _set(lambda o: container(o, "CronJob", "gpucost-chargeback"), "image", "debian:12")),
    ("a missing Secret", "Secret gpucost-tokens does not exist",
     lambda o: pod_spec(find(o, "StatefulSet", "gpucost"))["volumes"][1]["secret"].update(
         secretName="gpucost-tokens")),
    ("a claim no StatefulSet makes", "volume claim",
     lambda o: pod_spec(find(o, "CronJob", "gpucost-alerts"))["volumes"][0][
         "persistentVolumeClaim"].update(claimName="ledger-gpucost-1")),
    ("a namespace not restricted", "not restricted",
     lambda o: find(o, "Namespace", "gpucost")["metadata"]["labels"].update(
         {"pod-security.kubernetes.io/enforce": "baseline"})),
    ("an object without a namespace", "has no namespace",
     lambda o: find(o, "Service", "gpucost")["metadata"].pop("namespace")),
    ("a missing service account", "service account",
     _set(lambda o: pod_spec(find(o, "StatefulSet", "gpucost")), "serviceAccountName",
          "gpucost-serve")),
]
