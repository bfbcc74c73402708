#!/usr/bin/env python3
"""Checks the keys .github/workflows/sync.yml (and ci.yml) rely on.

The validator (scripts/lint) says a workflow is valid GitHub Actions; this says it is *our*
job: daily schedule and manual dispatch, least-privilege permissions, the crawl store cached
where scripts/sync keeps it, scripts/sync's exit codes mapped, one pull request opened by a
pinned create-pull-request with the summary as its body, every action pinned by commit.

PyYAML is not installed here, so a small reader of the YAML subset workflows use (block maps
and lists, quoted and plain scalars, block scalars, empty flow collections, comments) turns
the file into dicts and lists; anything outside that subset is an error, not a guess.

    workflow_keys.py REPO_ROOT     checks the repository's workflows
    workflow_keys.py --self-test   also checks that broken copies are rejected
"""
import re
import sys

SHA_PIN = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


class YamlError(Exception):
    pass


def _strip_comment(text):
    """Drops a ` # comment` outside quotes."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def _scalar(text, where):
    text = text.strip()
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text[:1] in "{[":
        raise YamlError(f"{where}: flow collections other than {{}} and [] are not supported")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return bytes(text[1:-1], "utf-8").decode("unicode_escape")
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if text[:1] in "&*!|>":
        raise YamlError(f"{where}: anchors, aliases and tags are not supported")
    return text


class _Reader:
    def __init__(self, text, name):
        self.name = name
        self.lines = []  # (line number, indent, content) of meaningful lines; raw kept for blocks
        self.raw = text.split("\n")
        for number, line in enumerate(self.raw, 1):
            if "\t" in line[: len(line) - len(line.lstrip())]:
                raise YamlError(f"{name}:{number}: a tab in the indentation")
            content = _strip_comment(line)
            if content.strip() in ("", "---"):
                continue
            self.lines.append((number, len(content) - len(content.lstrip()), content.strip()))
        self.pos = 0

    def where(self):
        return f"{self.name}:{self.lines[self.pos][0]}" if self.pos < len(self.lines) else self.name

    def parse(self):
        if not self.lines:
            return {}
        value = self.node(self.lines[0][1])
        if self.pos != len(self.lines):
            raise YamlError(f"{self.where()}: unexpected indentation")
        return value

    def node(self, indent):
        if self.lines[self.pos][2].startswith("- ") or self.lines[self.pos][2] == "-":
            return self.sequence(indent)
        return self.mapping(indent)

    def block_scalar(self, number, indent, style):
        """The lines after `key: |` (or `>`), up to the first line indented `indent` or less."""
        body = []
        n = number  # raw index of the first line after the key
        while n < len(self.raw):
            line = self.raw[n]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            body.append(line)
            n += 1
        while self.pos < len(self.lines) and self.lines[self.pos][0] <= n:
            self.pos += 1
        while body and not body[-1].strip():
            body.pop()
        strip = min((len(l) - len(l.lstrip()) for l in body if l.strip()), default=0)
        text = "\n".join(l[strip:] for l in body)
        if style.startswith(">"):
            text = re.sub(r"(?<!\n)\n(?!\n)", " ", text)
        return text if style.endswith("-") else text + "\n"

    def value_after_key(self, rest, number, indent):
        if rest in ("|", "|-", ">", ">-"):
            return self.block_scalar(number, indent, rest)
        if rest:
            return _scalar(rest, f"{self.name}:{number}")
        if self.pos < len(self.lines) and self.lines[self.pos][1] > indent:
            return self.node(self.lines[self.pos][1])
        if self.pos < len(self.lines) and self.lines[self.pos][1] == indent and \
                self.lines[self.pos][2].startswith("- "):
            return self.sequence(indent)  # a list at the key's own indentation
        return None

    def mapping(self, indent):
        result = {}
        while self.pos < len(self.lines):
            number, ind, content = self.lines[self.pos]
            if ind < indent:
                break
            if ind > indent:
                raise YamlError(f"{self.where()}: unexpected indentation")
            if content.startswith("- "):
                break
            m = re.match(r"^(\"[^\"]*\"|'[^']*'|[^:\"']+?)\s*:(?:\s+(.*))?$", content)
            if not m:
                raise YamlError(f"{self.where()}: expected `key: value`, got {content!r}")
            key = _scalar(m.group(1), self.where())
            if key in result:
                raise YamlError(f"{self.where()}: duplicate key {key!r}")
            self.pos += 1
            result[key] = self.value_after_key((m.group(2) or "").strip(), number, indent)
        return result

    def sequence(self, indent):
        result = []
        while self.pos < len(self.lines):
            number, ind, content = self.lines[self.pos]
            if ind != indent or not (content.startswith("- ") or content == "-"):
                break
            rest = content[1:].strip()
            if not rest:
                self.pos += 1
                result.append(self.node(self.lines[self.pos][1]))
            elif re.match(r"^(\"[^\"]*\"|'[^']*'|[^:\"'\s][^:\"']*?)\s*:(\s|$)", rest):
                # `- key: value` opens a map whose keys sit two columns in.
                item_indent = indent + (len(content) - len(rest))
                self.lines[self.pos] = (number, item_indent, rest)
                result.append(self.mapping(item_indent))
            else:
                self.pos += 1
                result.append(_scalar(rest, f"{self.name}:{number}"))
        return result


def load(text, name="<yaml>"):
    return _Reader(text, name).parse()


def steps_using(job, action):
    return [s for s in job.get("steps", []) if str(s.get("uses", "")).split("@")[0] == action]


def check_sync(doc):
    """Returns a list of problems with sync.yml; empty when it is the job we rely on."""
    problems = []

    def need(condition, message):
        if not condition:
            problems.append(message)

    on = doc.get("on") or {}
    schedule = on.get("schedule") or []
    crons = [s.get("cron", "") for s in schedule if isinstance(s, dict)]
    need(len(crons) == 1, "on.schedule: one cron entry expected")
    for cron in crons:
        fields = cron.split()
        need(len(fields) == 5 and fields[0].isdigit() and fields[1].isdigit() and fields[2:] == ["*", "*", "*"],
             f"on.schedule: {cron!r} is not once a day")
    need("workflow_dispatch" in on, "on.workflow_dispatch is missing")
    need(doc.get("permissions") == {}, "top-level permissions must be {} (each job asks for its own)")

    jobs = doc.get("jobs") or {}
    sync = jobs.get("sync") or {}
    pr = jobs.get("pull-request") or {}
    need(bool(sync), "jobs.sync is missing")
    need(bool(pr), "jobs.pull-request is missing")
    need(sync.get("permissions") == {"contents": "read"}, "jobs.sync.permissions must be contents: read only")
    need(pr.get("permissions") == {"contents": "write", "pull-requests": "write"},
         "jobs.pull-request.permissions must be contents: write and pull-requests: write only")
    for name, job in jobs.items():
        perms = job.get("permissions")
        need(isinstance(perms, dict), f"jobs.{name}.permissions must be explicit")
        if name != "pull-request" and isinstance(perms, dict):
            need("write" not in perms.values(), f"jobs.{name} must not hold write permissions")

    # The store cache: where scripts/sync keeps the store, a key that changes every run and
    # a restore prefix that finds the last one.
    caches = steps_using(sync, "actions/cache")
    need(len(caches) == 1, "jobs.sync: one actions/cache step expected")
    sync_steps = [s for s in sync.get("steps", []) if "scripts/sync" in str(s.get("run", ""))]
    need(len(sync_steps) == 1, "jobs.sync: one step running scripts/sync expected")
    if caches and sync_steps:
        cache = caches[0].get("with") or {}
        path, key = str(cache.get("path", "")), str(cache.get("key", ""))
        restore = str(cache.get("restore-keys", "")).split()
        run = sync_steps[0]["run"]
        store = re.search(r"--store\s+(\S+)", run)
        need(store is not None, "scripts/sync is not given --store")
        if store:
            need(store.group(1).startswith(path.rstrip("/") + "/"),
                 f"the store {store.group(1)} is not under the cached path {path!r}")
        need("${{ github.run_id }}" in key, "the cache key must change every run (caches are immutable)")
        prefix = key.split("${{")[0]
        need(bool(prefix) and prefix in restore, f"restore-keys must hold the key's prefix {prefix!r}")
        need(sync_steps[0].get("id") == "sync", "the scripts/sync step needs id: sync")
        for code, verdict in (("0", "no-change"), ("10", "changed"), ("20", "refused")):
            need(re.search(rf"^\s*{code}\) verdict={verdict} ;;", run, re.M) is not None,
                 f"scripts/sync's exit {code} is not mapped to {verdict}")
        need("verdict=$verdict\" >>\"$GITHUB_OUTPUT\"" in run, "the verdict is not a step output")
        refused = re.search(r'^\s*if \[ "\$verdict" = refused \]; then\n(.*?)^\s*fi$', run, re.S | re.M)
        need(refused is not None and re.search(r"^\s*exit 1$", refused.group(1), re.M) is not None,
             "a refused sync must fail the job (exit 1)")
    need(sync.get("outputs", {}).get("verdict") == "${{ steps.sync.outputs.verdict }}",
         "jobs.sync.outputs.verdict must come from the sync step")

    # One pull request, from a pinned create-pull-request, only when something changed.
    need(pr.get("needs") == "sync", "jobs.pull-request must need sync")
    need(str(pr.get("if", "")).replace(" ", "") == "needs.sync.outputs.verdict=='changed'",
         "jobs.pull-request must run only when the verdict is 'changed'")
    cprs = steps_using(pr, "peter-evans/create-pull-request")
    need(len(cprs) == 1, "jobs.pull-request: one peter-evans/create-pull-request step expected")
    if cprs:
        w = cprs[0].get("with") or {}
        need(bool(w.get("branch")) and "${{" not in str(w.get("branch")),
             "create-pull-request needs a fixed branch (one pull request, updated)")
        for key in ("title", "commit-message", "body-path", "add-paths", "token"):
            need(bool(w.get(key)), f"create-pull-request: {key} is missing")
        need(str(w.get("body-path", "")).endswith("summary.md"), "the pull request body must be the summary")
        need("generated/**" in str(w.get("add-paths", "")).split(), "add-paths must include generated/**")
    return problems


def check_ci(doc):
    problems = []
    on = doc.get("on") or {}
    if "push" not in on or "pull_request" not in on:
        problems.append("ci.yml must run on push and pull_request (sync pull requests are tested)")
    runs = [s.get("run", "") for job in (doc.get("jobs") or {}).values() for s in job.get("steps", [])]
    if not any(".ci/run" in r for r in runs):
        problems.append("ci.yml must run .ci/run")
    if doc.get("permissions") != {"contents": "read"}:
        problems.append("ci.yml permissions must be contents: read")
    return problems


def check_pins(doc, name):
    problems = []
    for job_name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps", []):
            uses = step.get("uses")
            if uses and not SHA_PIN.match(uses):
                problems.append(f"{name}: jobs.{job_name}: {uses} is not pinned by a commit SHA")
    return problems


def check_repo(root):
    problems = []
    for name, checker in (("sync.yml", check_sync), ("ci.yml", check_ci)):
        path = f"{root}/.github/workflows/{name}"
        with open(path, encoding="utf-8") as f:
            doc = load(f.read(), path)
        problems += [f"{name}: {p}" for p in checker(doc)] + check_pins(doc, name)
    return problems


def self_test(root):
    """The checks must catch what they are for: each broken copy of sync.yml is rejected."""
    with open(f"{root}/.github/workflows/sync.yml", encoding="utf-8") as f:
        good = f.read()
    breakages = {
        "no schedule": (r"  schedule:\n    - cron: .*\n", ""),
        "hourly": (r'cron: "17 5 \* \* \*"', 'cron: "17 * * * *"'),
        "no dispatch": (r"  workflow_dispatch:\n", "  workflow_call:\n"),
        "write-all at the top": (r"^permissions: \{\}", "permissions: write-all"),
        "the sync job can push": (r"    permissions:\n      contents: read\n", "    permissions:\n      contents: write\n"),
        "a tag, not a SHA": (r"create-pull-request@[0-9a-f]{40}", "create-pull-request@v7"),
        "a fixed cache key": (r"torchdex-store-v1-\$\{\{ github.run_id \}\}", "torchdex-store-v1"),
        "the store outside the cache": (r"--store \.cache/torchdex/store\.sqlite", "--store /tmp/store.sqlite"),
        "refused does not fail": (r"exit 1\n", "true\n"),
        "no body": (r"          body-path: .*\n", ""),
        "a branch per run": (r"branch: sync/catalogue", "branch: sync/${{ github.run_id }}"),
    }
    failures = []
    if check_sync(load(good, "sync.yml")):
        failures.append("the real sync.yml does not pass")
    for what, (pattern, replacement) in breakages.items():
        broken, n = re.subn(pattern, replacement, good, count=1, flags=re.M)
        if n != 1:
            failures.append(f"self-test {what!r}: pattern not found in sync.yml")
            continue
        doc = load(broken, "sync.yml")
        if not (check_sync(doc) + check_pins(doc, "sync.yml")):
            failures.append(f"self-test {what!r}: the broken workflow was accepted")
    # The reader itself, on the shapes the workflows use.
    sample = load('a: {}\nb:\n  - x: "1 # no"  # yes\n    y: |\n      l1\n\n      l2\n  - z\nc: \'q\'\n')
    if sample != {"a": {}, "b": [{"x": "1 # no", "y": "l1\n\nl2\n"}, "z"], "c": "q"}:
        failures.append(f"the YAML reader misread the sample: {sample!r}")
    return failures


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        root, self_testing = argv[2], True
    elif len(argv) == 2:
        root, self_testing = argv[1], False
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        problems = check_repo(root)
        if self_testing:
            problems += self_test(root)
    except YamlError as e:
        problems = [f"YAML outside the supported subset: {e}"]
    for p in problems:
        print(f"FAILED - {p}")
    print(f"workflow_keys: {'0 failed' if not problems else f'{len(problems)} failed'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
