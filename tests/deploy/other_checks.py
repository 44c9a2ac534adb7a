"""Checks beyond the rendered manifests (tests/deploy/check_manifests.py): the generated
manifests are current, the systemd unit is hardened, docs/install.md names what exists."""
import os
import re
import shutil
import subprocess

import yaml

from manifest_rules import serve_config_errors, version_of

OVERLAYS = ("kubernetes", "postgresql", "eks")


SYSTEMD_HARDENING = ("ProtectSystem=strict", "ProtectHome=yes", "NoNewPrivileges=yes",
                     "PrivateTmp=yes", "StateDirectory=gpucost", "CapabilityBoundingSet=")


def check_systemd(src, flags):
    """deploy/systemd: the unit runs serve with its configuration file, hardened, as a user."""
    errors = []
    with open(os.path.join(src, "deploy/systemd/gpucost-serve.service")) as f:
        unit = f.read()
    lines = [line.strip() for line in unit.splitlines()]
    for want in SYSTEMD_HARDENING:
        if want not in lines:
            errors.append("gpucost-serve.service lacks %s" % want)
    user = [line.split("=", 1)[1] for line in lines if line.startswith("User=")]
    if not user or user[0] in ("root", "0"):
        errors.append("gpucost-serve.service runs as root")
    exec_start = [line.split("=", 1)[1].split() for line in lines if line.startswith("ExecStart=")]
    if len(exec_start) != 1 or exec_start[0][1:] != ["serve", "--config",
                                                     "/etc/gpucost/serve.yaml"]:
        errors.append("gpucost-serve.service's ExecStart is not `gpucost serve --config "
                      "/etc/gpucost/serve.yaml`")
    with open(os.path.join(src, "deploy/systemd/serve.yaml")) as f:
        settings = yaml.safe_load(f)
        errors += ["deploy/systemd/serve.yaml: " + e for e in serve_config_errors(
            yaml.safe_dump(settings), flags)]
    if not settings.get("ledger", "").startswith("/var/lib/gpucost/"):
        errors.append("deploy/systemd/serve.yaml keeps the ledger outside the StateDirectory")
    if shutil.which("systemd-analyze"):
        r = subprocess.run(["systemd-analyze", "verify", "--man=no",
                            os.path.join(src, "deploy/systemd/gpucost-serve.service")],
                           capture_output=True, text=True)
        problems = [line for line in r.stderr.splitlines()
                    if "gpucost-serve.service" in line and "/usr/local/bin/gpucost" not in line]
        errors += ["systemd-analyze verify: " + line for line in problems]
    return errors


def drift(src, flags):
    """deploy/monitoring equals what scripts/gen-deploy.sh writes with this binary."""
    fix = "deploy/ differs from what the binary generates: run scripts/gen-deploy.sh"
    rules = subprocess.run([flags.gpucost, "rules", "--name", "gpucost", "--namespace", "gpucost"],
                           check=True, capture_output=True, text=True).stdout
    with open(os.path.join(src, "deploy/monitoring/prometheusrule.yaml")) as f:
        if f.read() != rules:
            return ["deploy/monitoring/prometheusrule.yaml is not `gpucost rules`: " + fix]
    dashboard = subprocess.run([flags.gpucost, "grafana-dashboard", "--datasource-uid",
                                "prometheus"], check=True, capture_output=True, text=True).stdout
    with open(os.path.join(src, "deploy/monitoring/grafana-dashboard.yaml")) as f:
        cm = yaml.safe_load(f)
    if cm["data"]["gpucost.json"] != dashboard:
        return ["deploy/monitoring/grafana-dashboard.yaml is not `gpucost grafana-dashboard`: " +
                fix]
    return []


USER_FILES = {"deploy/base/token", "deploy/overlays/postgresql/ledger-uri"}


def check_install_doc(src, flags, rendered):
    """docs/install.md's commands name what exists: gpucost's subcommands and flags (each
    gpucost command that needs no cluster is run), the overlays, objects, make targets, files,
    the image version and the ledger's volume claim."""
    errors = []
    with open(os.path.join(src, "docs/install.md")) as f:
        doc = f.read()
    version = version_of(src)
    with open(os.path.join(src, "Makefile")) as f:
        targets = set(re.findall(r"(?m)^([a-z][a-z-]*):", f.read()))
    objects = {(o["kind"], o["metadata"]["name"]) for objs in rendered.values() for o in objs}
    for path in set(re.findall(r"\b((?:deploy|scripts|tests)/[\w./-]*\w)", doc)):
        if path not in USER_FILES and not os.path.exists(os.path.join(src, path)):
            errors.append("names %s, which does not exist" % path)
    for tag in set(re.findall(r"(?:gpucost|gpucost-agent):(\d+\.\d+\.\d+)", doc)):
        if tag != version:
            errors.append("names version %s, not %s" % (tag, version))
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", doc, re.S):
        if lang == "yaml":
            obj = yaml.safe_load(block)
            claim = (obj.get("spec", {}).get("source", {}).get("persistentVolumeClaimName")
                     if isinstance(obj, dict) else None)
            if claim and claim != "ledger-gpucost-0":
                errors.append("snapshots claim %s, not the StatefulSet's" % claim)
            continue
        if lang != "sh":
            continue
        for line in block.replace("\\\n", " ").splitlines():
            for cmd in re.split(r"&&|\|\||;|\|", line.split(" #")[0]):
                words = cmd.split()
                if not words:
                    continue
                if words[0] == "gpucost" and len(words) > 1:
                    known = flags.of("gpucost", words[1])
                    if not known:
                        errors.append("`%s`: no such command" % cmd.strip())
                    for w in words[2:]:
                        if w.startswith("--") and w.split("=")[0] not in known:
                            errors.append("`%s`: %s is not a flag" % (cmd.strip(), w))
                    if words[1] == "rules":
                        r = subprocess.run([flags.gpucost] + words[1:words.index(">")]
                                           if ">" in words else [flags.gpucost] + words[1:],
                                           capture_output=True, text=True)
                        if r.returncode != 0:
                            errors.append("`%s` fails: %s" % (cmd.strip(), r.stderr))
                elif words[0] == "make" and words[1] not in targets:
                    errors.append("`%s`: no such make target" % cmd.strip())
                elif words[0] == "kubectl":
                    for w in words:
                        m = re.fullmatch(r"deploy/overlays/(\w+)", w)
                        if m and m.group(1) not in OVERLAYS and m.group(1) != "<overlay>":
                            errors.append("`%s`: no overlay %s" % (cmd.strip(), m.group(1)))
                        m = re.fullmatch(r"(statefulset|svc)/([\w-]+)", w)
                        kind = {"statefulset": "StatefulSet", "svc": "Service"}.get(
                            m and m.group(1))
                        if m and (kind, m.group(2)) not in objects:
                            errors.append("`%s`: no %s %s" % (cmd.strip(), kind, m.group(2)))
    return errors
