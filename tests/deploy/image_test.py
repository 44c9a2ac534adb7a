#!/usr/bin/env python3
"""The images of scripts/build-image.sh, tested without a container runtime: each image is
unpacked (umoci) and its binary run under chroot in a root filesystem holding only the image's
files, read-only and as the image's user, so a missing library or a write to the root fails here.

  image_test.py SOURCE_DIR BIN_DIR

Checks: the image config (user 65532, entrypoint, OCI labels: version from CMakeLists.txt,
revision from git); no shell or package manager in the image; `gpucost demo` prints what the
host's binary prints; the agent answers `--once` with NVML absent; `gpucost serve` in the image,
scraping `gpucost simulate --serve` (host binary, 127.0.0.1), answers /readyz 200 and
/api/v1/report with the numbers `gpucost report` gives for the same scrapes.
Exit 77 (skipped) when not root or umoci/unshare/chroot are missing.
"""
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77
USER = 65532


STARTED = time.monotonic()


def phase(what):
    print("%5.1f s  %s" % (time.monotonic() - STARTED, what), flush=True)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def wait_for(what, cond, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.1)
    fail("timed out waiting for " + what)


def chroot_cmd(rootfs, argv, ledger_dir=None):
    """argv run as the image's user in a private mount namespace where the root is read-only."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"'
    if ledger_dir:
        script += ' && mount --bind "$2" "$1/var/lib/gpucost"'
    script += ' && shift 2 && exec chroot --userspec=%d:%d "$ROOT" "$@"' % (USER, USER)
    return ["unshare", "--mount", "--propagation", "private", "env", "ROOT=" + rootfs,
            "sh", "-c", script, "sh", rootfs, ledger_dir or "-"] + argv


def http_get(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return None, b""


def image_config(layout, tag):
    def blob(digest):
        with open(os.path.join(layout, "blobs", *digest.split(":"))) as f:
            return json.load(f)
    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    manifests = [m for m in index["manifests"]
                 if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag]
    if len(manifests) != 1:
        fail("%s has no single manifest tagged %s" % (layout, tag))
    manifest = blob(manifests[0]["digest"])
    return blob(manifest["config"]["digest"]), manifest


def check_image(src, layout, name, version, rootfs):
    config, manifest = image_config(layout, version)
    c = config["config"]
    if c.get("User") != "%d:%d" % (USER, USER):
        fail("%s: user is %r, not %d" % (name, c.get("User"), USER))
    if c.get("Entrypoint") != ["/usr/bin/" + name]:
        fail("%s: entrypoint %r" % (name, c.get("Entrypoint")))
    labels = c.get("Labels", {})
    want = {"version": version, "title": name}
    try:
        want["revision"] = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], check=True,
                                          capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    for key in ("version", "revision", "source", "licenses", "created", "title"):
        label = "org.opencontainers.image." + key
        if not labels.get(label):
            fail("%s: label %s missing" % (name, label))
        if key in want and labels[label] != want[key]:
            fail("%s: label %s is %r, not %r" % (name, label, labels[label], want[key]))
        if manifest.get("annotations", {}).get(label) != labels[label]:
            fail("%s: manifest annotation %s differs from the label" % (name, label))
    for path in ("bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/apt", "usr/bin/dpkg"):
        if os.path.lexists(os.path.join(rootfs, path)):
            fail("%s: the image holds /%s" % (name, path))
    st = os.stat(os.path.join(rootfs, "var/lib/gpucost"))
    if (st.st_uid, st.st_gid) != (USER, USER):
        fail("%s: /var/lib/gpucost is not the user's" % name)
    with open(os.path.join(rootfs, "etc/passwd")) as f:
        if ":%d:%d:" % (USER, USER) not in f.read():
            fail("%s: no user %d in /etc/passwd" % (name, USER))


def report_rows(doc):
    rows = {}
    for r in doc["rows"]:
        rows[r["namespace"]] = {k: r[k] for k in
                                ("gpu_hours", "allocated_usd", "effective_usd", "waste_usd")}
    return rows


def same(a, b):
    if a is None or b is None:  # unknown (idle capacity has no effective cost)
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def serve_test(host_bin, rootfs, work):
    ledger = os.path.join(work, "ledger")
    os.mkdir(ledger)
    os.chown(ledger, USER, USER)
    procs = []
    try:
        sim_log = open(os.path.join(work, "simulate.log"), "w+")
        procs.append(subprocess.Popen(
            [host_bin, "simulate", "--nodes", "2", "--seed", "3", "--sharing", "whole",
             "--scrape-interval", "1s", "--serve", "127.0.0.1:0"],
            stdout=sim_log, stderr=subprocess.STDOUT))

        def sim_addr():
            sim_log.seek(0)
            m = re.search(r"http://(127\.0\.0\.1:\d+)/metrics", sim_log.read())
            return m and m.group(1)
        sim = wait_for("simulate --serve's address", sim_addr)

        serve_log = open(os.path.join(work, "serve.log"), "w+")
        procs.append(subprocess.Popen(chroot_cmd(rootfs, [
            "/usr/bin/gpucost", "serve", "--ledger", "/var/lib/gpucost/costs.db",
            "--scrape", "kube-state-metrics=http://%s/metrics/kube-state-metrics" % sim,
            "--scrape", "dcgm-exporter=http://%s/metrics/dcgm-exporter" % sim,
            "--scrape-interval", "1s", "--interval", "1s", "--step", "1s", "--lag", "2s",
            "--grace", "4s",
            "--price-per-gpu-hour", "2.5", "--listen", "127.0.0.1:0"], ledger),
            stdout=serve_log, stderr=subprocess.STDOUT))

        def serve_addr():
            serve_log.seek(0)
            m = re.search(r"gpucost serve: http://(127\.0\.0\.1:\d+)", serve_log.read())
            return m and m.group(1)
        addr = wait_for("serve's address (serve.log: %s)" % serve_log.name, serve_addr)
        wait_for("/readyz 200", lambda: http_get("http://%s/readyz" % addr)[0] == 200)
        phase("serve in the image ready")

        def enough_steps():
            status, body = http_get("http://%s/api/v1/report?by=namespace" % addr)
            if status != 200:
                return None
            doc = json.loads(body)
            w = doc["window"]
            start = datetime.datetime.fromisoformat(w["start"].replace("Z", "+00:00"))
            end = datetime.datetime.fromisoformat(w["end"].replace("Z", "+00:00"))
            return (start, end) if (end - start).total_seconds() >= 9 else None
        start, end = wait_for("nine attributed steps", enough_steps, 40)
        # The first steps are left out (the simulator's first scrape lands inside them), and so
        # are the last: a scrape late on a busy machine lands after its step closed, and the
        # next cycles attribute the step again (--grace).
        fmt = "%Y-%m-%dT%H:%M:%SZ"
        window = "%s,%s" % ((start + datetime.timedelta(seconds=2)).strftime(fmt),
                            (end - datetime.timedelta(seconds=4)).strftime(fmt))
        status, body = http_get("http://%s/api/v1/report?by=namespace&window=%s" % (addr, window))
        if status != 200:
            fail("/api/v1/report: %s %s" % (status, body[:200]))
        served = report_rows(json.loads(body))
        procs[1].send_signal(signal.SIGTERM)
        if procs[1].wait(timeout=10) != 0:
            fail("serve in the image exited %d (serve.log: %s)" % (procs[1].returncode,
                                                                  serve_log.name))
        check = subprocess.run(chroot_cmd(rootfs, ["/usr/bin/gpucost", "ledger", "check",
                                                   "/var/lib/gpucost/costs.db"], ledger),
                               capture_output=True, text=True)
        if check.returncode != 0:
            fail("gpucost ledger check in the image: " + check.stdout + check.stderr)
        cli = subprocess.run(
            [host_bin, "report", "--input", os.path.join(ledger, "costs.db.scrape"),
             "--window", window, "--step", "1s", "--by", "namespace", "--accumulate",
             "--format", "json", "--price-per-gpu-hour", "2.5"],
            check=True, capture_output=True, text=True)
        reported = report_rows(json.loads(cli.stdout))
        if set(served) != set(reported) or not served:
            fail("namespaces differ: serve %s, report %s" % (sorted(served), sorted(reported)))
        for ns, row in served.items():
            for key, value in row.items():
                if not same(value, reported[ns][key]):
                    fail("%s %s: serve in the image %r, gpucost report %r" %
                         (ns, key, value, reported[ns][key]))
        print("serve in the image: /readyz 200, %d namespaces over %s as gpucost report" %
              (len(served), window))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def main():
    src, bin_dir = sys.argv[1], sys.argv[2]
    missing = [t for t in ("umoci", "unshare", "chroot") if not shutil.which(t)]
    if os.geteuid() != 0 or missing:
        print("SKIP: the image test unpacks images and runs them under chroot, which needs root "
              "and umoci, unshare and chroot (missing: %s)" % (missing or "root"))
        return SKIP
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0:
        print("SKIP: this machine does not let root make a mount namespace (unshare --mount), "
              "which the image test needs to mount the image's root read-only")
        return SKIP
    with open(os.path.join(src, "CMakeLists.txt")) as f:
        version = re.search(r"project\(gpucost VERSION ([0-9.]+)", f.read()).group(1)
    work = tempfile.mkdtemp(prefix="gpucost-image-test-")
    os.chmod(work, 0o755)
    try:
        out = os.path.join(work, "image")
        subprocess.run([os.path.join(src, "scripts/build-image.sh"), bin_dir, out], check=True,
                       stdout=subprocess.DEVNULL)
        phase("images built")
        rootfs = {}
        for name in ("gpucost", "gpucost-agent"):
            bundle = os.path.join(work, "bundle-" + name)
            subprocess.run(["umoci", "unpack", "--image", "%s/%s:%s" % (out, name, version),
                            bundle], check=True, stdout=subprocess.DEVNULL)
            rootfs[name] = os.path.join(bundle, "rootfs")
            check_image(src, os.path.join(out, name), name, version, rootfs[name])

        phase("images unpacked and checked")
        host_demo = subprocess.run([os.path.join(bin_dir, "gpucost"), "demo"], check=True,
                                   capture_output=True, text=True).stdout
        image_demo = subprocess.run(chroot_cmd(rootfs["gpucost"], ["/usr/bin/gpucost", "demo"]),
                                    capture_output=True, text=True)
        if image_demo.returncode != 0 or image_demo.stdout != host_demo:
            fail("gpucost demo in the image differs from the host's:\n" + image_demo.stdout +
                 image_demo.stderr)

        # The image's version label is the version its binary prints.
        printed = subprocess.run(chroot_cmd(rootfs["gpucost"], ["/usr/bin/gpucost", "version"]),
                                 capture_output=True, text=True).stdout
        if version not in printed.split():
            fail("gpucost version in the image prints %r, not version %s" % (printed, version))
        agent = subprocess.run(chroot_cmd(rootfs["gpucost-agent"], [
            "/usr/bin/gpucost-agent", "--once", "--node-name", "n1", "--pod-resources-socket", ""]), capture_output=True, text=True, timeout=30)
        if 'gpucost_agent_up{node="n1",component="nvml"} 0' not in agent.stdout:
            fail("gpucost-agent --once in the image:\n" + agent.stdout + agent.stderr)

        phase("demo and agent ran in their images")
        serve_test(os.path.join(bin_dir, "gpucost"), rootfs["gpucost"], work)
        phase("serve in the image answered as gpucost report")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok: both images run from their own files, read-only, as user %d" % USER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
