"""Each seed's documented usage, run as a switching user runs it: the example scripts in
seed_examples/<seed>/example.py import the seed's own module names (seed_examples/shims: the one
line a user changes, pointing at this package) and print what the seed's calls return. Every
printed line is read back as the Python value it is the repr of (a CSV row of QUOTE_NONNUMERIC
is one too) and its fields' names, order and types are compared with the seed's, which
seed_examples/extract.py took from the seed documents into <seed>/fields.json.

Types follow the documents: `float` takes an int too (PEP 484's numeric tower; resource-tracker
itself prints gpu_usage 0 as an int), `int` only an int, `X | None` None too, a record name
(MaxRAM) the record's fields, as a dataclass's repr or as a dict.

Run by CTest with PYTHONPATH naming the build tree's python/ folder and HWRUN_FAKE_SMI the fake
nvidia-smi (put on PATH as nvidia-smi, as the seeds find it).
"""
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seed_examples")
FAKE_SMI = os.environ.get("HWRUN_FAKE_SMI")


class Record:
    """A dataclass's repr, Name(field=value, ...)."""
    def __init__(self, name, fields):
        self.name, self.fields = name, fields


class PathValue(str):
    """PosixPath('...')."""


def value(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = value(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Name) and node.id in ("nan", "inf"):
        return float(node.id)
    if isinstance(node, (ast.Tuple, ast.List)):
        return [value(e) for e in node.elts]
    if isinstance(node, ast.Set):
        return {value(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        return {value(k): value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in ("PosixPath", "Path") and len(node.args) == 1 and not node.keywords:
            return PathValue(value(node.args[0]))
        if name == "set" and not node.args and not node.keywords:
            return set()
        if not node.args:
            return Record(name, {k.arg: value(k.value) for k in node.keywords})
    raise ValueError("not a value the seeds print: %s" % ast.dump(node)[:200])


def parse(line):
    return value(ast.parse(line.strip(), mode="eval").body)


class SeedExamples(unittest.TestCase):
    def setUp(self):
        if not FAKE_SMI:
            self.fail("HWRUN_FAKE_SMI is not set (run the tests through ctest)")
        self.tmp = tempfile.mkdtemp(prefix="seed-examples-")
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        os.symlink(FAKE_SMI, os.path.join(self.bin, "nvidia-smi"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_example(self, seed, gpu=True):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "shims"),
                                             env.get("PYTHONPATH", "")])
        path = env.get("PATH", "/usr/bin:/bin")
        if gpu:
            path = self.bin + os.pathsep + path
        else:  # no nvidia-smi anywhere on PATH: a CPU-only machine
            path = os.pathsep.join(d for d in path.split(os.pathsep)
                                   if not os.path.exists(os.path.join(d, "nvidia-smi")))
        env["PATH"] = path
        arg = os.path.join(self.tmp, "out-%s-%s" % (seed, gpu))
        r = subprocess.run([sys.executable, os.path.join(HERE, seed, "example.py"), arg],
                           cwd=self.tmp, env=env, capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, "%s example failed:\n%s%s" % (seed, r.stdout, r.stderr))
        return r.stdout.splitlines()

    def expect(self, seed, lines):
        with open(os.path.join(HERE, seed, "fields.json")) as f:
            records = json.load(f)
        with open(os.path.join(HERE, seed, "expected.json")) as f:
            prints = json.load(f)["prints"]
        i = 0
        for item in prints:
            self.assertLess(i, len(lines), "%s: nothing printed for %s" % (seed, item))
            if isinstance(item, dict):  # a CSV: its header, then its rows
                names = [n for n, _ in records[item["csv"]]["fields"]]
                self.assertEqual(parse(lines[i]), names, "%s: %s's header" % (seed, item["csv"]))
                i += 1
                rows = 0
                while i < len(lines):
                    row = parse(lines[i])
                    if not isinstance(row, list) or isinstance(row[0], str):
                        break  # the next thing printed
                    self.check(records, item["csv"], dict(zip(names, row)),
                               "%s line %d" % (seed, i + 1))
                    self.assertEqual(len(row), len(names), "%s line %d" % (seed, i + 1))
                    rows += 1
                    i += 1
                self.assertGreater(rows, 0, "%s: %s has no rows" % (seed, item["csv"]))
            else:
                self.check(records, item, parse(lines[i]), "%s line %d" % (seed, i + 1))
                i += 1
        self.assertEqual(i, len(lines), "%s: more printed than expected: %s" % (seed, lines[i:]))

    def check(self, records, typ, v, where):
        """v is of the document's type typ (a record's name, or "float | None" and the like)."""
        alts = [t.strip() for t in typ.split("|")] if typ not in records else [typ]
        errors = []
        for t in alts:
            try:
                self.check_one(records, t, v, where)
                return
            except AssertionError as e:
                errors.append(str(e))
        self.fail("%s: %r is not %s (%s)" % (where, v if not isinstance(v, Record) else v.name,
                                              typ, "; ".join(errors)))

    def check_one(self, records, t, v, where):
        simple = {"float": (int, float), "int": (int,), "str": (str,), "dict": (dict,),
                  "Path": (PathValue,), "set[int]": (set,)}
        if t == "None":
            self.assertIsNone(v, where)
        elif t in simple:
            self.assertIsInstance(v, simple[t], where)
            self.assertNotIsInstance(v, bool, where)
            if t == "set[int]":
                self.assertTrue(all(isinstance(x, int) for x in v), where)
        elif t in records:
            rec = records[t]
            if "tuple" in rec:
                self.assertIsInstance(v, list, where)
                self.assertEqual(len(v), len(rec["tuple"]), where)
                for x, xt in zip(v, rec["tuple"]):
                    self.check(records, xt, x, where)
                return
            if isinstance(v, Record):
                self.assertEqual(v.name, t.split(".")[0], where)
                fields = v.fields
            else:
                self.assertIsInstance(v, dict, "%s: %s" % (where, t))
                fields = v
            names = [n for n, _ in rec["fields"]]
            optional = [n for n, _ in rec.get("optional", [])]
            got = list(fields)
            # the seed's names in its order; its optional ones may follow (pytyche's to_dict),
            # and a phase line's extras are the caller's
            self.assertEqual(got[:len(names)], names, "%s: %s's fields" % (where, t))
            rest = got[len(names):]
            if not rec.get("extra"):
                self.assertTrue(set(rest) <= set(optional),
                                "%s: %s has fields the seed has not: %s" % (where, t, rest))
            for n, nt in rec["fields"] + rec.get("optional", []):
                if n in fields:
                    self.check(records, nt, fields[n], "%s: %s.%s" % (where, t, n))
        else:
            raise AssertionError("%s: no type %s in fields.json" % (where, t))

    def test_pytyche(self):
        self.expect("pytyche", self.run_example("pytyche"))

    def test_calibrax(self):
        self.expect("calibrax", self.run_example("calibrax"))

    def test_gpu_tracker(self):
        lines = self.run_example("gpu_tracker")
        self.expect("gpu_tracker", lines)
        # the fake's two GPUs, their memory; this process is on none: gpu_tracker's 0.00
        usage = parse(lines[0])
        self.assertEqual(usage["gpu_utilization"]["system_gpu_count"], 2)
        self.assertGreater(usage["max_gpu_ram"]["system"], 0)
        self.assertEqual(lines[-1], "0.00")

    def test_gpu_tracker_no_gpu(self):
        lines = self.run_example("gpu_tracker", gpu=False)
        self.expect("gpu_tracker", lines)
        self.assertEqual(lines[-1], "0.00")  # the seed's zeros without a GPU

    def test_resource_tracker(self):
        self.expect("resource_tracker", self.run_example("resource_tracker"))

    def test_fields_from_the_documents(self):
        # the committed fields.json are what extract.py reads in the seed documents today
        # (../shared is beside the repository in CI; the other tests never read it)
        seeds = os.path.join(os.environ.get("HWRUN_SHARED_DIR", ""), "seeds")
        if not os.path.isdir(seeds):
            self.skipTest("no seed documents at %s" % seeds)
        out = os.path.join(self.tmp, "fields")
        subprocess.run([sys.executable, os.path.join(HERE, "extract.py"), seeds, out],
                       check=True)
        for seed in ("pytyche", "calibrax", "gpu_tracker", "resource_tracker"):
            with open(os.path.join(out, seed, "fields.json")) as a, \
                    open(os.path.join(HERE, seed, "fields.json")) as b:
                self.assertEqual(a.read(), b.read(), seed)

    def test_parse(self):
        # the reader itself: what it refuses, so that a line of anything else fails the test
        for bad in ("print(x)", "a + b", "f(1)", "Foo(1, x=2)"):
            with self.assertRaises((ValueError, SyntaxError)):
                parse(bad)
        self.assertEqual(parse('1.5,2,"",-3'), [1.5, 2, "", -3])
        r = parse("MaxGPURAM(unit='megabytes', system=0.0)")
        self.assertEqual((r.name, r.fields), ("MaxGPURAM", {"unit": "megabytes", "system": 0.0}))


if __name__ == "__main__":
    unittest.main()
