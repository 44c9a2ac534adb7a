"""The structural checks of rendered Kubernetes manifests (tests/deploy/check_manifests.py):
`check(objects, source_dir, flags)` returns every problem found, as messages."""
import os
import re
import subprocess
import tempfile

import yaml

# Images not built here that an overlay may run, and why.
FOREIGN_IMAGES = {
    "public.ecr.aws/aws-observability/aws-sigv4-proxy": "signs AMP requests with IRSA (eks)",
}
PROBE_PATHS = {"gpucost": {"/healthz", "/readyz"}, "gpucost-agent": {"/healthz"}}
# The agent's namespace may relax the restricted profile by exactly these (docs/agent.md).
AGENT_NAMESPACE = "gpucost-agent"
AGENT_HOST_PATHS = {"/var/lib/kubelet/pod-resources", "/proc"}
READ_VERBS = {"get", "list", "watch"}
CLUSTER_KINDS = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
WORKLOAD_KINDS = {"StatefulSet", "DaemonSet", "Deployment", "CronJob"}

def version_of(src):
    with open(os.path.join(src, "CMakeLists.txt")) as f:
        return re.search(r"project\(gpucost VERSION ([0-9.]+)", f.read()).group(1)


class Flags:
    """The long flags each binary and subcommand accepts, from --help."""

    def __init__(self, gpucost, agent):
        self.gpucost, self.agent, self.cache = gpucost, agent, {}

    def of(self, binary, sub):
        key = (binary, sub)
        if key not in self.cache:
            argv = [self.agent] if binary == "gpucost-agent" else [self.gpucost, sub]
            out = subprocess.run(argv + ["--help"], capture_output=True, text=True).stdout
            self.cache[key] = set(re.findall(r"(?m)^\s+(?:-\w,)?(--[a-z0-9-]+)", out))
        return self.cache[key]


def pod_spec(obj):
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return obj["spec"]["template"]["spec"]


