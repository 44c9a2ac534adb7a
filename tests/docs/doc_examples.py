#!/usr/bin/env python3
"""The examples in README.md and docs/*.md run as written and print what they show.

Two kinds of fenced blocks are checked:

* A block whose first line starts with "$ " is a session: each "$ COMMAND" line (continued by a
  trailing backslash) is run with bash in a scratch folder that holds the demo's input (demo.om,
  written by `gpucost demo --write-openmetrics demo.om`) and a link to the source tree's tests/,
  and what it prints (stdout; stderr when stdout is empty) must be the lines after it, up to the next "$ " line.
  A line that is "..." alone stands for any number of lines. `NAME=VALUE` commands set a variable
  for the rest of the block. A block right after a line `<!-- example: not run (WHY) -->` is
  skipped (its output varies: commits, dates, a server).
* In every other block (sh, bash or none), each line that runs `gpucost CMD` names a command and
  flags that `gpucost CMD --help` lists.

Usage: doc_examples.py SOURCE_DIR GPUCOST_BINARY
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

SKIP_MARK = re.compile(r"<!--\s*example:\s*not run")
FENCE = re.compile(r"^( *)```(\w*)\s*$")


def blocks(text):
    """(line number, language, lines, skipped) of each fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        indent = len(m.group(1))  # a block inside a list item
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        before = lines[start - 1].strip() if start > 0 else ""
        before2 = lines[start - 2].strip() if start > 1 else ""
        skipped = bool(SKIP_MARK.search(before) or (before == "" and SKIP_MARK.search(before2)))
        body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[i + 1:j]]
        yield start + 1, m.group(2), body, skipped
        i = j + 1


def session(lines):
    """[(command, expected lines)] of a "$ " block."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            i += 1
            continue
        cmd = line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        out.append((cmd, expected))
    return out


def matches(expected, actual):
    """Whether `actual` lines are `expected`, where a "..." line is any number of lines."""
    expected = [e.rstrip() for e in expected]
    actual = [a.rstrip() for a in actual]
    while expected and expected[-1] == "":
        expected.pop()
    while actual and actual[-1] == "":
        actual.pop()

    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i].strip() == "...":
            r = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and expected[i] == actual[j] and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def help_flags(binary, command, cache):
    """The flags `gpucost COMMAND... --help` lists; None when there is no such command."""
    if command not in cache:
        r = subprocess.run([binary] + list(command) + ["--help"], capture_output=True, text=True)
        cache[command] = (set(re.findall(r"(--[\w-]+)", r.stdout))
                          if r.returncode == 0 else None)
    return cache[command]


def check_commands(binary, lines, where, cache, session_block):
    errors = []
    text = "\n".join(lines).replace("\\\n", " ")
    for line in text.split("\n"):
        line = line.split(" #")[0]
        if session_block and not line.startswith("$ "):
            continue  # what a command printed
        if line.startswith("$ "):
            line = line[2:]
        for cmd in re.split(r"&&|\|\||;|\||\$\(|`", line):
            words = cmd.split()
            while words and re.fullmatch(r"\w+=\S*", words[0]):
                words = words[1:]
            if words[:1] == ["/usr/bin/time"]:
                words = [w for w in words[1:] if not w.startswith("-") and w != "%e s %M KB"]
            if len(words) < 2 or words[0] != "gpucost" or words[1].startswith("-"):
                continue
            command = (words[1],)
            if len(words) > 2 and not words[2].startswith("-"):
                # A command of a command (`ledger write`), else an argument (`ledger info FILE`).
                if help_flags(binary, (words[1], words[2]), cache) is not None:
                    command = (words[1], words[2])
            known = help_flags(binary, command, cache)
            if known is None:
                errors.append("%s: `%s`: no such command" % (where, cmd.strip()))
                continue
            for w in words[2:]:
                if w.startswith("--") and w.split("=")[0] not in known:
                    errors.append("%s: `%s`: %s is not a flag of gpucost %s"
                                  % (where, cmd.strip(), w, " ".join(command)))
    return errors


def main():
    src, binary = sys.argv[1], os.path.abspath(sys.argv[2])
    docs = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    errors = []
    sessions = 0
    cache = {}
    with tempfile.TemporaryDirectory(prefix="gpucost-doc-examples-") as work:
        bindir = os.path.join(work, "bin")
        os.makedirs(bindir)
        os.symlink(binary, os.path.join(bindir, "gpucost"))
        os.symlink(os.path.join(src, "tests"), os.path.join(work, "tests"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                   TZ="UTC", LC_ALL="C.UTF-8", COLUMNS="200")
        subprocess.run(["gpucost", "demo", "--write-openmetrics", "demo.om"], cwd=work, env=env,
                       check=True, capture_output=True)
        for doc in docs:
            name = os.path.relpath(doc, src)
            with open(doc, encoding="utf-8") as f:
                text = f.read()
            for line_no, lang, lines, skipped in blocks(text):
                where = "%s:%d" % (name, line_no)
                is_session = bool(lines) and lines[0].startswith("$ ")
                if lang not in ("", "sh", "bash", "console", "shell"):
                    continue
                if not is_session or skipped:
                    # Not run: at least the commands and flags it names exist.
                    errors += check_commands(binary, lines, where, cache, is_session)
                    continue
                variables = {}
                for cmd, expected in session(lines):
                    m = re.fullmatch(r"(\w+)=(\S+)(\s+#.*)?", cmd.strip())
                    if m:
                        variables[m.group(1)] = m.group(2)
                        continue
                    sessions += 1
                    r = subprocess.run(["bash", "-c", cmd], cwd=work,
                                       env=dict(env, **variables), capture_output=True,
                                       text=True, timeout=600)
                    # What the doc shows is stdout; a command that prints only to stderr (a usage
                    # error) shows that instead.
                    actual = (r.stdout if r.stdout.strip() else r.stderr).split("\n")
                    if not matches(expected, actual):
                        errors.append("%s: `%s` printed:\n%s\n--- where the doc shows:\n%s"
                                      % (where, cmd, "\n".join(actual).rstrip(),
                                         "\n".join(expected).rstrip()))
    for e in errors:
        print(e, file=sys.stderr)
    print("doc examples: %d commands run, %d errors" % (sessions, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
