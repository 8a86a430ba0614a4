"""A sweep as a user runs one, end to end: three training scripts under hwmon (the fake
nvidia-smi for the GPUs), each logging its config (lr, bs), metric events (loss per epoch, a
final acc) and phases with steps=, one raising mid-phase; then the answers a sweep needs, from
every output: the csv rows (param.*, metric.*, status, status_reason, steps that ran), the sweep
page (params, metrics, status and why), the text report's first screen (status, energy, peak
RSS), and --compare (the params that differ).

Run by CTest with PYTHONPATH naming the build tree's python/ folder, HWMON, SUMMARIZE and
HWRUN_FAKE_SMI the built programs.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HWMON = os.environ.get("HWMON")
SUMMARIZE = os.environ.get("SUMMARIZE")
FAKE_SMI = os.environ.get("HWRUN_FAKE_SMI")

TRAIN = textwrap.dedent("""\
    import sys, time
    from runlog import RunLog
    lr, fail = float(sys.argv[1]), sys.argv[2] == "fail"
    log = RunLog()  # hwmon's run.jsonl ($RUNLOG_FILE)
    log.log_event("config", {"lr": lr, "bs": 64})
    block = bytearray(48 << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    for epoch in range(2):
        with log.phase("train", steps=50):
            end = time.monotonic() + 0.6
            while time.monotonic() < end:
                pass
            if fail and epoch == 1:
                raise RuntimeError("loss is nan")
        log.log_event("metric", {"loss": round(lr * 1000 / (epoch + 1), 6)})
        with log.phase("eval"):
            time.sleep(0.1)
    log.log_event("metric", {"acc": round(0.9 - lr * 10, 6)})
""")

# (directory, lr, whether it raises)
RUNS = [("lr1e-3", 1e-3, False), ("lr3e-4", 3e-4, False), ("lr1e-2", 1e-2, True)]


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (HWMON and SUMMARIZE and FAKE_SMI):
            raise AssertionError("HWMON, SUMMARIZE and HWRUN_FAKE_SMI must be set (run through "
                                 "ctest)")
        cls.tmp = Path(tempfile.mkdtemp(prefix="runlog-sweep-"))
        script = cls.tmp / "train.py"
        script.write_text(TRAIN)
        cls.dirs = []
        cls.rc = {}
        for name, lr, fail in RUNS:
            d = cls.tmp / "runs" / name
            p = subprocess.run([HWMON, "--nvidia-smi", FAKE_SMI, "-i", "0.2", "-o", str(d), "--",
                                sys.executable, str(script), repr(lr), "fail" if fail else "ok"],
                               capture_output=True, text=True, timeout=120)
            cls.rc[name] = p.returncode
            cls.dirs.append(d)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def summarize(self, *args, check=True):
        p = subprocess.run([SUMMARIZE, "-q"] + [str(a) for a in args], capture_output=True,
                           text=True, timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_hwmon_passes_the_exit_status_on(self):
        self.assertEqual(self.rc, {"lr1e-3": 0, "lr3e-4": 0, "lr1e-2": 1})

    def test_rows(self):
        rows = {Path(r["dir"]).name: r
                for r in csv.DictReader(io.StringIO(self.summarize("--format", "csv",
                                                                   *self.dirs)))}
        self.assertEqual(set(rows), {name for name, _, _ in RUNS})
        for name, lr, fail in RUNS:
            r = rows[name]
            self.assertEqual(float(r["param.lr"]), lr)
            self.assertEqual(r["param.bs"], "64")
            if fail:
                self.assertEqual(r["status"], "failed")
                # the exception's first line too, not only the exit status
                self.assertEqual(r["status_reason"], "the command exited with status 1; phase "
                                 "`train` raised RuntimeError: loss is nan")
                self.assertEqual(r["failed_phase"], "train")
                self.assertEqual(r["failed_phase_reason"], "RuntimeError: loss is nan")
                # the steps that ran: the first epoch's; the failed phase's planned 50 are not
                self.assertEqual(float(r["steps"]), 50)
                self.assertEqual(float(r["metric.loss"]), round(lr * 1000, 6))  # epoch 0's
                self.assertEqual(r["metric.acc"], "")  # never logged: an empty cell, not 0
                self.assertGreaterEqual(int(r["errors"]), 1)
            else:
                self.assertEqual(r["status"], "ok")
                self.assertEqual(r["status_reason"], "the command exited 0")
                self.assertEqual(float(r["steps"]), 100)
                self.assertEqual(float(r["metric.loss"]), round(lr * 1000 / 2, 6))  # the last
                self.assertEqual(float(r["metric.acc"]), round(0.9 - lr * 10, 6))
                self.assertEqual(r["errors"], "0")
            # every run measured its GPUs (the fake's) and its process (48 MiB held)
            self.assertGreater(float(r["energy_wh"]), 0)
            self.assertGreaterEqual(float(r["peak_rss_mb"]), 48)
        # the best run by a metric, as the README's recipe picks it
        ok = [r for r in rows.values() if r["status"] == "ok" and r["errors"] == "0"]
        best = min(ok, key=lambda r: float(r["metric.loss"]))
        self.assertEqual(Path(best["dir"]).name, "lr3e-4")

    def test_sweep_page(self):
        page = self.tmp / "sweep.html"
        self.summarize("--html", page, *self.dirs)
        html = page.read_text()
        heads = re.findall(r"<th[^>]*>(.*?)</th>", html, re.S)
        text = [re.sub(r"<[^>]+>", "", h).strip() for h in heads]
        titles = re.findall(r'<th class="sort[^"]*" scope="col" title="([^"]*)"', html)
        # the param that varies and every metric are columns; bs, 64 in every run, is said
        # once above the table
        for col in ("param.lr", "metric.loss", "metric.acc"):
            self.assertTrue(any(t.startswith(col + " ") for t in titles),
                            "%s not a column of the page" % col)
        self.assertFalse(any(t.startswith("param.bs") for t in titles), titles)
        self.assertRegex(html, r'id="same">[^\n]*data-param="bs">bs <b>64</b>')
        self.assertTrue(any(t.lower().startswith("status") for t in text), text)
        # each run's status, and the failed one's reason in words, with its exception
        for word in ("ok", "failed", "the command exited with status 1",
                     "RuntimeError: loss is nan"):
            self.assertIn(word, html)

    def test_text_first_screen(self):
        failed = self.dirs[2]
        lines = self.summarize("--format", "text", failed).splitlines()
        first = "\n".join(lines[:24])
        self.assertRegex(first, r"(?m)^  status FAILED: the command exited with status 1")
        self.assertRegex(first, r"(?m)^  duration .*, energy [0-9.]+ Wh")
        self.assertRegex(first, r"(?m)^  job: process peak RSS [0-9.]+ MiB")
        self.assertTrue(all(len(l) <= 100 for l in lines), max(lines, key=len))

    def test_compare_names_the_params_that_differ(self):
        doc = json.loads(self.summarize("--compare", "--format", "json", self.dirs[0],
                                        self.dirs[1]))
        self.assertIn("lr", json.dumps(doc["params"]))
        self.assertNotIn('"bs"', json.dumps(doc["params"]))  # the same in both: not a change


if __name__ == "__main__":
    unittest.main()
