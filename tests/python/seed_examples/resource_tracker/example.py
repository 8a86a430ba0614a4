"""resource_tracker, as its page describes it: get_pid_stats() and get_system_stats() of a
process, PidTracker(pid=..., interval=...) printing its CSV to stdout until the process exits,
SystemTracker run in a process of its own into an output_file, terminated. Prints as the seed
prints."""
import os
import subprocess
import sys
import time
from multiprocessing import Process

from resource_tracker import PidTracker, SystemTracker, get_pid_stats, get_system_stats

job = subprocess.Popen([sys.executable, "-c", "import time\nb = bytearray(16 << 20)\n"
                        "t = time.time()\nwhile time.time() - t < 4: b[int(time.time()) % 9] = 1"])
print(get_pid_stats(job.pid))
print(get_system_stats())
sys.stdout.flush()

PidTracker(pid=job.pid, interval=0.2)
job.wait()
sys.stdout.flush()

output_file = sys.argv[1]
system = Process(target=SystemTracker, kwargs={"interval": 0.2, "output_file": output_file})
system.start()
deadline = time.monotonic() + 60
while time.monotonic() < deadline:  # until it wrote its header and two rows
    with open(output_file) if os.path.exists(output_file) else open(os.devnull) as f:
        if len(f.read().splitlines()) >= 3:
            break
    time.sleep(0.05)
system.terminate()
system.join()
with open(output_file) as f:
    print(f.read(), end="")
