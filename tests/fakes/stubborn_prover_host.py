"""A stand-in for the prover's child process (tutor/prover/host.py), for tests only: it speaks
the host's protocol (one JSON object per line: {"run": ...} and {"cancel": true} in, {"event":
...} and {"result": ...} out, as tutor.prover.host's module docstring specifies) but, like a
model generation that polls nothing, never stops for a cancel: it sends the run's `started`
event and then sleeps. Its process id goes to the file STUBBORN_HOST_PID_FILE names, so a test
can tell whether the process was ended, and, like the real child's Lean REPL, it starts a
process of its own (a `sleep`), whose id goes to STUBBORN_HOST_PID_FILE + ".child".

    FAKE_HOST_FINISH_AFTER_S=N   answer a result after N seconds instead (a run that ends)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def main() -> None:
    pid_file = os.environ.get("STUBBORN_HOST_PID_FILE")
    helper = subprocess.Popen(["sleep", "600"])  # what a Lean REPL would be
    if pid_file:
        with open(pid_file + ".child", "w") as out:
            out.write(str(helper.pid))
        with open(pid_file, "w") as out:
            out.write(str(os.getpid()))
    finish_after = float(os.environ.get("FAKE_HOST_FINISH_AFTER_S", "0") or 0)
    for line in sys.stdin:
        message = json.loads(line)
        if "run" not in message:
            continue  # a cancel: ignored, as by a generation that polls nothing
        problem = message["run"]["problem"]
        event = {"type": "started", "attempt": 0, "problem_id": problem["id"],
                 "mode": message["run"]["mode"], "model": "stubborn"}  # fmt: skip
        print(json.dumps({"event": event}), flush=True)
        if not finish_after:
            while True:
                time.sleep(60)
        time.sleep(finish_after)
        result = {"ok": True, "verdict": "no_proof", "proof": None, "trajectories": [],
                  "error": None, "cancelled": False, "elapsed_s": finish_after, "n_valid": 0}  # fmt: skip
        print(json.dumps({"result": result}), flush=True)


if __name__ == "__main__":
    main()
