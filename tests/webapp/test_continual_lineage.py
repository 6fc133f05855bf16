"""The classroom-to-model loop in the web app: consent on the class page, the export honours
it, a console continual run records its lineage, the run page and the teacher's review page
show it, and withdrawn data (student deleted, consent off) is named on the run page."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.training.conftest import fake_checker as fake_checker  # noqa: F401  (fixture)
from tests.training.conftest import tools_factory as tools_factory  # noqa: F401  (fixture)
from tests.webapp.cast import PASSWORD, Cast, make_cast
from training.continual import read_snapshot
from webapp.attempts.actions import ReviewInput, do_review_suggestion
from webapp.attempts.export import export_training_snapshot
from webapp.attempts.models import Attempt, CuratedFeedback, LineDiagnostic, Suggestion
from webapp.console import tasks
from webapp.console.models import LineageItem, TrainingRun
from webapp.courses.models import Exercise

pytestmark = pytest.mark.django_db

FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


@pytest.fixture
def var_dirs(settings, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path / "var"
    settings.CHECKPOINT_ROOT = tmp_path / "var" / "checkpoints"
    return tmp_path / "var"


def _reviewed_attempt(cast: Cast, exercise: Exercise | None = None) -> CuratedFeedback:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=exercise or cast.exercise, proof="  simp", status="done",
        valid=False,
    )  # fmt: skip
    LineDiagnostic.objects.create(
        attempt=attempt, line=1, severity="error", kind="simp_no_progress",
        message="simp made no progress",
    )  # fmt: skip
    first = Suggestion.objects.create(attempt=attempt, line=1, text="Try rfl.", kind="do")
    second = Suggestion.objects.create(attempt=attempt, line=1, text="Drop simp.", kind="dont")
    do_review_suggestion(cast.teacher, first, ReviewInput("edited", text="Use rfl here."))
    do_review_suggestion(cast.teacher, second, ReviewInput("approved"))
    return CuratedFeedback.objects.get(suggestion=first)


def test_the_export_takes_only_consented_classes_and_groups_feedback(
    cast: Cast, tmp_path: Path
) -> None:
    _reviewed_attempt(cast)
    path = tmp_path / "snap.jsonl"
    counts = export_training_snapshot(path)
    assert (counts.attempts, counts.feedback) == (0, 0)  # consent is off by default
    cast.classroom.use_for_training = True
    cast.classroom.save()
    counts = export_training_snapshot(path)
    assert (counts.attempts, counts.feedback) == (1, 2)
    snapshot = read_snapshot(path)
    (key,) = snapshot.approved_feedback
    texts = [s["text"] for s in snapshot.approved_feedback[key]["suggestions"]]
    assert key.startswith("attempt-") and len(texts) == 2
    assert texts[0] == "At `simp`: Use rfl here."  # the line quoted, not "Line 2"


def test_the_class_page_shows_and_toggles_consent(cast: Cast, client) -> None:
    client.login(username=cast.teacher.username, password=PASSWORD)
    url = reverse("accounts:classroom", args=[cast.classroom.pk])
    page = client.get(url).content.decode()
    assert "Use for training" in page and "<strong>Off:</strong>" in page
    toggle = reverse("accounts:classroom_training", args=[cast.classroom.pk])
    client.post(toggle, {"use_for_training": "on"})
    cast.classroom.refresh_from_db()
    assert cast.classroom.use_for_training
    assert "<strong>On:</strong>" in client.get(url).content.decode()
    client.post(toggle, {})
    cast.classroom.refresh_from_db()
    assert not cast.classroom.use_for_training
    other = reverse("accounts:classroom_training", args=[cast.other_classroom.pk])
    assert client.post(other, {"use_for_training": "on"}).status_code == 403


def test_the_run_page_says_how_many_examples_came_from_prover_searches(cast: Cast, client) -> None:
    from webapp.console.actions import do_record_run_lineage

    run = TrainingRun.objects.create(
        algorithm="continual", preset="tiny", steps=1, feedback_source="fixed",
        course=cast.course, base_model="m", created_by=cast.admin,
    )  # fmt: skip
    lineage = {  # the shape training.continual.lineage_of writes
        "trajectories": ["prover-run-3"],
        "search": {"sft_examples": 2, "fd_examples": 1, "trajectories": ["prover-run-3"]},
        "counts": {"trajectories": 1, "search_sft_examples": 2, "search_fd_examples": 1},
    }
    record = do_record_run_lineage(run, lineage, {}, False, "no gain")
    assert record.counts["search_sft_examples"] == 2 and record.counts["search_fd_examples"] == 1
    assert LineageItem.objects.filter(kind="trajectory", ref="prover-run-3").exists()
    client.login(username=cast.admin.username, password=PASSWORD)
    page = client.get(reverse("console:run", args=[run.pk])).content.decode()
    assert 'id="lineage-search-sft">2<' in page and 'id="lineage-search-fd">1<' in page


@pytest.mark.slow
def test_a_console_continual_run_records_lineage_that_teachers_and_admins_see(
    cast: Cast, tiny_model_dir: Path, var_dirs: Path, client, monkeypatch
) -> None:
    from tutor.lean import reset_checker

    for i in range(5):
        Exercise.objects.create(
            world=cast.exercise.world, order=10 + i, name=f"cast_refl_{i}",
            formal_statement=f"theorem cast_refl_{i} (n : Nat) : n + {i} = n + {i} := by",
            reference_proof="  rfl",
        )  # fmt: skip
    cast.classroom.use_for_training = True
    cast.classroom.save()
    from training.classroom import held_out_ids
    from tutor.prover.problem import Problem
    from webapp.attempts.export import problem_id

    exercises = list(Exercise.objects.all())
    held = held_out_ids([Problem(id=problem_id(e), statement="x") for e in exercises], 0.2)
    trained = next(e for e in exercises if problem_id(e) not in held)
    curated = _reviewed_attempt(cast, trained)
    monkeypatch.setenv("LEAN_REPL_CMD", shlex.join([sys.executable, str(FAKE_REPL)]))
    reset_checker()
    run = TrainingRun.objects.create(
        algorithm="continual", preset="tiny", steps=1, feedback_source="fixed",
        course=cast.course, base_model=str(tiny_model_dir), created_by=cast.admin,
    )  # fmt: skip
    try:
        assert tasks.run_training(run.pk) == "finished"
    finally:
        reset_checker()
    run.refresh_from_db()
    assert run.lineage.counts["attempts"] == 1 and run.lineage.counts["reviews"] == 2
    assert not run.lineage.promoted and run.lineage.reason
    assert LineageItem.objects.filter(kind="review", ref=f"curated-{curated.pk}").exists()
    assert run.metrics.get().values["human_trajectories"] == 1

    client.login(username=cast.admin.username, password=PASSWORD)
    page = client.get(reverse("console:run", args=[run.pk])).content.decode()
    assert 'id="lineage-attempts">1<' in page and 'id="lineage-reviews">2<' in page
    assert "not promoted" in page and "lineage-withdrawn" not in page

    client.login(username=cast.teacher.username, password=PASSWORD)
    review = client.get(reverse("attempts:review") + "?show=all").content.decode()
    assert f"Used in model {run.run_name}" in review

    # Consent off: the next export leaves the class out, and the run page says so.
    cast.classroom.use_for_training = False
    cast.classroom.save()
    assert export_training_snapshot(var_dirs / "again.jsonl").attempts == 0
    client.login(username=cast.admin.username, password=PASSWORD)
    page = client.get(reverse("console:run", args=[run.pk])).content.decode()
    assert "class consent turned off" in page
    # The student deletes their account: their data is gone, the past run still names it.
    student_ref = f"student-{cast.student.pk}"
    cast.student.delete()
    page = client.get(reverse("console:run", args=[run.pk])).content.decode()
    assert f"{student_ref}</code> (account deleted)" in page and "deleted (with the" in page


def _class_problems(cast: Cast) -> list[Exercise]:
    """The training tests' problems as the cast course's exercises (the scripted prover
    double knows their proofs); the cast's own exercise is removed."""
    from tests.training.test_continual import ALL

    cast.exercise.delete()
    world = cast.course.worlds.first()
    assert world is not None
    return [
        Exercise.objects.create(
            world=world,
            order=i,
            name=r["name"],
            formal_statement=r["formal_statement"],
            reference_proof=r["reference_proof"],
        )  # fmt: skip
        for i, r in enumerate(ALL)
    ]