def pod_labels(obj):
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]["metadata"].get("labels", {})
    return obj["spec"]["template"]["metadata"].get("labels", {})


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check(objs, src, flags):
    """Every problem found in one rendered overlay, as messages."""
    errors = []
    err = errors.append
    version = version_of(src)
    by_kind = {}
    for o in objs:
        for field in ("apiVersion", "kind", "metadata"):
            if field not in o:
                err("an object has no %s: %s" % (field, str(o)[:80]))
        if "metadata" not in o or "kind" not in o:
            continue
        if not o["metadata"].get("name"):
            err("a %s has no metadata.name" % o["kind"])
        by_kind.setdefault(o["kind"], []).append(o)
    if errors:
        return errors

    def named(kind, ns, name):
        return any(o["metadata"]["name"] == name and o["metadata"].get("namespace") == ns
                   for o in by_kind.get(kind, []))

    namespaces = {n["metadata"]["name"]: n["metadata"].get("labels", {})
                  for n in by_kind.get("Namespace", [])}
    for o in objs:
        ns = o["metadata"].get("namespace")
        what = "%s %s" % (o["kind"], o["metadata"]["name"])
        if o["kind"] in CLUSTER_KINDS:
            continue
        if not ns:
            err("%s has no namespace" % what)
        elif ns not in namespaces:
            err("%s is in namespace %s, which the manifests do not create" % (what, ns))
    for name, labels in namespaces.items():
        level = labels.get("pod-security.kubernetes.io/enforce")
        if level != "restricted" and not (name == AGENT_NAMESPACE and level == "privileged"):
            err("namespace %s enforces Pod Security %r, not restricted" % (name, level))

    # Workloads: images, flags, probes, references, security.
    config_maps = {(c["metadata"].get("namespace"), c["metadata"]["name"]): c
                   for c in by_kind.get("ConfigMap", [])}
    secrets = {(s["metadata"].get("namespace"), s["metadata"]["name"]): s
               for s in by_kind.get("Secret", [])}
    claims = set()
    for s in by_kind.get("StatefulSet", []):
        for t in s["spec"].get("volumeClaimTemplates", []):
            for i in range(s["spec"].get("replicas", 1)):
                claims.add((s["metadata"].get("namespace"),
                            "%s-%s-%d" % (t["metadata"]["name"], s["metadata"]["name"], i)))
    pods = []  # (namespace, labels, containers)
    for kind in WORKLOAD_KINDS:
        for w in by_kind.get(kind, []):
            ns, spec = w["metadata"].get("namespace"), pod_spec(w)
            what = "%s %s" % (kind, w["metadata"]["name"])
            pods.append((ns, pod_labels(w), spec["containers"]))
            if kind != "CronJob" and not selects(w["spec"]["selector"].get("matchLabels"),
                                                 pod_labels(w)):
                err("%s: its selector does not match its pods' labels" % what)
            sa = spec.get("serviceAccountName")
            if sa and not named("ServiceAccount", ns, sa):
                err("%s: service account %s does not exist" % (what, sa))
            volumes = {v["name"]: v for v in spec.get("volumes", [])}
            for t in w["spec"].get("volumeClaimTemplates", []):
                volumes[t["metadata"]["name"]] = {"name": t["metadata"]["name"], "claim": True}
            for v in volumes.values():
                if "configMap" in v and (ns, v["configMap"]["name"]) not in config_maps:
                    err("%s: ConfigMap %s does not exist" % (what, v["configMap"]["name"]))
                if "secret" in v and (ns, v["secret"]["secretName"]) not in secrets:
                    err("%s: Secret %s does not exist" % (what, v["secret"]["secretName"]))
                pvc = v.get("persistentVolumeClaim")
                if pvc and (ns, pvc["claimName"]) not in claims:
                    err("%s: volume claim %s is not a StatefulSet's" % (what, pvc["claimName"]))
            check_security(err, what, ns, spec, volumes)
            for c in spec["containers"]:
                cwhat = "%s container %s" % (what, c["name"])
                for m in c.get("volumeMounts", []):
                    if m["name"] not in volumes:
                        err("%s mounts volume %s, which the pod lacks" % (cwhat, m["name"]))
                for e in c.get("env", []):
                    ref = e.get("valueFrom", {}).get("secretKeyRef")
                    if ref and (ns, ref["name"]) not in secrets:
                        err("%s: Secret %s does not exist" % (cwhat, ref["name"]))
                    elif ref and ref["key"] not in secrets[(ns, ref["name"])].get("data", {}):
                        err("%s: Secret %s has no key %s" % (cwhat, ref["name"], ref["key"]))
                if not c.get("resources", {}).get("requests"):
                    err("%s has no resource requests" % cwhat)
                binary = check_image(err, cwhat, c.get("image", ""), version)
                if not binary:
                    continue
                check_args(err, cwhat, binary, c, flags, config_maps, ns, volumes)
                ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
                for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                    get = c.get(probe, {}).get("httpGet")
                    if get is None:
                        if probe != "startupProbe" and kind != "CronJob":
                            err("%s has no %s" % (cwhat, probe))
                        continue
                    if get["path"] not in PROBE_PATHS[binary]:
                        err("%s: %s asks %s, which %s does not serve" %
                            (cwhat, probe, get["path"], binary))
                    if get["port"] not in ports and get["port"] not in ports.values():
                        err("%s: %s port %s is not a container port" % (cwhat, probe, get["port"]))

    def pod_ports(ns, selector):
        found = None
        for pns, labels, containers in pods:
            if pns == ns and selects(selector, labels):
                found = found or {}
                for c in containers:
                    for p in c.get("ports", []):
                        found[p.get("name")] = p["containerPort"]
        return found

    services = {}
    for s in by_kind.get("Service", []):
        ns, what = s["metadata"].get("namespace"), "Service " + s["metadata"]["name"]
        ports = pod_ports(ns, s["spec"].get("selector"))
        if ports is None:
            err("%s selects no pod" % what)
            continue
        for p in s["spec"]["ports"]:
            target = p.get("targetPort", p["port"])
            if target not in ports and target not in ports.values():
                err("%s: targetPort %s is no port of its pods" % (what, target))
        services[(ns, s["metadata"]["name"])] = s
    for m in by_kind.get("ServiceMonitor", []):
        ns, what = m["metadata"].get("namespace"), "ServiceMonitor " + m["metadata"]["name"]
        chosen = [s for (sns, _), s in services.items()
                  if sns == ns and selects(m["spec"]["selector"].get("matchLabels"),
                                           s["metadata"].get("labels", {}))]
        if not chosen:
            err("%s selects no Service" % what)
        for e in m["spec"]["endpoints"]:
            if not any(e["port"] in [p.get("name") for p in s["spec"]["ports"]] for s in chosen):
                err("%s: port %s is no port of its Service" % (what, e["port"]))
            cred = e.get("authorization", {}).get("credentials")
            if cred and (ns, cred["name"]) not in secrets:
                err("%s: Secret %s does not exist" % (what, cred["name"]))
    for m in by_kind.get("PodMonitor", []):
        what = "PodMonitor " + m["metadata"]["name"]
        for ns in m["spec"].get("namespaceSelector", {}).get("matchNames",
                                                             [m["metadata"].get("namespace")]):
            ports = pod_ports(ns, m["spec"]["selector"].get("matchLabels"))
            if ports is None:
                err("%s selects no pod in %s" % (what, ns))
                continue
            for e in m["spec"]["podMetricsEndpoints"]:
                if e["port"] not in ports:
                    err("%s: port %s is no port of its pods" % (what, e["port"]))

    for kind in ("ClusterRole", "Role"):
        for r in by_kind.get(kind, []):
            for rule in r.get("rules", []):
                for field in ("apiGroups", "resources", "verbs"):
                    if "*" in rule.get(field, []):
                        err("%s %s grants * in %s" % (kind, r["metadata"]["name"], field))
                extra = set(rule.get("verbs", [])) - READ_VERBS
                if extra:
                    err("%s %s grants %s: only get, list and watch" %
                        (kind, r["metadata"]["name"], ", ".join(sorted(extra))))
    for kind in ("ClusterRoleBinding", "RoleBinding"):
        for b in by_kind.get(kind, []):
            if not any(r["metadata"]["name"] == b["roleRef"]["name"]
                       for r in by_kind.get(b["roleRef"]["kind"], [])):
                err("%s %s binds a missing role" % (kind, b["metadata"]["name"]))
            for s in b.get("subjects", []):
                if s["kind"] == "ServiceAccount" and not named("ServiceAccount",
                                                               s["namespace"], s["name"]):
                    err("%s %s binds a missing service account %s" %
                        (kind, b["metadata"]["name"], s["name"]))
    return errors


