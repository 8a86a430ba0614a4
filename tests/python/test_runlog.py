"""Tests of the runlog Python package (python/runlog) against the built librunlog.

Run by CTest with PYTHONPATH naming the build tree's python/ folder. Each test writes into its
own temporary directory.
"""
import json
import math
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import runlog
from runlog import RunLog

TS = re.compile(r'^\{"ts": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00)", ')


def pytyche_phase(ts, name, seconds, **extra):
    """The line pytyche's RunLog.log_phase + write() produce (its own code, with our ts)."""
    entry = {"ts": ts, "type": "phase", "name": name, "seconds": round(seconds, 3)}
    entry.update(extra)
    return json.dumps(entry, default=str) + "\n"


def pytyche_event(ts, event_type, data=None):
    entry = {"ts": ts, "type": "event", "event": event_type}
    if data:
        entry["data"] = data
    return json.dumps(entry, default=str) + "\n"


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="runlog-py-")
        self.path = os.path.join(self.dir, "run.jsonl")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def lines(self):
        with open(self.path, encoding="utf-8") as f:
            return f.readlines()


class Shapes(Base):
    """Lines equal to pytyche's, byte for byte, for the same inputs."""

    PHASES = [
        ("train", 12.3456, {}),
        ("load", 0.0004, {"rows": 10000, "loss": 1.93, "lr": 3e-4, "ok": True, "note": None}),
        ("eval", 1e-9, {"big": 1e100, "tiny": 1e-7, "neg": -0.0, "third": 1 / 3, "i64": 2**63 - 1}),
        ("nest", 2.5, {"cfg": {"a": [1, 2.5, None, True], "b": {"c": "d"}}, "t": (1, "x")}),
        ('q"uo\\te', 3.0, {"s": "tab\there\nnl \x01 \x1f", "path": pathlib.PurePosixPath("/a/b")}),
        ("round", 2.0005, {"k": 0.1 + 0.2}),
    ]
    EVENTS = [
        ("start", None),
        ("empty", {}),
        ("checkpoint", {"step": 1000, "path": "/ckpt/1000"}),
        ("nested", {"list": [1, [2, [3.25]]], "obj": {"x": {"y": None}}, 1: "int key", None: 0}),
        ("other", {"when": pathlib.PurePosixPath("/x"), "f": 5e-324}),
    ]

    def test_phase_lines_equal_pytyche(self):
        with RunLog(self.path) as log:
            for name, sec, extra in self.PHASES:
                log.log_phase(name, sec, **extra)
        got = self.lines()
        self.assertEqual(len(got), len(self.PHASES))
        for line, (name, sec, extra) in zip(got, self.PHASES):
            ts = TS.match(line).group(1)
            self.assertEqual(line, pytyche_phase(ts, name, sec, **extra))

    def test_event_lines_equal_pytyche(self):
        with RunLog(self.path) as log:
            for ev, data in self.EVENTS:
                log.log_event(ev, data)
        got = self.lines()
        self.assertEqual(len(got), len(self.EVENTS))
        for line, (ev, data) in zip(got, self.EVENTS):
            ts = TS.match(line).group(1)
            self.assertEqual(line, pytyche_event(ts, ev, data))

    def test_non_ascii_same_json(self):
        # pytyche escapes non-ASCII (\u00e9); librunlog writes UTF-8: the same JSON value.
        with RunLog(self.path) as log:
            log.log_phase("é", 1.0, model="ünï", emoji="🙂", dl="\x7f")
        line = self.lines()[0]
        ts = TS.match(line).group(1)
        self.assertEqual(json.loads(line), json.loads(pytyche_phase(ts, "é", 1.0, model="ünï", dl="\x7f",
                                                                      emoji="🙂")))

    def test_nan_is_null(self):
        with RunLog(self.path) as log:
            log.log_phase("x", 1.0, loss=math.nan, inf=math.inf, nested=[math.nan])
        self.assertEqual(json.loads(self.lines()[0])["loss"], None)
        self.assertEqual(json.loads(self.lines()[0])["nested"], [None])

    def test_nul_in_value_kept(self):
        with RunLog(self.path) as log:
            log.log_event("x", {"s": "a\0b"})
        self.assertEqual(json.loads(self.lines()[0])["data"]["s"], "a\0b")

    def test_timestamp_is_now_utc(self):
        before = time.time()
        with RunLog(self.path) as log:
            log.log_event("now")
        ts = TS.match(self.lines()[0]).group(1)
        import datetime
        t = datetime.datetime.fromisoformat(ts).timestamp()
        self.assertLessEqual(abs(t - before), 2.0)