@pytest.mark.slow
@pytest.mark.parametrize("gain", [True, False], ids=["promoted", "refused"])
def test_curated_feedback_rows_reach_a_gated_checkpoint(
    cast: Cast, tiny_model_dir: Path, tmp_path: Path, fake_checker, tools_factory, gain: bool
) -> None:
    """CuratedFeedback row -> export -> snapshot -> training steps whose loss includes the
    attempt -> weights change -> checkpoint with lineage -> gate: promoted when the model
    gets better on the held-out problems (a prover double that follows the weights), refused
    when it does not (the same double, never confident enough)."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.training.test_continual import _config, _mean_logprob, confident_rollout_factory
    from training.checkpoints import CheckpointRegistry
    from training.classroom import held_out_ids
    from training.continual import continual_distill
    from tutor.coach.fixed import FixedCoach
    from tutor.prover.problem import Problem
    from webapp.attempts.export import problem_id

    exercises = _class_problems(cast)
    cast.classroom.use_for_training = True
    cast.classroom.save()
    problems = {problem_id(e): e for e in exercises}
    held = held_out_ids([Problem(id=p, statement="x") for p in problems], 0.5)
    solved, reviewed = [e for p, e in problems.items() if p not in held][:2]
    Attempt.objects.create(
        student=cast.student, exercise=solved, proof="  " + solved.reference_proof.strip(),
        status="done", valid=True,
    )  # fmt: skip
    curated = _reviewed_attempt(cast, reviewed)
    snapshot = tmp_path / "snap.jsonl"
    export_training_snapshot(snapshot)

    config = _config(tiny_model_dir, tmp_path, f"webapp-{gain}")
    config.classroom.sft_per_step, config.training.reinforce.total_steps = 1, 3
    records: list[dict] = []
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    from training.continual import read_snapshot

    margin = 0.05 if gain else 1e9
    thresholds = {
        p.id: _mean_logprob(model, tok, p) + margin for p in read_snapshot(snapshot).problems
    }
    result = continual_distill(
        snapshot, config, coach=FixedCoach(), callback=records.append,
        rollout_factory=confident_rollout_factory(fake_checker, tools_factory, thresholds),
    )  # fmt: skip
    assert result.error is None
    assert all(r["human_trajectories"] == 1 and r["human_fd_loss"] > 0 for r in records)
    assert all(r["sft_examples"] == 1 for r in records)
    assert result.checkpoint is not None
    after = load_file(str(result.checkpoint / "model.safetensors"))
    before = model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in after if k in before)
    assert f"curated-{curated.pk}" in result.lineage["reviews"]
    assert len(result.lineage["attempts"]) == 2
    serving = CheckpointRegistry(config.checkpoints.registry).serving_path()
    if gain:
        assert result.promoted, result.reason
        assert result.checkpoint is not None
        assert serving == result.checkpoint.resolve()
    else:
        assert not result.promoted and "not above" in result.reason and serving is None
