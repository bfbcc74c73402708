#!/usr/bin/env python3
"""scripts/sync_pr.py: the sync pull request's title and body, on crafted diffs (the end-to-end
test, sync_e2e.sh, covers the real ones: a new backend with torch versions, a new release).

    sync_pr_test.py REPO_ROOT
"""
import importlib.util
import sys
import unittest

spec = importlib.util.spec_from_file_location("sync_pr", f"{sys.argv.pop(1)}/scripts/sync_pr.py")
sync_pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sync_pr)


def diff(**fields):
    d = {"backends_added": [], "backends_removed": [], "projects_added": [], "projects_removed": [],
         "reclassified": [], "versions": []}
    d.update(fields)
    return d


def torch(backend, added=(), removed=(), project="torch"):
    return {"project": project, "backend": backend, "added": list(added), "removed": list(removed)}


class Title(unittest.TestCase):
    def title(self, d):
        return sync_pr.make_title(sync_pr.title_parts(d))

    def test_a_new_release_names_its_backends_newest_first(self):
        d = diff(versions=[torch("cu128", ["2.11.0+cu128"]), torch("cu126", ["2.11.0+cu126", "2.10.1+cu126"])])
        self.assertEqual(self.title(d), "Catalogue sync: torch 2.11.0 (cu126, cu128), 2.10.1 (cu126)")

    def test_new_backends_come_first_and_many_backends_are_counted(self):
        backends = ["cu126", "cu128", "cu130", "cu132", "rocm7.2"]
        d = diff(backends_added=["cu132", "rocm7.2"],
                 versions=[torch(b, [f"2.11.0+{b}"]) for b in backends])
        self.assertEqual(self.title(d), "Catalogue sync: new backends cu132, rocm7.2; torch 2.11.0 (5 backends)")

    def test_removals_are_named(self):
        d = diff(backends_removed=["cu75"], projects_removed=["torchtext (routed)"],
                 versions=[torch("cu121", removed=["2.3.1+cu121"]), torch("cu118", removed=["2.3.1+cu118"])])
        self.assertEqual(self.title(d), "Catalogue sync: removes cu75, torchtext and 2 builds")

    def test_other_packages_when_torch_did_not_change(self):
        d = diff(versions=[torch("cu128", ["0.26.0+cu128"], project="torchvision"),
                           torch("cu128", ["3.6.0"], project="triton")])
        self.assertEqual(self.title(d), "Catalogue sync: new builds of torchvision, triton")
        self.assertEqual(self.title(diff()), "Catalogue sync: backend and package details changed")

    def test_a_long_title_is_cut_at_a_separator(self):
        d = diff(backends_added=[f"cu{n}" for n in range(200, 240)])
        title = self.title(d)
        self.assertLessEqual(len(title), sync_pr.MAX_TITLE)
        self.assertTrue(title.endswith(", cu" + title.rsplit(", cu", 1)[1]))
        self.assertRegex(title, r", cu2\d\d…$")


class Body(unittest.TestCase):
    summary = "## sync\n\nintro\n\n```text\n" + "".join(f"torch on cu{n}: + 2.11.0\n" for n in range(400)) + \
        "```\n\nTests: passed\n"

    def test_a_short_body_is_the_summary_after_what_changed_and_the_run(self):
        body = sync_pr.make_body(["torch 2.11.0 (cu128)"], "## s\n", "https://x/runs/1", 60000)
        self.assertEqual(body, "**What changed:** torch 2.11.0 (cu128).\n\n"
                               "Opened by the [sync run](https://x/runs/1).\n\n## s\n")

    def test_a_cut_inside_a_code_block_closes_it_and_stays_within_the_limit(self):
        for limit in (300, 1000, 5000):
            body = sync_pr.make_body(["x"], self.summary, "https://x/runs/1", limit)
            self.assertLessEqual(len(body), limit)
            lines = body.splitlines()
            self.assertEqual(sum(line.startswith("```") for line in lines) % 2, 0, body)
            self.assertIn("The whole summary is on [the run's page](https://x/runs/1).", body)
            kept = body[:body.index("\n*(Cut here")]
            self.assertTrue(self.summary.startswith(kept[kept.index("## sync"):].removesuffix("```\n")))

    def test_a_cut_outside_a_code_block_adds_no_fence(self):
        summary = "## sync\n\n" + "".join(f"- line {n}\n" for n in range(1000))
        body = sync_pr.make_body(["x"], summary, "", 2000)
        self.assertNotIn("```", body)
        self.assertIn("more lines of the summary. The whole summary is in scripts/sync's --summary file.", body)


if __name__ == "__main__":
    unittest.main(verbosity=1)
