"""A prover run in a child process the caller can end at any moment.

Cancellation inside a run is cooperative (service.run_prover polls `should_cancel` between
model turns and search expansions), and one model generation can run for minutes on a CPU
with nothing to poll. So the worker runs the prover in a child process, `ProverHost`, and
when a cancel comes it first asks the child to stop (it stops at its next poll), then, if
the child has not answered within `grace_s`, kills it: the run ends within seconds whatever
the model is doing. The child keeps its model and Lean REPL loaded between runs, and a new
one is started after a kill.

The protocol, one JSON object per line:

    caller -> child (stdin):  {"run": {"problem": ..., "mode": ..., "n": ..., "model": ...,
                                        "search": {algorithm, workers, max_iterations,
                                                   tree_store_url}}}
                              {"cancel": true}
    child -> caller (stdout): {"event": <ProverEvent.to_dict()>}   as the run goes
                              {"result": <ProverResult.to_dict()>} once, at its end

The child writes the protocol on a copy of its standard output and points file descriptor 1
at its standard error, so nothing a library prints can break a line. It exits when its
standard input closes (the caller died or closed it), even in the middle of a run.

No Django here, as everywhere under tutor/.

    python -m tutor.prover.host      the child (ProverHost starts it)
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

log = logging.getLogger(__name__)

GRACE_S = 2.0  # after asking the child to stop, how long before it is killed
POLL_S = 0.1  # how often the caller looks for output and asks `should_cancel`


def default_command() -> list[str]:
    """The child's command: LEANCOACH_PROVER_HOST_CMD (a shell-style command line; tests
    point it at a stand-in) or this module run by this interpreter."""
    import shlex

    given = os.environ.get("LEANCOACH_PROVER_HOST_CMD", "").strip()
    return shlex.split(given) if given else [sys.executable, "-m", "tutor.prover.host"]


class ProverHost:
    """One child process, one run at a time (the caller's worker process runs one task at a
    time). `run` restarts the child when it died, was killed, or the environment it was
    started with changed (tests switch models and Lean doubles between runs)."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self.command = list(command) if command else default_command()
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_env: dict[str, str] = {}
        self.lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def _ensure(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        if self.proc is not None and (self.proc.poll() is not None or env != self.started_env):
            self.close()
        if self.proc is None:
            # A process group of its own: a kill reaches what it started (its Lean REPLs).
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
            self.started_env = env
        return self.proc

    def close(self) -> None:
        """End the child: it exits when its input closes; killed if it does not at once."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.kill()
            proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()

    def run(
        self,
        request: dict[str, Any],
        on_event: Callable[[dict[str, Any]], None],
        should_cancel: Callable[[], bool],
        *,
        grace_s: float = GRACE_S,
    ) -> dict[str, Any]:
        """Run one request in the child. Returns its ProverResult dict, or one saying how
        the run ended without a result: {"ok": True, "cancelled": True, "killed": True,
        "stopped_after_s": ...} when it was killed after a cancel, {"ok": False, "error":
        ...} when the child died. Whatever interrupts the caller (a time limit) kills the
        child first."""
        with self.lock:
            proc = self._ensure()
            try:
                return self._run(proc, request, on_event, should_cancel, grace_s)
            except BaseException:
                self.kill()
                raise

    def _run(
        self,
        proc: subprocess.Popen[bytes],
        request: dict[str, Any],
        on_event: Callable[[dict[str, Any]], None],
        should_cancel: Callable[[], bool],
        grace_s: float,
    ) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            _send(proc.stdin, {"run": request})
        except OSError as exc:
            self.kill()
            return {"ok": False, "error": f"the prover's process could not start: {exc}"}
        lines = _Lines(proc.stdout)
        cancel_at: float | None = None
        while True:
            for message in lines.read(POLL_S):
                if "event" in message:
                    on_event(message["event"])
                elif "result" in message:
                    result = dict(message["result"])
                    if cancel_at is not None:
                        result["stopped_after_s"] = round(time.monotonic() - cancel_at, 2)
                    return result
            if lines.closed:
                code = proc.wait(timeout=10)
                self.kill()
                if cancel_at is not None:
                    return _killed(cancel_at)
                return {"ok": False, "error": f"the prover's process ended (exit code {code})"}
            if cancel_at is None and should_cancel():
                cancel_at = time.monotonic()
                with contextlib.suppress(OSError):  # dying anyway: the next read sees its end
                    _send(proc.stdin, {"cancel": True})
            elif cancel_at is not None and time.monotonic() - cancel_at > grace_s:
                # A generation that does not poll: end the process, not just the run.
                self.kill()
                return _killed(cancel_at)


def _killed(cancel_at: float) -> dict[str, Any]:
    return {
        "ok": True,
        "cancelled": True,
        "killed": True,
        "verdict": "no_proof",
        "trajectories": [],
        "stopped_after_s": round(time.monotonic() - cancel_at, 2),
    }


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    stream.write(json.dumps(message).encode() + b"\n")
    stream.flush()


class _Lines:
    """JSON lines from the child's output, read without blocking past a timeout."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.fd = stream.fileno()
        self.buffer = b""
        self.closed = False

    def read(self, timeout_s: float) -> list[dict[str, Any]]:
        ready, _, _ = select.select([self.fd], [], [], timeout_s)
        if not ready:
            return []
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            self.closed = True
        self.buffer += chunk
        *complete, self.buffer = self.buffer.split(b"\n")
        messages = []
        for line in complete:
            try:
                messages.append(json.loads(line))
            except ValueError:
                log.warning("prover host wrote a line that is not JSON: %r", line[:200])
        return messages


# --- the child ----------------------------------------------------------------------------


def _serve(protocol: IO[str]) -> None:
    from tutor.prover.problem import Problem
    from tutor.prover.search import SearchConfig
    from tutor.prover.service import ProverConfig, run_prover

    cancel = threading.Event()
    runs: list[dict[str, Any]] = []
    arrived = threading.Condition()
    write_lock = threading.Lock()

    def send(message: dict[str, Any]) -> None:
        with write_lock:
            protocol.write(json.dumps(message) + "\n")
            protocol.flush()

    def listen() -> None:
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("cancel"):
                cancel.set()
            elif "run" in message:
                # A cancel always follows its run in the stream: clear the last run's here,
                # not when the run starts, or a cancel sent right after the run is lost.
                cancel.clear()
                with arrived:
                    runs.append(message["run"])
                    arrived.notify()
        os._exit(0)  # the caller is gone: so is this process, mid-run or not

    threading.Thread(target=listen, name="prover-host-input", daemon=True).start()
    while True:
        with arrived:
            while not runs:
                arrived.wait()
            request = runs.pop(0)
        search = SearchConfig(**request.get("search", {}))
        config = ProverConfig(
            mode=request["mode"], n=int(request.get("n", 1)), model=request.get("model"),
            search=search,
        )  # fmt: skip

        def forward(event: Any) -> None:
            send({"event": event.to_dict() if hasattr(event, "to_dict") else dict(event)})

        try:
            result = run_prover(
                Problem.from_dict(request["problem"]), config, forward, cancel.is_set
            ).to_dict()
        except Exception as exc:  # noqa: BLE001 - out of memory, a bug below: say so
            log.exception("prover run failed")
            result = {"ok": False, "error": f"the prover failed: {type(exc).__name__}: {exc}"}
        send({"result": result})


def main() -> None:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever prints to stdout now goes to stderr
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.INFO, format="[prover host] %(levelname)s %(message)s")
    _serve(protocol)


if __name__ == "__main__":
    main()
