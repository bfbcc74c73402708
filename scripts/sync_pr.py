#!/usr/bin/env python3
"""The sync pull request's title and body (scripts/sync, docs/sync.md).

  sync_pr.py --diff DIFF.json --summary SUMMARY.md --title-out FILE --body-out FILE
             [--run-url URL] [--max-body CHARS]

DIFF.json is `torchdex-crawl diff COMMITTED CRAWLED --json`. The title says what changed, most important
first: new backends, the torch versions that appeared (with their backends), what was removed;
otherwise which packages got new builds. The body is the summary, after a line that says the
same and links the run; a body longer than --max-body (GitHub takes 65,536 characters) is cut
at a line outside any code block, and the cut says where the whole summary is.
"""
import argparse
import json
import re
import sys

TITLE_PREFIX = "Catalogue sync: "
MAX_TITLE = 120


def public(version):
    return version.split("+", 1)[0]


def version_key(version):
    """PEP 440 order, enough for release numbers and pre-releases: 2.10.0 > 2.9.1 > 2.9.1rc1."""
    m = re.match(r"(\d+(?:\.\d+)*)(.*)", version)
    if not m:
        return ((), 0, version)
    release = tuple(int(p) for p in m.group(1).split("."))
    while release and release[-1] == 0:
        release = release[:-1]
    return (release, 1 if m.group(2) == "" else 0, m.group(2))


def names(items, one, many):
    return f"{one if len(items) == 1 else many} {', '.join(items)}"


def torch_part(diff):
    """'torch 2.11.0 (cu126, cu128)', newest first: the torch versions that appeared, and where
    (a release already on other backends is named too: it is new on these)."""
    added = {}
    for entry in diff.get("versions", []):
        if entry["project"] != "torch":
            continue
        for v in entry.get("added", []):
            added.setdefault(public(v), set()).add(entry["backend"])
    if not added:
        return None
    pieces = []
    for v in sorted(added, key=version_key, reverse=True):
        backends = sorted(added[v])
        where = ", ".join(backends) if len(backends) <= 4 else f"{len(backends)} backends"
        pieces.append(f"{v} ({where})")
    return "torch " + ", ".join(pieces)


def removal_part(diff):
    gone = list(diff.get("backends_removed", []))
    gone += [p.split(" ", 1)[0] for p in diff.get("projects_removed", [])]
    builds = sum(len(e.get("removed", [])) for e in diff.get("versions", []))
    bits = []
    if gone:
        bits.append(", ".join(gone))
    if builds:
        bits.append(f"{builds} build{'s' if builds != 1 else ''}")
    return "removes " + " and ".join(bits) if bits else None


def title_parts(diff):
    parts = []
    if diff.get("backends_added"):
        parts.append(names(diff["backends_added"], "new backend", "new backends"))
    torch = torch_part(diff)
    if torch:
        parts.append(torch)
    removed = removal_part(diff)
    if removed:
        parts.append(removed)
    if not parts:
        others = sorted({e["project"] for e in diff.get("versions", []) if e.get("added")})
        if others:
            parts.append("new builds of " + ", ".join(others))
        if diff.get("projects_added"):
            parts.append(names([p.split(" ", 1)[0] for p in diff["projects_added"]],
                               "new package", "new packages"))
        if diff.get("reclassified"):
            parts.append("reclassifies " + ", ".join(r["project"] for r in diff["reclassified"]))
    return parts or ["backend and package details changed"]


def make_title(parts):
    title = TITLE_PREFIX + "; ".join(parts)
    if len(title) <= MAX_TITLE:
        return title
    # Cut at a list separator, never inside a name.
    cut = max(title.rfind("; ", 0, MAX_TITLE - 1), title.rfind(", ", 0, MAX_TITLE - 1))
    return title[:cut if cut > len(TITLE_PREFIX) else MAX_TITLE - 1] + "…"


def make_body(parts, summary, run_url, max_body):
    where = f"the [sync run]({run_url})" if run_url else "scripts/sync"
    head = f"**What changed:** {'; '.join(parts)}.\n\nOpened by {where}.\n\n"
    if len(head) + len(summary) <= max_body:
        return head + summary
    whole = f"on [the run's page]({run_url})" if run_url else "in scripts/sync's --summary file"

    def ending(in_code, left):  # closes an open code block, then says what was cut
        return (("```\n" if in_code else "") +
                f"\n*(Cut here: {left} more lines of the summary. The whole summary is {whole}.)*\n")

    lines = summary.splitlines(keepends=True)
    kept, kept_in_code = 0, False
    size, in_code = len(head), False
    for i, line in enumerate(lines):
        size += len(line)
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if size + len(ending(in_code, len(lines) - i - 1)) > max_body:
            break
        kept, kept_in_code = i + 1, in_code
    return head + "".join(lines[:kept]) + ending(kept_in_code, len(lines) - kept)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--diff", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--title-out", required=True)
    ap.add_argument("--body-out", required=True)
    ap.add_argument("--run-url", default="")
    ap.add_argument("--max-body", type=int, default=60000)
    a = ap.parse_args(argv[1:])
    with open(a.diff, encoding="utf-8") as f:
        diff = json.load(f)
    with open(a.summary, encoding="utf-8") as f:
        summary = f.read()
    parts = title_parts(diff)
    with open(a.title_out, "w", encoding="utf-8") as f:
        f.write(make_title(parts) + "\n")
    with open(a.body_out, "w", encoding="utf-8") as f:
        f.write(make_body(parts, summary, a.run_url, a.max_body))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
