#!/usr/bin/env python3
"""Regenerates <seed>/fields.json, the names and types of what each seed prints, from the seed
documents (run by hand: `python3 extract.py ../../../../shared/seeds`; the tests read only the
JSON files it writes, never the documents).

A seed's document is recognised by its content, not its file name. Each record is
{"fields": [[name, type], ...]} in the seed's order, the type as the document writes it
("float", "float | None", "int", "str", ...). Where the document's prose and the seed's own code
disagree, the code wins (it is what the seed prints), and the record says so in "note".
"""
import json
import os
import re
import sys


def read_all(seeds):
    docs = {}
    for name in sorted(os.listdir(seeds)):
        with open(os.path.join(seeds, name), encoding="utf-8") as f:
            text = f.read()
        if "calibrax.profiling.resources" in text:
            docs["calibrax"] = text
        elif text.startswith('"""Resource monitoring primitives'):
            docs["pytyche"] = text  # run_monitor.py's source (the other pytyche page is its API)
        elif "class gpu_tracker.tracker.Tracker" in text:
            docs["gpu_tracker"] = text
        elif "resource_tracker.tracker" in text:
            docs["resource_tracker"] = text
    missing = {"calibrax", "pytyche", "gpu_tracker", "resource_tracker"} - set(docs)
    if missing:
        sys.exit("extract.py: %s: no document of %s" % (seeds, ", ".join(sorted(missing))))
    return docs


def signature_fields(text, cls):
    """calibrax's `Cls(*, a: float, b: float | None = None)` line."""
    m = re.search(r"^%s\(\*, (.*)\)$" % cls, text, re.M)
    if not m:
        sys.exit("extract.py: calibrax: no signature of %s" % cls)
    out = []
    for part in m.group(1).split(", "):
        name, typ = part.split(": ", 1)
        out.append([name, typ.split(" = ")[0]])
    return out


def calibrax(text):
    return {
        "ResourceSummary.to_dict": {"fields": signature_fields(text, "ResourceSummary")},
        "ResourceSample": {"fields": signature_fields(text, "ResourceSample")},
    }


def pytyche(text):
    # ResourceSummary's dataclass fields, and to_dict's keys: those always there, then the
    # conditional ones (jax_peak_bytes_mb when > 0, mem_util_* when dmon had rows)
    body = text.split("class ResourceSummary:", 1)[1]
    fields = re.findall(r"^(\w+): (float) = 0\.0$", body.split("def to_dict", 1)[0], re.M)
    to_dict = body.split("def to_dict", 1)[1].split("return d", 1)[0]
    always = re.findall(r'^"(\w+)": round\(self\.\w+, 1\),$', to_dict, re.M)
    optional = re.findall(r'^d\["(\w+)"\] = round', to_dict, re.M)
    types = dict(fields)
    phase = re.search(r'def log_phase.*?entry: dict\[str, Any\] = \{(.*?)\}', text, re.S).group(1)
    event = re.search(r'def log_event.*?entry: dict\[str, Any\] = \{(.*?)\}', text, re.S).group(1)
    keys = lambda block: re.findall(r'^"(\w+)":', block, re.M)
    # the values' types from the code: _now_iso() is a str, round(seconds, 3) a float, the rest
    # the caller's (name, event_type: str; data: dict)
    value_type = {"ts": "str", "type": "str", "name": "str", "seconds": "float", "event": "str"}
    return {
        "ResourceSummary": {"fields": [list(f) for f in fields]},
        "ResourceSummary.to_dict": {"fields": [[k, types[k]] for k in always],
                                    "optional": [[k, types[k]] for k in optional]},
        "HWMonitor.stop": {"tuple": ["Path | None"] * 3,
                           "note": "stop() -> tuple[Path | None, Path | None, Path | None]"},
        "RunLog.phase_line": {"fields": [[k, value_type[k]] for k in keys(phase)],
                              "extra": True,
                              "note": "entry.update(extra): the caller's keys follow"},
        "RunLog.event_line": {"fields": [[k, value_type[k]] for k in keys(event)],
                              "optional": [["data", "dict"]]},
    }