def check_image(err, what, image, version):
    """The binary an image of ours runs, or None for an allowed foreign image."""
    repo, _, tag = image.rpartition(":")
    if repo in FOREIGN_IMAGES:
        return None
    m = re.fullmatch(r"ghcr\.io/gpucost/(gpucost|gpucost-agent)", repo)
    if not m:
        err("%s runs image %s, neither ours nor an allowed one" % (what, image))
        return None
    if tag != version:
        err("%s runs %s, not version %s (CMakeLists.txt)" % (what, image, version))
    return m.group(1)


def check_args(err, what, binary, c, flags, config_maps, ns, volumes):
    args = list(c.get("args", []))
    command = c.get("command", [])
    if command and command != [binary]:
        err("%s: command %s is not the image's binary %s" % (what, command, binary))
    sub = None
    if binary == "gpucost":
        if not args or args[0].startswith("-"):
            err("%s: no gpucost subcommand in args" % what)
            return
        sub = args.pop(0)
    known = flags.of(binary, sub)
    if not known:
        err("%s: `%s %s --help` lists no flags" % (what, binary, sub or ""))
        return
    for a in args:
        flag = a.split("=", 1)[0]
        if flag.startswith("--") and flag not in known:
            err("%s: %s is not a flag of %s %s" % (what, flag, binary, sub or ""))
        if flag == "--config":
            check_config(err, what, a.split("=", 1)[1], c, flags, config_maps, ns, volumes)


