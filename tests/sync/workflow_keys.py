#!/usr/bin/env python3
"""Checks the keys .github/workflows/sync.yml (and ci.yml, release.yml) rely on.

The validator (scripts/lint) says a workflow is valid GitHub Actions; this says it is *our*
job: daily schedule and manual dispatch (with base-url, max-wheel-loss and allow-removed),
guards (no forks, dispatch only on the default branch), least-privilege permissions (only the
two jobs that write may, and they run no code of the repository), the crawl store cached where
scripts/sync keeps it under a key naming the index, scripts/sync's exit codes and step outputs
(changed, title) wired into one pull request opened by a pinned create-pull-request with the
title and body scripts/sync wrote, a GitHub App token made in the job with the stored and the
default token as fallbacks, a token check that reports a 401 in the job summary (run here
against a loopback server), stale sync pull requests closed, every action pinned by commit.

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


APP_TOKEN_ACTION = "actions/create-github-app-token"
# The token every writing step uses: the App's (made in the job), else a stored one, else the
# default token.
TOKEN_EXPRESSION = "${{ steps.app-token.outputs.token || secrets.TORCHDEX_SYNC_TOKEN || github.token }}"
WRITING_JOBS = {
    "pull-request": {"contents": "write", "pull-requests": "write", "issues": "write"},
    "close-stale": {"contents": "write", "pull-requests": "write"},
}


def squeeze(text):
    return re.sub(r"\s+", "", str(text or ""))


def step_with_id(job, step_id):
    return next((s for s in job.get("steps", []) if s.get("id") == step_id), None)


def check_app_token(job, name, need):
    """The App token step of a writing job: pinned (check_pins), skipped when no App is set up."""
    apps = steps_using(job, APP_TOKEN_ACTION)
    need(len(apps) == 1, f"jobs.{name}: one {APP_TOKEN_ACTION} step expected")
    if apps:
        app = apps[0]
        need(app.get("id") == "app-token", f"jobs.{name}: the App token step needs id: app-token")
        need(squeeze(app.get("if")) == "vars.TORCHDEX_SYNC_APP_ID!=''",
             f"jobs.{name}: the App token step must run only when vars.TORCHDEX_SYNC_APP_ID is set")
        w = app.get("with") or {}
        need(w.get("app-id") == "${{ vars.TORCHDEX_SYNC_APP_ID }}" and
             w.get("private-key") == "${{ secrets.TORCHDEX_SYNC_APP_PRIVATE_KEY }}",
             f"jobs.{name}: the App token needs app-id and private-key from vars and secrets")


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
    inputs = (on.get("workflow_dispatch") or {}).get("inputs") or {}
    for name in ("base-url", "max-wheel-loss", "allow-removed"):
        need(name in inputs and (inputs.get(name) or {}).get("type") == "string",
             f"on.workflow_dispatch.inputs.{name} (a string) is missing")
    need(doc.get("permissions") == {}, "top-level permissions must be {} (each job asks for its own)")

    jobs = doc.get("jobs") or {}
    sync = jobs.get("sync") or {}
    pr = jobs.get("pull-request") or {}
    close = jobs.get("close-stale") or {}
    need(bool(sync), "jobs.sync is missing")
    need(bool(pr), "jobs.pull-request is missing")
    need(bool(close), "jobs.close-stale is missing")
    need(sync.get("permissions") == {"contents": "read"}, "jobs.sync.permissions must be contents: read only")
    for name, perms in WRITING_JOBS.items():
        if name in jobs:
            need(jobs[name].get("permissions") == perms,
                 f"jobs.{name}.permissions must be exactly {perms}")
    for name, job in jobs.items():
        perms = job.get("permissions")
        need(isinstance(perms, dict), f"jobs.{name}.permissions must be explicit")
        if name not in WRITING_JOBS and isinstance(perms, dict):
            need("write" not in perms.values(), f"jobs.{name} must not hold write permissions")
        if name in WRITING_JOBS:
            # A job that can push runs none of the repository's code.
            for step in job.get("steps", []):
                need(not re.search(r"(^|[\s/])(scripts/|\.ci/|tests/|bash\s+\S+\.sh)", str(step.get("run", ""))),
                     f"jobs.{name} runs the repository's code: {step.get('name', step.get('uses'))!r}")
        if name != "sync":
            need(job.get("needs") == "sync", f"jobs.{name} must need sync (and so its guards)")

    # Guards of the sync job (the others need it): no fork runs it unless it opts in, and a
    # dispatch runs only on the default branch.
    guard = squeeze(sync.get("if"))
    need("github.event.repository.fork!=true" in guard or "github.event.repository.fork==false" in guard
         or "github.repository==" in guard or "github.repository_owner==" in guard,
         "jobs.sync.if must keep forks from running the sync")
    need("github.ref_name==github.event.repository.default_branch" in guard or
         "github.ref==format('refs/heads/{0}',github.event.repository.default_branch)" in guard,
         "jobs.sync.if must run a dispatch only on the default branch")

    # The store cache: where scripts/sync keeps the store, one per index (a key naming the base
    # URL), a key that changes every run, and a restore prefix that finds the last one.
    caches = steps_using(sync, "actions/cache")
    need(len(caches) == 1, "jobs.sync: one actions/cache step expected")
    sync_steps = [s for s in sync.get("steps", []) if "scripts/sync" in str(s.get("run", ""))]
    need(len(sync_steps) == 1, "jobs.sync: one step running scripts/sync expected")
    if caches and sync_steps:
        cache = caches[0].get("with") or {}
        path, key = str(cache.get("path", "")), str(cache.get("key", ""))
        restore = [line.strip() for line in str(cache.get("restore-keys", "")).splitlines()]
        run = sync_steps[0]["run"]
        store = re.search(r"--store\s+(\S+)", run)
        need(store is not None, "scripts/sync is not given --store")
        if store:
            need(store.group(1).startswith(path.rstrip("/") + "/"),
                 f"the store {store.group(1)} is not under the cached path {path!r}")
        need(key.endswith("${{ github.run_id }}"), "the cache key must change every run (caches are immutable)")
        prefix = key[: -len("${{ github.run_id }}")] if key.endswith("${{ github.run_id }}") else key
        need(bool(prefix) and prefix in restore, f"restore-keys must hold the key's prefix {prefix!r}")
        # The base URL in the key: directly, or through a step that names the index after it.
        named = re.search(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", prefix)
        namer = step_with_id(sync, named.group(1)) if named else None
        need("inputs.base-url" in prefix or
             (namer is not None and "${{ inputs.base-url }}" in (namer.get("env") or {}).values()
              and "sha256sum" in str(namer.get("run", "")) and f"{named.group(2)}=" in str(namer.get("run", ""))),
             "the cache key must name the index crawled (the base-url input), not one store for all")
        need(sync_steps[0].get("id") == "sync", "the scripts/sync step needs id: sync")
        for code, verdict in (("0", "no-change"), ("10", "changed"), ("20", "refused")):
            need(re.search(rf"^\s*{code}\) verdict={verdict} ;;", run, re.M) is not None,
                 f"scripts/sync's exit {code} is not mapped to {verdict}")
        need('--outputs "$GITHUB_OUTPUT"' in run, "scripts/sync must write its step outputs (--outputs)")
        need(re.search(r'--pr-dir "\$result"', run) and 'result="$RUNNER_TEMP/sync-result"' in run,
             "scripts/sync must write the pull request's files into the uploaded folder (--pr-dir)")
        need("--run-url" in run and "$GITHUB_RUN_ID" in run, "the body must link the run (--run-url)")
        need(re.search(r'^\s*\*\) verdict=error; echo "verdict=error" >>"\$GITHUB_OUTPUT" ;;', run, re.M),
             "any other exit of scripts/sync must be the verdict error")
        env = sync_steps[0].get("env") or {}
        need(env.get("ALLOW_REMOVED") == "${{ inputs.allow-removed }}" and
             re.search(r'allow\+=\(--allow-removed "\$name"\)', run) and '"${allow[@]}"' in run,
             "the allow-removed input must reach scripts/sync as --allow-removed NAME")
        need(env.get("TORCHDEX_SYNC_BASE_URL") == "${{ inputs.base-url }}", "the base-url input must reach scripts/sync")
        refused = re.search(r'^\s*if \[ "\$verdict" = refused \]; then\n(.*?)^\s*fi$', run, re.S | re.M)
        need(refused is not None and re.search(r"^\s*exit 1$", refused.group(1), re.M) is not None,
             "a refused sync must fail the job (exit 1)")
    outputs = sync.get("outputs") or {}
    for name in ("verdict", "changed", "title"):
        need(outputs.get(name) == f"${{{{ steps.sync.outputs.{name} }}}}",
             f"jobs.sync.outputs.{name} must come from the sync step")
    uploads = steps_using(sync, "actions/upload-artifact")
    need(len(uploads) == 1 and squeeze(uploads[0].get("if")) == "steps.sync.outputs.changed=='true'",
         "jobs.sync: the result is uploaded when changed is true")

    # One pull request, from a pinned create-pull-request, only when something changed, with
    # the title and body scripts/sync wrote, and a token that is not only the default one.
    need(squeeze(pr.get("if")) == "needs.sync.outputs.changed=='true'",
         "jobs.pull-request must run only when changed is true")
    check_app_token(pr, "pull-request", need)
    cprs = steps_using(pr, "peter-evans/create-pull-request")
    need(len(cprs) == 1, "jobs.pull-request: one peter-evans/create-pull-request step expected")
    if cprs:
        w = cprs[0].get("with") or {}
        need(bool(w.get("branch")) and "${{" not in str(w.get("branch")),
             "create-pull-request needs a fixed branch (one pull request, updated)")
        for key in ("title", "commit-message", "body-path", "add-paths", "token"):
            need(bool(w.get(key)), f"create-pull-request: {key} is missing")
        need(w.get("title") == "${{ needs.sync.outputs.title }}", "the title must be the sync's title output")
        need(str(w.get("body-path", "")) == "${{ runner.temp }}/sync-result/body.md",
             "the pull request body must be the body.md scripts/sync wrote")
        need("generated/**" in str(w.get("add-paths", "")).split(), "add-paths must include generated/**")
        need(w.get("token") == TOKEN_EXPRESSION, f"create-pull-request: the token must be {TOKEN_EXPRESSION}")
        steps = pr.get("steps", [])
        check = step_with_id(pr, "token")
        need(check is not None and steps.index(check) < steps.index(cprs[0]) and
             (check.get("env") or {}).get("TOKEN") == TOKEN_EXPRESSION and "401" in str(check.get("run")) and
             "$GITHUB_STEP_SUMMARY" in str(check.get("run")),
             "jobs.pull-request: a step (id: token) must check the token first and report a 401 in the summary")
        need(cprs[0].get("id") == "pull-request" and any(
            squeeze(s.get("if")) == "failure()&&steps.pull-request.outcome=='failure'" and
            "Allow GitHub Actions to create and approve pull requests" in str(s.get("run"))
            for s in steps), "jobs.pull-request: a failed create-pull-request must explain the repository setting")

    # A stale pull request is closed when the index matches the default branch again.
    need(squeeze(close.get("if")) == "needs.sync.outputs.verdict=='no-change'",
         "jobs.close-stale must run only when the verdict is no-change")
    check_app_token(close, "close-stale", need)
    closing = [s for s in close.get("steps", []) if "gh pr close" in str(s.get("run", ""))]
    need(len(closing) == 1 and "--head sync/catalogue" in str(closing[0].get("run")) and
         (closing[0].get("env") or {}).get("GH_TOKEN") == TOKEN_EXPRESSION,
         "jobs.close-stale must close the open sync/catalogue pull request with the sync token")
    if cprs and closing:
        need(str((cprs[0].get("with") or {}).get("branch")) in str(closing[0].get("run")),
             "jobs.close-stale must close the branch create-pull-request uses")
    return problems


def run_token_check(doc, status, token_source):
    """Runs the pull-request job's token check (its own bash) against a loopback API answering
    `status`; returns (exit code, job summary)."""
    import http.server
    import os
    import subprocess
    import tempfile
    import threading

    class Api(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(status if self.headers.get("Authorization") == "Bearer the-token" else 400)
            self.end_headers()

        def log_message(self, *args):
            pass

    check = step_with_id(doc["jobs"]["pull-request"], "token")
    server = http.server.HTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as d:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TOKEN": "the-token",
                   "FROM_APP": str(token_source == "app").lower(),
                   "FROM_SECRET": str(token_source == "secret").lower(),
                   "GITHUB_API_URL": f"http://127.0.0.1:{server.server_port}",
                   "GITHUB_REPOSITORY": "owner/torchdex",
                   "GITHUB_OUTPUT": f"{d}/output", "GITHUB_STEP_SUMMARY": f"{d}/summary"}
            code = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", check["run"]], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            summary = open(f"{d}/summary").read() if os.path.exists(f"{d}/summary") else ""
            return code, summary
    finally:
        server.shutdown()


def check_token_step(doc):
    """The token check, run: an expired stored token (401) fails the job and says so in the
    summary; a good token passes quietly; a token without access (404) fails naming the status."""
    problems = []
    code, summary = run_token_check(doc, 401, "secret")
    if code != 1 or not all(s in summary for s in ("HTTP 401", "the secret TORCHDEX_SYNC_TOKEN", "expired")):
        problems.append(f"token check: an expired TORCHDEX_SYNC_TOKEN (401) gave exit {code} and summary {summary!r}")
    code, summary = run_token_check(doc, 200, "app")
    if code != 0 or summary:
        problems.append(f"token check: a good App token gave exit {code} and summary {summary!r}")
    code, summary = run_token_check(doc, 404, "default")
    if code != 1 or "HTTP 404" not in summary:
        problems.append(f"token check: a 404 gave exit {code} and summary {summary!r}")
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


PUBLISHING_JOBS = {"pypi": {"id-token": "write"}, "github-release": {"contents": "write"}}
RELEASE_ARCHES = {"x86_64", "aarch64"}
REPOSITORY_CODE = re.compile(r"(^|[\s/])(scripts/|\.ci/|tests/|ctest|cmake|bash\s+\S+\.sh)")


def check_release(doc):
    """Returns a list of problems with release.yml; empty when it is the job we rely on: on a
    tag v* (or by hand), the wheel and the .deb built and tested (ctest -L package, the wheel
    required) on a runner of each architecture, the sdist built and a wheel built from it, and
    only on a tag, publishing by jobs that hold just the permission they need and run none of
    the repository's code, PyPI by trusted publishing."""
    problems = []

    def need(condition, message):
        if not condition:
            problems.append(message)

    on = doc.get("on") or {}
    need("v*" in ((on.get("push") or {}).get("tags") or []), "on.push.tags must hold v*")
    need(set((on.get("push") or {}).keys()) == {"tags"}, "on.push must be tags only (not every push)")
    need("workflow_dispatch" in on, "on.workflow_dispatch is missing")
    need(doc.get("permissions") == {}, "top-level permissions must be {} (each job asks for its own)")
    jobs = doc.get("jobs") or {}
    for name in ("linux", "sdist", *PUBLISHING_JOBS):
        need(name in jobs, f"jobs.{name} is missing")
    for name, job in jobs.items():
        perms = job.get("permissions")
        need(isinstance(perms, dict), f"jobs.{name}.permissions must be explicit")
        if name in PUBLISHING_JOBS:
            need(perms == PUBLISHING_JOBS[name], f"jobs.{name}.permissions must be exactly {PUBLISHING_JOBS[name]}")
            need(squeeze(job.get("if")) == "startsWith(github.ref,'refs/tags/v')",
                 f"jobs.{name} must run only on a tag v*")
            need(set(job.get("needs") or []) == {"linux", "sdist"}, f"jobs.{name} must need linux and sdist")
            need(not steps_using(job, "actions/checkout"), f"jobs.{name} must not check out the repository")
            for step in job.get("steps", []):
                need(not REPOSITORY_CODE.search(str(step.get("run", ""))),
                     f"jobs.{name} runs the repository's code: {step.get('name', step.get('uses'))!r}")
        elif isinstance(perms, dict):
            need(perms == {"contents": "read"}, f"jobs.{name}.permissions must be contents: read only")
        if name not in PUBLISHING_JOBS:
            for checkout in steps_using(job, "actions/checkout"):
                need(str((checkout.get("with") or {}).get("persist-credentials")).lower() == "false",
                     f"jobs.{name}: the checkout must not keep the token (persist-credentials: false)")

    linux = jobs.get("linux") or {}
    include = ((linux.get("strategy") or {}).get("matrix") or {}).get("include") or []
    need({str(i.get("arch")) for i in include if isinstance(i, dict)} == RELEASE_ARCHES,
         f"jobs.linux must build {sorted(RELEASE_ARCHES)}")
    need(all("arm" in str(i.get("runner")) for i in include if isinstance(i, dict) and i.get("arch") == "aarch64"),
         "jobs.linux: aarch64 must run on an arm runner (no emulation)")
    need(linux.get("runs-on") == "${{ matrix.runner }}", "jobs.linux must run on the matrix's runner")
    need(linux.get("container") == "debian:12", "jobs.linux must build in debian:12, as CI tests")
    runs = [(s, str(s.get("run", ""))) for s in linux.get("steps", [])]
    need(any(re.search(r"^\s*scripts/wheel\s*$", r, re.M) for _, r in runs), "jobs.linux must run scripts/wheel")
    tests = [s for s, r in runs if re.search(r"ctest --preset release -L package\b", r)]
    need(len(tests) == 1 and (tests[0].get("env") or {}).get("TORCHDEX_WHEEL_REQUIRED") == "1",
         "jobs.linux must run ctest -L package with TORCHDEX_WHEEL_REQUIRED=1 (the wheel test may not skip)")
    need(any("--target deb" in r for _, r in runs), "jobs.linux must build the .deb")
    tag = [r for s, r in runs if "CMakeLists.txt" in r and
           re.search(r'^\s*if \[ "v\$version" != "\$GITHUB_REF_NAME" \]; then\n(.*\n)*?\s*exit 1$', r, re.M)]
    need(len(tag) == 1, "jobs.linux must fail when the tag is not v<the version of CMakeLists.txt>")
    sdist = jobs.get("sdist") or {}
    need(any(re.search(r"^\s*scripts/wheel --sdist\s*$", str(s.get("run", "")), re.M) for s in sdist.get("steps", [])),
         "jobs.sdist must run scripts/wheel --sdist")
    for name in ("linux", "sdist"):
        uploads = steps_using(jobs.get(name) or {}, "actions/upload-artifact")
        need(len(uploads) == 1 and (uploads[0].get("with") or {}).get("if-no-files-found") == "error",
             f"jobs.{name} must upload its files, failing when there are none")
    pypi = jobs.get("pypi") or {}
    need(len(steps_using(pypi, "pypa/gh-action-pypi-publish")) == 1, "jobs.pypi must publish with pypa/gh-action-pypi-publish")
    need(pypi.get("environment") == "pypi", "jobs.pypi must run in the environment pypi (trusted publishing)")
    need(not any("password" in (s.get("with") or {}) for s in pypi.get("steps", [])),
         "jobs.pypi must use trusted publishing, not a stored token")
    release = jobs.get("github-release") or {}
    need(any("gh release create" in str(s.get("run", "")) and "--verify-tag" in str(s.get("run", ""))
             for s in release.get("steps", [])), "jobs.github-release must create the release of the existing tag")
    return problems