class Timing(Base):
    def test_phase_context(self):
        with RunLog(self.path) as log:
            with log.phase("sleep", steps=3):
                time.sleep(0.05)
        b, e = (json.loads(x) for x in self.lines())
        # logged when it begins and when it ends, paired by phase_id
        self.assertEqual((b["type"], b["name"], b["steps"]), ("phase_begin", "sleep", 3))
        self.assertNotIn("seconds", b)
        self.assertEqual((e["type"], e["name"], e["steps"]), ("phase", "sleep", 3))
        self.assertEqual(e["phase_id"], b["phase_id"])
        self.assertGreaterEqual(e["seconds"], 0.05)
        self.assertLess(e["seconds"], 5)
        self.assertNotIn("exception", e)

    def test_phase_reserved_extras(self):
        # extras named as the entry's own keys: no ValueError into the job; the entries keep
        # the library's (so they pair and count), the caller's values are under reserved_extra
        import warnings
        runlog._warned.discard("span keys")
        # (name is phase()'s own argument: Python itself takes it as the phase's name)
        mine = {"ts": "t0", "type": "mine", "seconds": -1, "phase_id": 7}
        with RunLog(self.path) as log:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                with log.phase("fit", steps=3, **mine):
                    pass
                with log.phase("fit", reserved_extra=1, type="n"):
                    pass

                @log.timed(seconds=5)
                def f():
                    return 42
                self.assertEqual(f(), 42)
        said = [x for x in w if "the entry's own" in str(x.message)]
        self.assertEqual(len(said), 1, [str(x.message) for x in w])  # once
        self.assertIs(said[0].category, RuntimeWarning)
        lines = [json.loads(x) for x in self.lines()]
        self.assertEqual([e["type"] for e in lines], ["phase_begin", "phase"] * 3)
        b, e = lines[0], lines[1]
        for x in (b, e):
            self.assertEqual((x["name"], x["steps"], x["reserved_extra"]), ("fit", 3, mine))
            self.assertNotEqual(x["phase_id"], 7)
            self.assertRegex(x["ts"], r"^\d{4}-")
        self.assertEqual(e["phase_id"], b["phase_id"])
        self.assertGreaterEqual(e["seconds"], 0)
        # a caller's own reserved_extra stays; the moved keys take the next free name
        self.assertEqual((lines[3]["reserved_extra"], lines[3]["reserved_extra_"]),
                         (1, {"type": "n"}))
        self.assertEqual(lines[5]["reserved_extra"], {"seconds": 5})
        self.assertTrue(lines[5]["name"].endswith("f"))

    def test_nested_threads_and_processes_pair(self):
        # every begin has exactly one end with its id, whoever wrote them
        with RunLog(self.path) as log:
            def work(i):
                with log.phase("outer", i=i):
                    with log.phase("inner", i=i):
                        time.sleep(0.001)
            threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            pid = os.fork()
            if pid == 0:
                try:
                    work(99)
                finally:
                    os._exit(0)
            for t in threads:
                t.join()
            os.waitpid(pid, 0)
        begins, ends = {}, {}
        for line in self.lines():
            e = json.loads(line)
            (begins if e["type"] == "phase_begin" else ends)[e["phase_id"]] = e
        self.assertEqual(len(begins), 10)
        self.assertEqual(set(begins), set(ends))
        for k, b in begins.items():
            self.assertEqual((b["name"], b["i"]), (ends[k]["name"], ends[k]["i"]))
        # an outer phase's begin comes before its inner's, and ends after it
        order = [(json.loads(x)["type"], json.loads(x)["phase_id"]) for x in self.lines()]
        for i in (0, 1, 2, 3, 99):
            ids = {e["name"]: k for k, e in begins.items() if e["i"] == i}
            o, n = ids["outer"], ids["inner"]
            self.assertLess(order.index(("phase_begin", o)), order.index(("phase_begin", n)))
            self.assertGreater(order.index(("phase", o)), order.index(("phase", n)))

    def test_begin_on_full_disk_still_runs_the_block(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        log = RunLog("/dev/full", strict=True)
        ran = []
        with self.assertRaises(OSError) as cm:  # strict: the begin raises, the block never runs
            with log.phase("x"):
                ran.append(1)
        self.assertEqual((ran, cm.exception.errno), ([], 28))
        log.close()

    def test_phase_logged_when_block_raises(self):
        log = RunLog(self.path)
        with self.assertRaises(KeyError):
            with log.phase("boom", step=7):
                raise KeyError("x")
        log.close()
        e = json.loads(self.lines()[1])
        self.assertEqual((e["name"], e["step"], e["exception"]), ("boom", 7, "KeyError"))
        self.assertEqual(e["exception_message"], "'x'")  # str(KeyError("x"))
        log = RunLog(self.path)
        with self.assertRaises(RuntimeError):
            with log.phase("long"):
                raise RuntimeError("x" * 1000)
        log.close()
        self.assertEqual(json.loads(self.lines()[-1])["exception_message"], "x" * 200)

    def test_timed_decorator(self):
        log = RunLog(self.path)

        @log.timed("eval", split="val")
        def evaluate(x):
            return x * 2

        @log.timed()
        def fails():
            raise RuntimeError("no")

        self.assertEqual(evaluate(21), 42)
        self.assertEqual(evaluate.__name__, "evaluate")
        with self.assertRaises(RuntimeError):
            fails()
        log.close()
        a, b = (json.loads(x) for x in self.lines() if json.loads(x)["type"] == "phase")
        self.assertEqual((a["name"], a["split"]), ("eval", "val"))
        self.assertEqual((b["name"], b["exception"]), ("Timing.test_timed_decorator.<locals>.fails",
                                                       "RuntimeError"))


class Errors(Base):
    def test_enospc_strict_raises_oserror(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        log = RunLog("/dev/full", strict=True)
        with self.assertRaises(OSError) as cm:
            log.log_phase("x", 1.0)
        self.assertEqual(cm.exception.errno, 28)  # ENOSPC
        with self.assertRaises(OSError):
            log.log_event("e")
        self.assertEqual(log.lost, 0)  # raised, not counted
        log.close()

    def test_full_disk_never_raises_into_the_job(self):
        # A training loop on a full disk (/dev/full: every write ENOSPC): every call returns,
        # the blocks run, the job's own exceptions pass through unchanged, one warning on stderr.
        # Run in a child so that stderr and the warning filters are the job's own.
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        code = """if 1:
            import sys, warnings
            from runlog import RunLog
            log = RunLog("/dev/full")
            done = 0
            for step in range(16):
                with log.phase("step", i=step):
                    done += 1
                log.log_phase("p", 0.5, i=step)
                log.log_event("metric", {"loss": 1.5})
            @log.timed("fn")
            def fn():
                return 7
            assert fn() == 7
            try:
                with log.phase("boom"):
                    raise KeyError("mine")
            except KeyError as e:
                assert e.args == ("mine",)
            print(done, log.lost, log.last_error.errno)
            log.close()
        """
        for flags in ([], ["-W", "error"]):  # warnings as errors: still nothing raised
            p = subprocess.run([sys.executable] + flags + ["-c", code], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            # 16 x (begin, end, phase, event) + fn's begin and end + boom's begin and end
            self.assertEqual(p.stdout, "16 68 28\n")
            warn = [x for x in p.stderr.splitlines() if "runlog:" in x]
            self.assertEqual(len(warn), 1, p.stderr)
            self.assertIn("/dev/full: No space left on device", warn[0])
            self.assertIn("RunLog.lost", warn[0])

    def test_follows_its_name_through_a_rotation(self):
        # logrotate renames the log, or deletes it: the next entry makes run.jsonl again, its
        # first line saying where the earlier ones went (pytyche's RunLog opens per write and
        # would make it too, without saying so); nothing goes into a file no name reaches
        log = RunLog(self.path)
        log.log_event("one")
        os.rename(self.path, self.path + ".1")
        log.log_phase("two", 1.0)
        first, second = (json.loads(x) for x in self.lines())
        self.assertEqual(first["event"], "log_continued")
        self.assertEqual(first["data"], {"previous": "run.jsonl.1", "pid": os.getpid(),
                                         "severity": "info"})
        self.assertEqual(second["name"], "two")
        os.unlink(self.path)
        log.log_event("three")
        first, second = (json.loads(x) for x in self.lines())
        self.assertIsNone(first["data"]["previous"])
        self.assertEqual(second["event"], "three")
        with open(self.path + ".1", encoding="utf-8") as f:
            self.assertEqual([json.loads(x)["event"] for x in f], ["one"])
        log.close()

    def test_open_errors(self):
        with self.assertRaises(IsADirectoryError):
            RunLog(self.dir)
        with self.assertRaises(FileNotFoundError):
            RunLog(os.path.join(self.dir, "missing", "run.jsonl"))

    def test_no_path_no_env(self):
        # pytyche's RunLog(): kept in memory, written by write(path); a script instrumented
        # for hwmon runs unchanged without it
        env = os.environ.pop("RUNLOG_FILE", None)
        try:
            log = RunLog()
        finally:
            if env is not None:
                os.environ["RUNLOG_FILE"] = env
        self.assertIsNone(log.path)
        log.log_phase("load", 1.25, rows=3)
        with log.phase("train"):
            log.log_event("ckpt", {"step": 1})
        out = os.path.join(self.dir, "written.jsonl")
        with open(out, "w") as f:
            f.write("old content that write() replaces\n")
        log.write(out)
        with open(out, encoding="utf-8") as f:
            got = [json.loads(x) for x in f]
        self.assertEqual([e["type"] for e in got], ["phase", "phase_begin", "event", "phase"])
        self.assertEqual(got, log.entries())
        self.assertEqual(got[0]["seconds"], 1.25)
        log.close()
        with self.assertRaises(ValueError):
            log.write(out)
        self.assertFalse(os.path.exists(self.path))  # nothing went anywhere else

    def test_runlog_file_default(self):
        os.environ["RUNLOG_FILE"] = self.path
        try:
            with RunLog() as log:
                self.assertEqual(log.path, self.path)
                log.log_event("from_env")
        finally:
            del os.environ["RUNLOG_FILE"]
        self.assertEqual(json.loads(self.lines()[0])["event"], "from_env")

    def test_under_hwmon_no_arguments(self):
        # hwmon (this build's, named by CTest) gives the job RUNLOG_FILE: RunLog() needs nothing.
        hwmon = os.environ.get("HWMON")
        self.assertTrue(hwmon and os.access(hwmon, os.X_OK), "HWMON names no built hwmon")
        run = os.path.join(self.dir, "run")
        job = ("from runlog import RunLog\n"
               "with RunLog() as log:\n"
               "    log.log_phase('py', 0.5, via='hwmon')\n")
        env = dict(os.environ)
        env.pop("RUNLOG_FILE", None)
        subprocess.run([hwmon, "-o", run, "--", sys.executable, "-c", job], env=env,
                       check=True, timeout=120, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(os.path.join(run, "run.jsonl"), encoding="utf-8") as f:
            mine = [json.loads(l) for l in f if '"name": "py"' in l]
        self.assertEqual([(e["type"], e["seconds"], e["via"]) for e in mine],
                         [("phase", 0.5, "hwmon")])

    def test_killed_inside_a_phase_is_named(self):
        # kill -9 of python inside `with log.phase("checkpoint")`: every output names the phase
        # it died in and how long it had run (it never wrote its end)
        hwmon, summarize = os.environ.get("HWMON"), os.environ.get("SUMMARIZE")
        self.assertTrue(summarize and os.access(summarize, os.X_OK), "SUMMARIZE names no build")
        run = os.path.join(self.dir, "run")
        job = ("import os, signal, time\n"
               "from runlog import RunLog\n"
               "log = RunLog()\n"
               "with log.phase('load'):\n"
               "    time.sleep(0.3)\n"
               "with log.phase('epoch', n=1):\n"
               "    with log.phase('checkpoint', step=100):\n"
               "        time.sleep(1.2)\n"
               "        os.kill(os.getpid(), signal.SIGKILL)\n")
        env = dict(os.environ)
        env.pop("RUNLOG_FILE", None)
        r = subprocess.run([hwmon, "-i", "0.5", "-o", run, "--", sys.executable, "-c", job],
                           env=env, timeout=120, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 128 + signal.SIGKILL)

        def out(*args):
            return subprocess.run([summarize, "-q", *args], check=True, timeout=120,
                                  capture_output=True, text=True).stdout

        s = json.loads(out("-f", "json", run))
        o = s["outcome"]
        self.assertEqual((s["status"], o["signal"], o["open_phase"], o["phases_open"]),
                         ("killed", 9, "checkpoint", 2))
        self.assertGreaterEqual(o["open_phase_sec"], 1.2)
        self.assertLess(o["open_phase_sec"], 10)
        opened = {p["name"]: p for p in s["phases"] if p["open"]}
        self.assertEqual(sorted(opened), ["checkpoint", "epoch"])
        self.assertEqual(opened["checkpoint"]["extra"], {"step": 100})
        self.assertGreaterEqual(opened["epoch"]["seconds"], opened["checkpoint"]["seconds"])
        self.assertFalse([p for p in s["phases"] if p["name"] == "load"][0]["open"])
        # the time outside any phase: hwmon's start to the job's first phase, and its exit
        self.assertGreaterEqual(s["outside_phases_sec"], 0)
        self.assertLess(s["outside_phases_sec"], s["duration_sec"])
        text = out("-f", "text", run)
        self.assertRegex(text, r"killed by signal 9 \(KILL\) in phase `checkpoint` after "
                               r"\d+\.\d s")
        self.assertIn("OPEN: begun and never ended", text)
        import csv
        row = next(csv.DictReader(out("-f", "csv", run).splitlines()))
        self.assertEqual((row["status"], row["open_phase"]), ("killed", "checkpoint"))
        self.assertEqual(float(row["open_phase_sec"]), o["open_phase_sec"])
        html = os.path.join(self.dir, "report.html")
        out("--html", html, run)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        self.assertRegex(page, r'<span id="open-phase">in phase `checkpoint` after \d+\.\d s')
        self.assertIn('class="phase-row open"', page)

    def test_pytyche_values(self):
        # pytyche's log_phase/log_event take any value and its write() prints json.dumps(entry,
        # default=str): the same here, each line valid JSON (NaN and infinities null, integers
        # beyond 64 bits their digits as a string), a warning once, never an exception
        log = RunLog(self.path)
        me = {"a": 1}
        me["me"] = me
        deep = []
        for _ in range(100000):
            deep = [deep]
        calls = [
            (lambda: log.log_phase("clock step", -1e-9), {"seconds": -0.0}),
            (lambda: log.log_phase("neg", -1), {"seconds": -1}),
            (lambda: log.log_phase("neg3", -0.0015), {"seconds": -0.002}),
            (lambda: log.log_phase("nan", float("nan")), {"seconds": None}),
            (lambda: log.log_phase("inf", float("inf")), {"seconds": None}),
            (lambda: log.log_phase("huge", 1e300), {"seconds": 1e300}),
            (lambda: log.log_phase("bigsec", 10**400), {"seconds": str(10**400)}),
            (lambda: log.log_phase("seed", 1.0, seed=2**64 - 1),
             {"seconds": 1.0, "seed": 2**64 - 1}),
            (lambda: log.log_phase("big", 1.0, n=2**64, m=-2**63 - 1),
             {"n": str(2**64), "m": str(-2**63 - 1)}),
            (lambda: log.log_phase("mine", 1.0, type="custom", ts="yesterday"),
             {"type": "custom", "ts": "yesterday", "seconds": 1.0}),
            (lambda: log.log_phase("a\0b", 1.0), {"name": "a\0b"}),
            (lambda: log.log_event("list", [1, 2]), {"data": [1, 2]}),
            (lambda: log.log_event("text", "hello"), {"data": "hello"}),
            (lambda: log.log_event("empty", []), {"type": "event", "event": "empty"}),
            (lambda: log.log_event("dup", {1: "a", "1": "b"}), {"data": {"1": "b"}}),
            (lambda: log.log_event("tuplekey", {(1, 2): "t"}), {"data": {"(1, 2)": "t"}}),
            (lambda: log.log_event("self", {"self": me}), {"event": "self"}),
            (lambda: log.log_phase("loop", 1.0, loop=[me]), {"name": "loop"}),
            (lambda: log.log_event("deep", {"deep": deep}), {"event": "deep"}),
        ]
        import warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for call, _ in calls:
                call()
        self.assertTrue(w)
        self.assertFalse([x for x in w if x.category is not RuntimeWarning])
        # reading back: strictly JSON (NaN would need parse_constant), one line a call
        lines = self.lines()
        self.assertEqual(len(lines), len(calls))
        for line, (_, want) in zip(lines, calls):
            e = json.loads(line, parse_constant=lambda c: self.fail("not JSON: %s" % line))
            for k, v in want.items():
                self.assertEqual(e[k], v, line)
                if isinstance(v, float):
                    self.assertEqual(math.copysign(1, e[k]), math.copysign(1, v), line)
            self.assertEqual(list(e)[:2], ["ts", "type"])
        # pytyche's own write() of the same calls, as far as it is JSON: the same keys in the
        # same order and the same values (pytyche: -0.0 for -1e-9, update() replacing ts/type)
        self.assertEqual(json.loads(lines[0])["seconds"], round(-1e-9, 3))
        self.assertEqual(list(json.loads(lines[9])), ["ts", "type", "name", "seconds"])
        log.log_phase("x", 0)  # the edges are durations, written by the library as ever
        log.log_phase("x", 1e12)
        log.close()
        self.assertEqual([json.loads(l)["seconds"] for l in self.lines()[-2:]], [0, 1e12])
        with self.assertRaises(ValueError):  # a closed log is the caller's bug
            log.log_event("closed")
        with self.assertRaises(ValueError):
            log.log_phase("closed", -1)

    def test_pytyche_values_in_memory(self):
        # the lines librunlog's typed calls refuse reach write() and entries() as the others
        # do: a log kept in memory, and this RunLog's own copy inside an hwmon run
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mem = RunLog()
            mem.log_event("x", [1])
            mem.log_phase("p", -2, type="t")
            self.assertEqual([(e["type"], e.get("data"), e.get("seconds")) for e in mem.entries()],
                             [("event", [1], None), ("t", None, -2)])
            os.environ["RUNLOG_FILE"] = self.path
            try:
                own = RunLog()
            finally:
                del os.environ["RUNLOG_FILE"]
            own.log_event("y", "s")
            self.assertEqual([e["data"] for e in own.entries()], ["s"])
            out = os.path.join(self.dir, "own.jsonl")
            own.write(out)
        with open(out) as f:
            self.assertEqual(json.loads(f.read())["data"], "s")
        self.assertEqual(json.loads(self.lines()[0])["data"], "s")
        mem.close()
        own.close()

    def test_pytyche_values_read(self):
        # summarize reads such a log: the phases it can time, the rest skipped with a reason
        with RunLog(self.path) as log:
            log.log_phase("ok", 1.5, seed=2**64 - 1)
            log.log_phase("neg", -1.0)
            log.log_phase("nan", float("nan"))
            log.log_phase("big", 2.0, n=2**70)
            log.log_event("list", [1, 2])
        summarize = runlog._tools.tool("summarize")
        p = subprocess.run([summarize, "-f", "json", self.dir], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual([ph["name"] for ph in doc["phases"]], ["ok", "big"])
        self.assertEqual(doc["phases"][0]["extra"], {"seed": 2**64 - 1})
        self.assertEqual(doc["phases"][1]["extra"], {"n": str(2**70)})
        self.assertRegex(p.stderr, r"run\.jsonl:2: .*skipped")
        self.assertRegex(p.stderr, r"run\.jsonl:3: .*skipped")

    def test_write_compat(self):
        # pytyche's write(path) writes every entry to any path: its own file is already there,
        # another path gets a copy that replaces what it held
        other = os.path.join(self.dir, "other.jsonl")
        with open(other, "w") as f:
            f.write("old\n")
        with RunLog(self.path) as log:
            log.log_event("x")
            log.log_phase("p", 1.5, k=1)
            log.write(self.path)  # pytyche's final write(): already there
            log.write(other)
        self.assertEqual(len(self.lines()), 2)
        with open(other) as f, open(self.path) as g:
            self.assertEqual(f.read(), g.read())

    def test_write_own_entries_in_a_run(self):
        # RunLog() inside an hwmon run (RUNLOG_FILE) shares the run's log with hwmon and other
        # writers; write(path) writes this RunLog's own entries, as pytyche's does, and
        # write(RUNLOG_FILE) leaves the run's log whole
        with open(self.path, "w") as f:
            f.write('{"ts": "2026-11-26T10:00:00.000+00:00", "type": "event", "event": "start"}\n')
        old = os.environ.get("RUNLOG_FILE")
        os.environ["RUNLOG_FILE"] = self.path
        try:
            log, other = RunLog(), RunLog()
        finally:
            if old is None:
                del os.environ["RUNLOG_FILE"]
            else:
                os.environ["RUNLOG_FILE"] = old
        out = os.path.join(self.dir, "mine.jsonl")
        with log:
            with log.phase("train", steps=10):
                other.log_event("someone_else")
            log.log_event("done", {"acc": 0.9})
            log.write(out)
            log.write(self.path)
            self.assertEqual([e.get("name") or e.get("event") for e in log.entries()],
                             ["train", "train", "done"])
        other.close()
        with open(out) as f:
            mine = [json.loads(l) for l in f]
        self.assertEqual([(e["type"], e.get("name") or e.get("event")) for e in mine],
                         [("phase_begin", "train"), ("phase", "train"), ("event", "done")])
        everything = self.lines()
        self.assertEqual(len(everything), 5)  # hwmon's start, other's event, this log's three
        self.assertEqual(json.loads(everything[0])["event"], "start")
        # the copy's lines are the run's, seconds and ids alike
        run_phase = [json.loads(l) for l in everything if json.loads(l)["type"] == "phase"][0]
        self.assertEqual(run_phase["seconds"], mine[1]["seconds"])
        self.assertEqual(run_phase["phase_id"], mine[1]["phase_id"])

    def test_library_not_found(self):
        env = dict(os.environ, RUNLOG_LIBRARY=os.path.join(self.dir, "nope.so"))
        r = subprocess.run([sys.executable, "-c", "import runlog"], env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError: runlog: cannot load librunlog: RUNLOG_LIBRARY=", r.stderr)


WORKER = r"""
import os, sys, threading
from runlog import RunLog
path, n_threads, n_lines, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
log = RunLog(path)
def work(t):
    for i in range(n_lines):
        log.log_phase("w", 0.001 * i, proc=tag, thread=t, i=i, pad="x" * ((i * 37) % 3000))
ts = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
[t.start() for t in ts]
[t.join() for t in ts]
log.close()
"""


class Concurrency(Base):
    def test_processes_and_threads(self):
        procs, threads, n = 8, 4, 250
        ps = [subprocess.Popen([sys.executable, "-c", WORKER, self.path, str(threads), str(n),
                                "p%d" % p]) for p in range(procs)]
        for p in ps:
            self.assertEqual(p.wait(timeout=300), 0)
        seen = set()
        for line in self.lines():
            self.assertTrue(line.endswith("\n"))
            e = json.loads(line)
            seen.add((e["proc"], e["thread"], e["i"]))
            self.assertEqual(len(e["pad"]), (e["i"] * 37) % 3000)
        self.assertEqual(len(seen), procs * threads * n)
        self.assertEqual(len(self.lines()), procs * threads * n)

    @unittest.skipUnless(hasattr(os, "fork"), "no fork")
    def test_fork_child_keeps_appending(self):
        log = RunLog(self.path)
        stop = threading.Event()

        def busy():
            while not stop.is_set():
                log.log_event("parent_thread")

        t = threading.Thread(target=busy)
        t.start()
        children = []
        for k in range(4):
            pid = os.fork()
            if pid == 0:  # the child: whole lines, then exit without running the parent's code
                code = 0
                try:
                    for i in range(200):
                        log.log_event("child", {"k": k, "i": i})
                    log.close()
                except BaseException:
                    code = 1
                os._exit(code)
            children.append(pid)
        deadline = time.monotonic() + 60
        for pid in children:
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    self.fail("a forked child hung while logging")
                time.sleep(0.01)
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        stop.set()
        t.join()
        log.close()
        child = [json.loads(x) for x in self.lines()]
        got = {(e["data"]["k"], e["data"]["i"]) for e in child if e["event"] == "child"}
        self.assertEqual(got, {(k, i) for k in range(4) for i in range(200)})

    @unittest.skipUnless(hasattr(os, "fork"), "no fork")
    def test_fork_while_lock_held(self):
        # Another thread holds the log's lock at the moment of fork: the child must not hang.
        log = RunLog(self.path)
        held, release = threading.Event(), threading.Event()

        def holder():
            with log._lock:
                held.set()
                release.wait()

        t = threading.Thread(target=holder)
        t.start()
        held.wait()
        pid = os.fork()
        if pid == 0:
            try:
                log.log_event("child_after_fork")
                os._exit(0)
            except BaseException:
                os._exit(1)
        deadline = time.monotonic() + 20
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        release.set()
        t.join()
        if not done:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self.fail("the child hung on a lock held at fork time")
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        log.close()
        self.assertEqual(json.loads(self.lines()[0])["event"], "child_after_fork")


STANDINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standins")
GIB = 1 << 30


class FrameworkMemory(Base):
    """The framework's own allocator figures (JAX, PyTorch) next to nvidia-smi's: stand-in
    modules (standins/) implement exactly the documented calls the package makes."""

    def setUp(self):
        super().setUp()
        sys.path.insert(0, STANDINS)

    def tearDown(self):
        sys.path.remove(STANDINS)
        for m in ("jax", "torch", "torch.cuda"):
            sys.modules.pop(m, None)
        super().tearDown()

    def entries(self):
        return [json.loads(x) for x in self.lines()]

    def test_never_imports(self):
        with RunLog(self.path) as log:
            with log.phase("p"):
                pass
            self.assertIsNone(log.log_framework_memory())
        self.assertNotIn("jax", sys.modules)
        self.assertNotIn("torch", sys.modules)
        self.assertIsNone(runlog.framework_memory())
        self.assertTrue(all("framework_memory" not in e for e in self.entries()))

    def test_jax_imported_after_the_log_opened(self):
        log = RunLog(self.path)
        import jax  # the job imports it later: the next phase sees it
        jax.DEVICES[:] = [jax.Device("cpu", 0, {"peak_bytes_in_use": 1}),
                          jax.Device("gpu", 3, {"peak_bytes_in_use": 6 * GIB,
                                                "bytes_in_use": 2 * GIB,
                                                "bytes_limit": 60 * GIB}),
                          jax.Device("gpu", 4, {"peak_bytes_in_use": 9 * GIB})]
        with log.phase("train", steps=2):
            pass
        fm = log.log_framework_memory(note="end")
        log.close()
        begin, end, ev = self.entries()
        want = {"framework": "jax", "device": 3, "peak_mib": 6144.0, "in_use_mib": 2048.0,
                "pool_mib": 61440.0}
        self.assertEqual(fm, want)
        self.assertEqual(begin["framework_memory"], want)
        self.assertEqual((end["type"], end["steps"], end["framework_memory"]),
                         ("phase", 2, want))
        self.assertEqual((ev["event"], ev["data"]), ("framework_memory", dict(want, note="end")))
        self.assertEqual(runlog.probe_jax_peak_memory_mb(), 6144.0)

    def test_jax_without_gpu_or_stats(self):
        import jax
        jax.DEVICES[:] = [jax.Device("cpu", 0, {"peak_bytes_in_use": GIB})]  # CPU-only JAX
        self.assertIsNone(runlog.framework_memory())
        self.assertEqual(runlog.probe_jax_peak_memory_mb(), 0.0)
        jax.DEVICES[:] = [jax.Device("gpu", 0, has_stats=False)]  # no memory_stats
        self.assertIsNone(runlog.framework_memory())
        self.assertEqual(runlog.probe_jax_peak_memory_mb(), 0.0)
        jax.DEVICES[:] = [jax.Device("gpu", 0, None)]  # memory_stats() says nothing
        self.assertIsNone(runlog.framework_memory())
        self.assertEqual(runlog.probe_jax_peak_memory_mb(), 0.0)
        with RunLog(self.path) as log:
            with log.phase("p"):
                pass
        self.assertTrue(all("framework_memory" not in e for e in self.entries()))

    def test_torch(self):
        import torch
        st = torch.cuda.STATE
        st.update(initialized=False, device=1, allocated=GIB, max_allocated=5 * GIB,
                  max_reserved=8 * GIB, resets=0)
        self.assertIsNone(runlog.framework_memory())  # never initialises CUDA itself
        st["initialized"] = True
        with RunLog(self.path) as log:
            with log.phase("a"):
                pass
            with log.phase("b", reset_peak_memory=True):
                pass
        self.assertEqual(st["resets"], 1)
        e = [x for x in self.entries() if x["type"] == "phase"]
        self.assertEqual(e[0]["framework_memory"],
                         {"framework": "torch", "device": 1, "peak_mib": 5120.0,
                          "in_use_mib": 1024.0, "pool_mib": 8192.0})
        self.assertEqual(e[1]["framework_memory"]["peak_mib"], 1024.0)  # reset at its begin

    def test_summary_shows_both(self):
        # JAX's own peak (6 GiB) next to nvidia-smi's (60 GiB: JAX preallocated) and the room
        # left, in every output of summarize
        summarize = os.environ.get("SUMMARIZE")
        import jax
        jax.DEVICES[:] = [jax.Device("gpu", 0, {"peak_bytes_in_use": 6 * GIB,
                                                "bytes_in_use": GIB, "bytes_limit": 60 * GIB})]
        run = os.path.join(self.dir, "run")
        os.mkdir(run)
        t0 = time.time()
        with RunLog(os.path.join(run, "run.jsonl")) as log:
            with log.phase("train"):
                time.sleep(1.2)
        rows = []
        for i in range(-1, 4):  # nvidia-smi's rows around it, 60 GiB used of 80 GiB
            t = time.gmtime(t0 + i)
            rows.append("%s.000, 90, 30, 61440, 81920, 300.00, 40, 1980, 2619, 0, GPU-0"
                        % time.strftime("%Y/%m/%d %H:%M:%S", t))
        with open(os.path.join(run, "hw_metrics.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")

        def out(*args):
            return subprocess.run([summarize, "-q", *args], check=True, timeout=120,
                                  capture_output=True, text=True).stdout

        s = json.loads(out("-f", "json", run))
        want = {"framework": "jax", "peak_mib": 6144, "pool_mib": 61440, "vram_peak_mib": 61440,
                "vram_total_mib": 81920, "headroom_mib": 75776, "pool_unused_mib": 55296}
        self.assertEqual(s["framework_memory"], want)
        self.assertEqual(s["phases"][0]["framework_memory"]["peak_mib"], 6144)
        self.assertIn("framework memory (jax): peak 6144.0 MiB in use, pool 61440.0 MiB; "
                      "nvidia-smi peak VRAM 61440.0 MiB of 81920.0 MiB; headroom 75776.0 MiB",
                      # the text report's lines as written before it broke them at 100 columns
                      re.sub(r"([,;])\n +", r"\1 ", out("-f", "text", run)))
        import csv
        row = next(csv.DictReader(out("-f", "csv", run).splitlines()))
        self.assertEqual((row["framework"], float(row["framework_peak_mib"]),
                          float(row["framework_headroom_mib"]), float(row["peak_vram_mib"])),
                         ("jax", 6144.0, 75776.0, 61440.0))
        html = os.path.join(self.dir, "r.html")
        out("--html", html, run)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("framework peak", page)
        self.assertIn("GPU headroom", page)
        self.assertIn('<small class="fw">jax peak', page)
        self.assertIn('"jax_peak_bytes_mb": 6144.0', out("-f", "pytyche", run))

    def test_names_are_the_readers(self):
        # summarize reads what rundir.h names: the package writes the same names
        import re
        h = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include",
                         "hwrun", "rundir.h")
        with open(h, encoding="utf-8") as f:
            names = dict(re.findall(r'#define (HW_FWMEM\w*) "([^"]*)"', f.read()))
        self.assertEqual(names["HW_FWMEM"], runlog.FRAMEWORK_MEMORY)
        import jax
        jax.DEVICES[:] = [jax.Device("gpu", 0, {"peak_bytes_in_use": GIB, "bytes_limit": GIB})]
        fm = runlog.framework_memory()
        for k in ("HW_FWMEM_FRAMEWORK", "HW_FWMEM_PEAK", "HW_FWMEM_POOL"):
            self.assertIn(names[k], fm)
        self.assertEqual(fm[names["HW_FWMEM_FRAMEWORK"]], names["HW_FWMEM_JAX"])

    def test_cost_is_bounded(self):
        # the cost itself is bench_python.py's figure; here: no error, no growth
        import jax
        jax.DEVICES[:] = [jax.Device("gpu", 0, {"peak_bytes_in_use": GIB})]
        with RunLog(self.path) as log:
            for _ in range(200):
                with log.phase("step"):
                    pass
        self.assertEqual(len(self.lines()), 400)


def comma_locale(tmp):
    """A comma-decimal locale made loadable in this process: its name, or None. The system's
    de_DE.UTF-8, else one compiled with localedef (Debian's locales) into tmp, with LOCPATH."""
    import locale
    name = "de_DE.UTF-8"
    saved = locale.setlocale(locale.LC_ALL)
    for attempt in (0, 1):
        try:
            locale.setlocale(locale.LC_ALL, name)
            comma = locale.localeconv()["decimal_point"] == ","
            locale.setlocale(locale.LC_ALL, saved)
            if comma:
                return name
        except locale.Error:
            pass
        if attempt == 0:
            if not shutil.which("localedef"):
                return None
            # localedef exits 1 for warnings too: whether the locale loads decides
            subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(tmp, name)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            os.environ["LOCPATH"] = tmp
    os.environ.pop("LOCPATH", None)
    return None


class Locale(Base):
    """A job that called locale.setlocale(LC_ALL, "") under a comma-decimal locale: the lines
    are still JSON with dot decimals, and the job's locale stays its own."""

    def test_comma_locale_lines_are_json(self):
        import locale
        name = comma_locale(self.dir)
        if name is None:
            msg = "no de_DE.UTF-8 locale, and localedef (Debian's locales) could not make one"
            if os.environ.get("CI", "") not in ("", "0", "false", "False"):
                self.fail("cannot run under CI (nothing may skip there): " + msg)
            self.skipTest(msg)
        saved = locale.setlocale(locale.LC_ALL)
        try:
            locale.setlocale(locale.LC_ALL, name)
            self.assertEqual(locale.localeconv()["decimal_point"], ",")
            log = RunLog(self.path)
            log.log_phase("train", 1.25, lr=0.001, loss=2.5e-7, cfg={"w": [0.5, 1e20]})
            log.log_event("metric", {"acc": 0.875, "x": 0.1 + 0.2})
            with log.phase("eval", frac=0.25):
                pass
            t = threading.Thread(target=log.log_phase, args=("thread", 2.5), kwargs={"v": 3.75})
            t.start()
            t.join()
            log.close()
            self.assertEqual(locale.localeconv()["decimal_point"], ",")  # the job's, untouched
            self.assertEqual(locale.format_string("%.2f", 1.25), "1,25")
        finally:
            locale.setlocale(locale.LC_ALL, saved)
        lines = self.lines()
        self.assertEqual(len(lines), 5)
        entries = [json.loads(x) for x in lines]  # each line is JSON
        self.assertEqual(entries[0]["seconds"], 1.25)
        self.assertIn('"seconds": 1.25, "lr": 0.001, "loss": 2.5e-07, "cfg": {"w": [0.5, 1e+20]}}',
                      lines[0])
        self.assertIn('"data": {"acc": 0.875, "x": 0.30000000000000004}}', lines[1])
        self.assertEqual(entries[2]["frac"], 0.25)
        self.assertIsInstance(entries[3]["seconds"], float)
        self.assertEqual((entries[4]["name"], entries[4]["seconds"], entries[4]["v"]),
                         ("thread", 2.5, 3.75))


class Package(unittest.TestCase):
    def test_versions(self):
        # defined once, in include/runlog.h; the library and the package say it alike
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "include", "runlog.h")) as f:
            text = f.read()
        want = ".".join(re.search(r"^#define RL_VERSION_%s (\d+)$" % k, text, re.M).group(1)
                        for k in ("MAJOR", "MINOR", "PATCH"))
        self.assertEqual(runlog.library_version(), want)
        self.assertEqual(runlog.__version__, want)
        self.assertTrue(os.path.exists(runlog.library_path()))


if __name__ == "__main__":
    unittest.main()