def check_config(err, what, path, c, flags, config_maps, ns, volumes):
    for m in c.get("volumeMounts", []):
        if path.startswith(m["mountPath"] + "/"):
            cm = volumes.get(m["name"], {}).get("configMap")
            if not cm or (ns, cm["name"]) not in config_maps:
                break
            text = config_maps[(ns, cm["name"])].get("data", {}).get(path[len(m["mountPath"]) + 1:])
            if text is None:
                break
            for e in serve_config_errors(text, flags):
                err("%s: %s" % (what, e))
            return
    err("%s: --config %s is no file of a mounted ConfigMap" % (what, path))


_CONFIG_ERRORS = {}


def serve_config_errors(text, flags):
    """Keys that are no flag of serve, then what `serve --check-config` says of the file (with
    the token and the ledger moved to files of a temporary folder). Asked once per text."""
    if text not in _CONFIG_ERRORS:
        _CONFIG_ERRORS[text] = _serve_config_errors(text, flags)
    return _CONFIG_ERRORS[text]


def _serve_config_errors(text, flags):
    settings = yaml.safe_load(text) or {}
    known = flags.of("gpucost", "serve")
    errors = ["configuration key %s is not a flag" % k for k in settings if "--" + k not in known]
    if errors:
        return errors
    with tempfile.TemporaryDirectory() as tmp:
        if "token-file" in settings:
            settings["token-file"] = os.path.join(tmp, "token")
            with open(settings["token-file"], "w") as f:
                f.write("0123456789abcdef")
        if "ledger" in settings:
            settings["ledger"] = os.path.join(tmp, "costs.db")
        config = os.path.join(tmp, "serve.yaml")
        with open(config, "w") as f:
            yaml.safe_dump(settings, f)
        r = subprocess.run([flags.gpucost, "serve", "--config", config, "--check-config"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors.append("gpucost serve --check-config refuses the configuration: " +
                          r.stderr.strip())
    return errors


def check_security(err, what, ns, spec, volumes):
    agent = ns == AGENT_NAMESPACE
    psc = spec.get("securityContext", {})
    for field in ("hostNetwork", "hostIPC"):
        if spec.get(field):
            err("%s uses %s" % (what, field))
    if spec.get("hostPID") and not agent:
        err("%s uses hostPID" % what)
    for v in volumes.values():
        if "hostPath" in v and not (agent and v["hostPath"]["path"] in AGENT_HOST_PATHS):
            err("%s mounts host path %s" % (what, v["hostPath"]["path"]))
    for c in spec["containers"] + spec.get("initContainers", []):
        sc, cwhat = c.get("securityContext", {}), "%s container %s" % (what, c["name"])
        if sc.get("privileged"):
            err("%s is privileged" % cwhat)
        if sc.get("allowPrivilegeEscalation") is not False:
            err("%s does not set allowPrivilegeEscalation: false" % cwhat)
        if sc.get("readOnlyRootFilesystem") is not True:
            err("%s does not set readOnlyRootFilesystem: true" % cwhat)
        if "ALL" not in sc.get("capabilities", {}).get("drop", []):
            err("%s does not drop ALL capabilities" % cwhat)
        if sc.get("capabilities", {}).get("add"):
            err("%s adds capabilities" % cwhat)
        seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
        if seccomp != "RuntimeDefault":
            err("%s has no RuntimeDefault seccomp profile" % cwhat)
        non_root = sc.get("runAsNonRoot", psc.get("runAsNonRoot"))
        user = sc.get("runAsUser", psc.get("runAsUser"))
        if not agent and (non_root is not True or user == 0):
            err("%s may run as root (runAsNonRoot)" % cwhat)
        for m in c.get("volumeMounts", []):
            if "hostPath" in volumes.get(m["name"], {}) and not m.get("readOnly"):
                err("%s mounts host path %s writable" % (cwhat, m["mountPath"]))