def self_test_release(root):
    """Each broken copy of release.yml is rejected."""
    with open(f"{root}/.github/workflows/release.yml", encoding="utf-8") as f:
        good = f.read()
    breakages = {
        "every push": (r'^  push:\n    tags:\n      - "v\*"\n', "  push:\n"),
        "write-all at the top": (r"^permissions: \{\}", "permissions: write-all"),
        "no aarch64": (r"          - arch: aarch64\n            runner: ubuntu-24.04-arm\n", ""),
        "aarch64 emulated": (r"runner: ubuntu-24.04-arm", "runner: ubuntu-24.04"),
        "the wheel test may skip": (r'          TORCHDEX_WHEEL_REQUIRED: "1"\n', '          TORCHDEX_WHEEL_REQUIRED: "0"\n'),
        "no wheel": (r"^        run: scripts/wheel$", "        run: true"),
        "no sdist": (r"scripts/wheel --sdist$", "true"),
        "publishing from any ref": (r"    if: startsWith\(github\.ref, 'refs/tags/v'\)\n", ""),
        "pypi can write the repository": (r"      id-token: write\n", "      id-token: write\n      contents: write\n"),
        "pypi by tag, not SHA": (r"gh-action-pypi-publish@[0-9a-f]{40}", "gh-action-pypi-publish@release/v1"),
        "pypi with a stored token": (r"          packages-dir: dist/\n", "          packages-dir: dist/\n          password: ${{ secrets.PYPI }}\n"),
        "the release runs the repository's code": (r"(  github-release:(?:.*\n)*?    steps:\n)",
                                                    r"\1      - run: scripts/wheel\n"),
        "no tag check": (r'GITHUB_REF_NAME" \]; then', 'X" ]; then'),
        "the build keeps the token": (r"persist-credentials: false", "persist-credentials: true"),
    }
    failures = []
    if check_release(load(good, "release.yml")):
        failures.append("the real release.yml does not pass")
    for what, (pattern, replacement) in breakages.items():
        broken, n = re.subn(pattern, replacement, good, count=1, flags=re.M)
        if n < 1:
            failures.append(f"self-test {what!r}: pattern not found in release.yml")
            continue
        doc = load(broken, "release.yml")
        if not (check_release(doc) + check_pins(doc, "release.yml")):
            failures.append(f"self-test {what!r}: the broken workflow was accepted")
    return failures


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
    for name, checker in (("sync.yml", check_sync), ("ci.yml", check_ci), ("release.yml", check_release)):
        path = f"{root}/.github/workflows/{name}"
        with open(path, encoding="utf-8") as f:
            doc = load(f.read(), path)
        problems += [f"{name}: {p}" for p in checker(doc)] + check_pins(doc, name)
        if name == "sync.yml" and step_with_id((doc.get("jobs") or {}).get("pull-request") or {}, "token"):
            problems += [f"{name}: {p}" for p in check_token_step(doc)]
    return problems


