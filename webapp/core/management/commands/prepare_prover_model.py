"""Prepare the CPU default prover: SmolLM2-135M-Instruct fine-tuned on the starter course.

    python manage.py prepare_prover_model [--force] [--out DIR] [--threads N] [--no-serve]
                                          [--if-unserved] [--background]

The first run trains (about 4 minutes on two free CPU cores, with a progress bar); later runs
find the cached model and return at once. Unless --no-serve, the model is then registered
in the checkpoint registry (settings.CHECKPOINT_ROOT) and promoted to serving when nothing
serves yet, so a prover worker with LEANCOACH_SERVING_CHECKPOINT=<that root> uses it, and
later follows whatever the trainer promotes. The last line printed is the model folder. --background queues the same work as a job on
the `train` queue instead (what `make run` does, so the app serves meanwhile; the console and
the status page show its progress).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


def default_model_dir() -> Path:
    return Path(settings.VAR_DIR) / "models" / "smollm2-sft"


class Command(BaseCommand):
    help = "Fine-tune the CPU default prover model on the starter course (cached)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true", help="train again even if cached")
        parser.add_argument("--out", default=None, help="model folder (default var/models/...)")
        parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
        parser.add_argument(
            "--if-unserved",
            action="store_true",
            help="do nothing when a checkpoint already serves (what `make run` asks)",
        )
        parser.add_argument(
            "--background",
            action="store_true",
            help="queue it as a job on the `train` queue and return at once",
        )
        parser.add_argument(
            "--interrupted",
            action="store_true",
            help="with --background: an unfinished earlier job was interrupted; queue anew",
        )
        parser.add_argument(
            "--no-serve",
            action="store_true",
            help="do not register it in the checkpoint registry / promote it to serving",
        )

    def handle(
        self,
        *args: Any,
        force: bool = False,
        out: str | None = None,
        threads: int | None = None,
        no_serve: bool = False,
        if_unserved: bool = False,
        background: bool = False,
        interrupted: bool = False,
        **options: Any,
    ) -> None:
        if background:
            self._queue(interrupted)
            return
        serving = Path(settings.CHECKPOINT_ROOT) / "serving.json"
        if if_unserved and not force and serving.exists():
            self.stdout.write(f"A prover checkpoint already serves ({serving}); nothing to do.")
            return
        from tqdm import tqdm

        from training.default_model import (
            DefaultModelConfig,
            is_prepared,
            prepare_default_prover,
            read_prepared,
            serve_if_unserved,
            starter_problems,
        )
        from tutor.prover.policy import ModelNotFound

        out_dir = Path(out) if out else default_model_dir()
        config = DefaultModelConfig(threads=threads)
        try:
            problems = starter_problems()
            if not force and is_prepared(problems, out_dir, config):
                self.stdout.write("The prover model is already prepared.")
                self._serve(out_dir, serve_if_unserved, skip=no_serve)
                self.stdout.write(str(out_dir))
                return
            self.stdout.write(
                f"Fine-tuning {config.base_model} on {len(problems)} starter exercises "
                "(first time only; about 4 minutes on two free CPU cores)..."
            )
            with tqdm(total=None, desc="prover SFT", unit="step") as bar:

                def progress(step: int, total: int, loss: float) -> None:
                    bar.total = total
                    bar.set_postfix(loss=f"{loss:.3f}")
                    bar.update(step - bar.n)

                path = prepare_default_prover(
                    problems, out_dir, config=config, on_progress=progress, force=force
                )
        except (ModelNotFound, ValueError, OSError) as exc:
            raise CommandError(f"could not prepare the prover model: {exc}") from exc
        info = read_prepared(path)
        if info is not None and info.losses:
            self.stdout.write(
                f"Trained {info.steps} steps on {info.examples} examples in "
                f"{info.wall_s:.0f} s; loss {info.losses[0]:.3f} -> {info.losses[-1]:.3f}."
            )
        self._serve(path, serve_if_unserved, skip=no_serve)
        self.stdout.write(str(path))

    def _queue(self, interrupted: bool) -> None:
        from webapp.console.default_model import do_queue_default_model

        run = do_queue_default_model(interrupted=interrupted)
        if run is None:
            self.stdout.write("A prover checkpoint serves or is being prepared; nothing queued.")
        else:
            self.stdout.write(
                f"Queued the prover model fine-tune on the `train` queue (training run "
                f"{run.pk}); its progress shows in the console and on the status page."
            )

    def _serve(self, path: Path, serve_if_unserved: Any, *, skip: bool) -> None:
        if skip:
            return
        root = Path(settings.CHECKPOINT_ROOT)
        result = serve_if_unserved(path, root)
        if result.ok:
            self.stdout.write(f"Now serving it from the checkpoint registry {root}.")
        else:
            self.stdout.write(f"Not promoted to serving: {result.reason}.")
