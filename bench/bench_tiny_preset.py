"""How long the console's "tiny" preset takes on this machine, through the console's own code
path: the first run converts the GGUF base (SmolLM2, the default) into the registry, every
later run reuses it; then an SFT run of the tiny preset on the starter course goes through
the `train.run_training` task (in-process), as a click on Launch would.

    python bench/bench_tiny_preset.py            # both parts, a fresh temp registry
    python bench/bench_tiny_preset.py --var DIR  # reuse DIR (a converted base is reused)

Prints each phase with its time stamp, then a table (`--markdown`: bench/README.md's block,
with the command and the machine). The figures go into the
preset labels (webapp/console/models.py) and docs/CONSOLE.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402


def convert(registry: Path) -> float:
    from training.default_model import safetensors_base

    started = time.monotonic()

    def say(text: str) -> None:
        print(f"[{time.monotonic() - started:7.1f} s] {text}", flush=True)

    safetensors_base("smollm2", registry, on_phase=say)
    return time.monotonic() - started


def console_run(algorithm: str) -> tuple[float, str, int]:
    from webapp.console import tasks
    from webapp.console.models import TrainingRun
    from webapp.courses.models import Course

    course = Course.objects.order_by("pk").first()
    run = TrainingRun.objects.create(
        algorithm=algorithm, preset="tiny", course=course, base_model="smollm2", steps=4
    )
    started = time.monotonic()
    tasks.run_training.apply(args=(run.pk,))
    run.refresh_from_db()
    return time.monotonic() - started, f"{run.status} {run.error}".strip(), run.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--var", default="", help="the var dir (default: a fresh temp dir)")
    parser.add_argument("--convert-only", action="store_true")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine_line = md_table.machine()
    var = args.var or tempfile.mkdtemp(prefix="bench-tiny-")
    registry = Path(var) / "checkpoints"
    convert_s = convert(registry)
    rows = [["convert the SmolLM2 GGUF base (first run only)", f"{convert_s:.0f} s"]]
    if not args.convert_only:
        from bench.bench_submit_path import setup_django

        setup_django(var)
        wall, status, steps = console_run("SFT")
        rows.append([f"tiny SFT run, base converted ({steps} steps, {status})", f"{wall:.0f} s"])
    print(md_table.table(["what", "wall time"], rows))
    if args.markdown:
        md_table.print_table(["what", "wall time"], rows, machine_line)


if __name__ == "__main__":
    main()