def self_test(root):
    """The checks must catch what they are for: each broken copy of sync.yml is rejected."""
    with open(f"{root}/.github/workflows/sync.yml", encoding="utf-8") as f:
        good = f.read()
    breakages = {
        "no schedule": (r"  schedule:\n    - cron: .*\n", ""),
        "hourly": (r'cron: "17 5 \* \* \*"', 'cron: "17 * * * *"'),
        "no dispatch": (r"  workflow_dispatch:\n", "  workflow_call:\n"),
        "no allow-removed input": (r"      allow-removed:\n(        .*\n)+", ""),
        "allow-removed not passed on": (r' "\$\{allow\[@\]\}"', ""),
        "write-all at the top": (r"^permissions: \{\}", "permissions: write-all"),
        "the sync job can push": (r"    permissions:\n      contents: read\n", "    permissions:\n      contents: write\n"),
        "forks run it": (r"\(github\.event\.repository\.fork != true \|\| vars\.TORCHDEX_SYNC_IN_FORK == 'true'\) &&", ""),
        "a dispatch from any branch": (r"github\.ref_name == github\.event\.repository\.default_branch", "true"),
        "a tag, not a SHA": (r"create-pull-request@[0-9a-f]{40}", "create-pull-request@v7"),
        "the App token by tag": (r"create-github-app-token@[0-9a-f]{40}", "create-github-app-token@v2"),
        "a fixed cache key": (r"\$\{\{ github\.run_id \}\}\n", "latest\n"),
        "one store for every index": (r"\$\{\{ steps\.store\.outputs\.index \}\}-", "", 0),
        "the store outside the cache": (r"--store \.cache/torchdex/store\.sqlite", "--store /tmp/store.sqlite"),
        "refused does not fail": (r"exit 1\n", "true\n"),
        "no step outputs from scripts/sync": (r' +--outputs "\$GITHUB_OUTPUT" \\\n', ""),
        "no body": (r"          body-path: .*\n", ""),
        "the summary as the body": (r"sync-result/body\.md", "sync-result/summary.md"),
        "a constant title": (r"title: \$\{\{ needs\.sync\.outputs\.title \}\}", 'title: "Catalogue sync"'),
        "a branch per run": (r"branch: sync/catalogue", "branch: sync/${{ github.run_id }}"),
        "the default token only": (r"^          token: \$\{\{ steps\.app-token.*\}\}$", "          token: ${{ github.token }}"),
        "no App token": (r"        if: vars\.TORCHDEX_SYNC_APP_ID != ''\n", ""),
        "no token check": (r"id: token\n", "id: token-check\n"),
        "no label permission": (r"      issues: write.*\n", ""),
        "no word on the repository setting": (r"Allow GitHub Actions to create and approve pull requests", "the setting"),
        "stale pull requests stay open": (r"verdict == 'no-change'", "verdict == 'never'"),
        "close-stale runs the repository's code": (r"(  close-stale:(?:.*\n)*?        run: \|\n)", r"\1          bash scripts/sync\n"),
    }
    failures = []
    if check_sync(load(good, "sync.yml")):
        failures.append("the real sync.yml does not pass")
    for what, (pattern, replacement, *count) in breakages.items():
        broken, n = re.subn(pattern, replacement, good, count=count[0] if count else 1, flags=re.M)
        if n < 1:
            failures.append(f"self-test {what!r}: pattern not found in sync.yml")
            continue
        doc = load(broken, "sync.yml")
        if not (check_sync(doc) + check_pins(doc, "sync.yml")):
            failures.append(f"self-test {what!r}: the broken workflow was accepted")
    # The token check, run: a copy that takes a 401 for any other refusal is caught.
    broken = load(good.replace("            401)\n", "            999)\n"), "sync.yml")
    if not check_token_step(broken):
        failures.append("self-test 'a 401 not called expired': the broken token check was accepted")
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
            problems += self_test(root) + self_test_release(root)
    except YamlError as e:
        problems = [f"YAML outside the supported subset: {e}"]
    for p in problems:
        print(f"FAILED - {p}")
    print(f"workflow_keys: {'0 failed' if not problems else f'{len(problems)} failed'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