def gpu_tracker(text):
    out = {}
    for m in re.finditer(r"^class gpu_tracker\.tracker\.(\w+)\((.*?)\)\[source\]$", text, re.M):
        cls = m.group(1)
        if cls == "Tracker":
            continue
        block = text[m.end():].split("\nclass gpu_tracker.tracker.", 1)[0]
        fields = re.findall(r"^(\w+): ([\w. |\[\]]+?)(?: = .*)?$", block, re.M)
        out[cls] = {"fields": [[n, t] for n, t in fields]}
    if "ResourceUsage" not in out:
        sys.exit("extract.py: gpu_tracker: no ResourceUsage")
    return out


def bullets(block):
    return [[n, t] for n, t in re.findall(r"^ *- (\w+) \(([^)]+)\):", block, re.M)]


def resource_tracker(text):
    out = {}
    for cls in ("PidTracker", "SystemTracker"):
        src = text.split("class %s:" % cls, 1)[1]
        doc = src.split("Args:", 1)[0]
        fields = bullets(doc)
        # what diff_stats returns, in the code's order: the CSV's header and rows
        ret = src.split("def diff_stats", 1)[1].split("return {", 1)[1].split("\n        }", 1)[0]
        code = re.findall(r'^            "(\w+)":', ret, re.M)
        if [n for n, _ in fields] != code:
            sys.exit("extract.py: %s: the docstring's columns %s are not the code's %s"
                     % (cls, [n for n, _ in fields], code))
        out[cls + ".csv"] = {"fields": fields}
    # get_pid_stats: the code's keys (its docstring says pss_rollup, the code returns pss, and
    # gpu_utilized_indexes, a set); the types from the docstring
    src = text.split("def get_pid_stats(", 1)[1]
    doc_types = dict((n, t) for n, t in bullets(src.split('"""', 2)[1]))
    doc_types["pss"] = doc_types.pop("pss_rollup")
    gpu = re.findall(r'^        "(\w+)": ', src.split("gpu_stats = {", 1)[1].split("}", 1)[0],
                     re.M)
    ret = src.split("    return {", 1)[1].split("\n    }", 1)[0]
    keys = re.findall(r'^        "(\w+)":', ret, re.M) + gpu
    doc_types["gpu_utilized_indexes"] = "set[int]"
    out["get_pid_stats"] = {"fields": [[k, doc_types[k]] for k in keys],
                            "note": "the code's keys: pss (the docstring: pss_rollup), "
                                    "gpu_utilized_indexes (a set, not in the docstring)"}
    src = text.split("def get_system_stats(", 1)[1]
    doc = src.split('"""', 2)[1]
    top = [[n, t] for n, t in re.findall(r"^            - (\w+) \(([^)]+)\):", doc, re.M)]
    stats = src.split("stats = {", 1)[1].split("\n    }", 1)[0]
    keys = re.findall(r'^        "(\w+)":', stats, re.M)
    types = dict(top)
    # memory_free is set from /proc/meminfo (not in the initial dict or the docstring);
    # gpu_* are added at the end
    keys += ["memory_free"] + re.findall(r'^    stats\["(gpu_\w+)"\] = 0', src, re.M)
    types.update({"memory_free": "int", "gpu_usage": "float", "gpu_vram": "float",
                  "gpu_utilized": "int"})
    out["get_system_stats"] = {"fields": [[k, types[k]] for k in keys],
                               "note": "memory_free and gpu_* are the code's, typed as "
                                       "SystemTracker's columns of the same names"}
    return out


def main():
    """extract.py [SEEDS_DIR [OUT_DIR]]: OUT_DIR (default: beside this script) gets
    <seed>/fields.json; test_seed_examples compares a fresh one with the committed files."""
    here = os.path.dirname(os.path.abspath(__file__))
    seeds = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../../../shared/seeds")
    out = sys.argv[2] if len(sys.argv) > 2 else here
    docs = read_all(seeds)
    for seed, fn in (("pytyche", pytyche), ("calibrax", calibrax), ("gpu_tracker", gpu_tracker),
                     ("resource_tracker", resource_tracker)):
        os.makedirs(os.path.join(out, seed), exist_ok=True)
        with open(os.path.join(out, seed, "fields.json"), "w") as f:
            json.dump(fn(docs[seed]), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
