"""tests/gpu/check.sh, the real-GPU check, run here against the fake nvidia-smi and fake NVML so
that it cannot rot between the rare runs on a real GPU: its lines, what it finds on a good fake
GPU, and that it fails where the hardware disagrees with itself."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "gpu", "check.sh")
LINE = re.compile(r"^(ok|FAIL|skip)\s+([\w. -]+): (.*)$")


def need(var):
    v = os.environ.get(var)
    if not v:
        raise unittest.SkipTest("%s is not set (run through ctest)" % var)
    return v


class GpuCheck(unittest.TestCase):
    def run_check(self, nvml_watts):
        tmp = tempfile.mkdtemp(prefix="gpucheck-test.")
        self.addCleanup(shutil.rmtree, tmp, True)
        bin_dir = os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        for name, var in (("nvidia-smi", "HWRUN_FAKE_SMI"), ("hwmon", "HWMON"),
                          ("summarize", "SUMMARIZE")):
            os.symlink(need(var), os.path.join(bin_dir, name))
        env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], GPUCHECK_SCALE="0.25",
                   HWMON_NVML_LIBRARY=need("HWRUN_FAKE_NVML"), FAKE_NVML_POWER_W=str(nvml_watts),
                   FAKE_SMI_GPUS="1", FAKE_NVML_GPUS="1")
        p = subprocess.run(["sh", CHECK, os.path.join(tmp, "out")], env=env, text=True,
                           capture_output=True, timeout=240)
        lines = p.stdout.splitlines()
        self.assertTrue(lines and lines[-1].startswith("verdict: "), p.stdout + p.stderr)
        got = {}
        for line in lines[:-1]:
            m = LINE.match(line)
            self.assertIsNotNone(m, "not a check line: %r" % line)
            got[m.group(2)] = (m.group(1), m.group(3))
        return p.returncode, got, lines[-1]

    def test_fake_gpu(self):
        # the fake's power climbs from 100 W by 1.25 W a sample: an NVML counter at 105 W agrees
        rc, got, verdict = self.run_check(105)
        for name in ("nvidia-smi", "query_fields", "hwmon_run", "run_jsonl", "start_delay",
                     "hwmon_fields", "no_gpu_fields_fallback", "summarize", "status", "events",
                     "file hw_metrics.csv", "file hw_dmon.csv", "file hw_gpm.csv",
                     "file hw_energy.csv", "file hw_pmon.csv", "energy_counter", "short_phase",
                     "stop_no_leftovers", "stop_status", "cost", "live_running", "live_final",
                     "log_rotation", "gpu_source", "prom_live", "prom_lines", "prom_gpu",
                     "prom_removed", "amd_absent", "live_energy", "phase_cover"):
            self.assertEqual(got.get(name, ("absent",))[0], "ok", "%s: %s" % (name, got.get(name)))
        # no PyTorch here: the load's figures are said to be untested, not passed
        self.assertEqual(got["load_figures"][0], "skip")
        self.assertNotIn("matmul_util", got)
        self.assertEqual(got["live_matmul"][0], "skip")
        self.assertEqual(rc, 0, verdict)
        self.assertTrue(verdict.startswith("verdict: PASS"))

    def test_counter_disagrees(self):
        # an energy counter three times what the power readings say: the check must say FAIL
        rc, got, verdict = self.run_check(300)
        self.assertEqual(got["energy_counter"][0], "FAIL", got["energy_counter"])
        self.assertEqual(rc, 1)
        self.assertTrue(verdict.startswith("verdict: FAIL (") and " 1 failed" in verdict, verdict)


if __name__ == "__main__":
    unittest.main()
