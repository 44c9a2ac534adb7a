#!/usr/bin/env python3
"""Structural checks of gpucost's Kubernetes manifests, on what `kubectl kustomize` renders.

  check_manifests.py render   SOURCE_DIR GPUCOST GPUCOST_AGENT   every overlay renders and passes
  check_manifests.py negative SOURCE_DIR GPUCOST GPUCOST_AGENT   each broken copy is rejected
  check_manifests.py drift    SOURCE_DIR GPUCOST GPUCOST_AGENT   deploy/ is what the binary writes
  check_manifests.py systemd  SOURCE_DIR GPUCOST GPUCOST_AGENT   deploy/systemd: hardened, real flags
  check_manifests.py docs     SOURCE_DIR GPUCOST GPUCOST_AGENT   docs/install.md names what exists

The checks: required fields; every namespaced object in a namespace the render creates; our
images at the project's version; Services, ServiceMonitors and PodMonitors select pods and name
ports they have; probes on paths the binaries serve; flags and configuration keys the binaries
know; ConfigMaps, Secrets, volume claims and service accounts that exist; the restricted Pod
Security profile everywhere but the agent's namespace, whose exceptions are exactly those
docs/agent.md gives; RBAC with get/list/watch only and no wildcards.
Exit 77 (skipped) when kubectl is missing.
"""
import copy
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

from broken_manifests import BROKEN
from manifest_rules import Flags, check
from other_checks import OVERLAYS, check_install_doc, check_systemd, drift

SKIP = 77


def render_all(src, kubectl):
    """{overlay: objects}, rendered from a copy of deploy/ with the files a user makes first."""
    work = tempfile.mkdtemp(prefix="gpucost-deploy-")
    try:
        deploy = os.path.join(work, "deploy")
        shutil.copytree(os.path.join(src, "deploy"), deploy)
        # docs/install.md: the token and (postgresql) the ledger's URI.
        with open(os.path.join(deploy, "base/token"), "w") as f:
            f.write("0123456789abcdef0123456789abcdef")
        with open(os.path.join(deploy, "overlays/postgresql/ledger-uri"), "w") as f:
            f.write("postgresql://gpucost:secret@db.example:5432/gpucost")
        out = {}
        for overlay in OVERLAYS:
            r = subprocess.run([kubectl, "kustomize", os.path.join(deploy, "overlays", overlay)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: kubectl kustomize deploy/overlays/%s: %s" % (overlay, r.stderr))
                sys.exit(1)
            out[overlay] = [o for o in yaml.safe_load_all(r.stdout) if o]
        return out
    finally:
        shutil.rmtree(work)


def main():
    mode, src, gpucost, agent = sys.argv[1:5]
    flags = Flags(gpucost, agent)
    if mode in ("drift", "systemd"):
        errors = drift(src, flags) if mode == "drift" else check_systemd(src, flags)
        for e in errors:
            print("FAIL: " + e)
        return 1 if errors else 0
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("SKIP: kubectl is missing (Debian's kubernetes-client; scripts/install-deps.sh)")
        return SKIP
    rendered = render_all(src, kubectl)
    if mode == "docs":
        errors = check_install_doc(src, flags, rendered)
        for e in errors:
            print("FAIL: docs/install.md " + e)
        return 1 if errors else 0
    if mode == "render":
        failed = False
        for overlay, objs in rendered.items():
            errors = check(objs, src, flags)
            for e in errors:
                print("FAIL: deploy/overlays/%s: %s" % (overlay, e))
            failed = failed or bool(errors)
            print("deploy/overlays/%s: %d objects%s" % (overlay, len(objs),
                                                        "" if errors else ", all checks pass"))
        return 1 if failed else 0
    base = rendered["kubernetes"]
    if check(base, src, flags):
        print("FAIL: the kubernetes overlay itself does not pass")
        return 1
    failed = False
    for what, expect, mutate in BROKEN:
        objs = copy.deepcopy(base)
        mutate(objs)
        errors = check(objs, src, flags)
        if not any(expect in e for e in errors):
            print("FAIL: %s passed the checks (want an error naming %r; got %s)" %
                  (what, expect, errors))
            failed = True
    print("%d broken copies, each rejected" % len(BROKEN) if not failed else "")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
