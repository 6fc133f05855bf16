"""The admin console's pages: who may see them, and what launching, stopping, promoting and
rolling back do. One permission table covers every view."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast, make_cast
from webapp.console.models import TrainingMetric, TrainingRun


@pytest.fixture
def cast(db: None) -> Cast:
    return make_cast()


GET_VIEWS = [
    ("console:index", []),
    ("console:run", ["RUN"]),
    ("console:run_status", ["RUN"]),
    ("console:checkpoints", []),
    ("console:status", []),
    ("console:monitoring", []),
]
POST_VIEWS = [
    ("console:launch", []),
    ("console:run_stop", ["RUN"]),
    ("console:promote", []),
    ("console:rollback", []),
]


def _url(name: str, args: list[str], run: TrainingRun) -> str:
    return reverse(name, args=[run.pk if a == "RUN" else a for a in args])


@pytest.fixture
def run(cast: Cast) -> TrainingRun:
    return TrainingRun.objects.create(course=cast.course, created_by=cast.admin, steps=4)


@pytest.fixture
def admin_client(client: Client, cast: Cast) -> Client:
    client.force_login(cast.admin)
    return client


@pytest.mark.parametrize(("name", "args"), GET_VIEWS + POST_VIEWS)
@pytest.mark.parametrize("who", ["student", "teacher", "outsider"])
def test_it_forbids_non_admins(
    client: Client, cast: Cast, run: TrainingRun, name, args, who
) -> None:
    client.force_login(getattr(cast, who))
    method = client.post if (name, args) in POST_VIEWS else client.get
    assert method(_url(name, args, run)).status_code == 403
    assert TrainingRun.objects.count() == 1 and not TrainingRun.objects.get().stop_requested


@pytest.mark.parametrize(("name", "args"), GET_VIEWS + POST_VIEWS)
def test_it_sends_anonymous_users_to_login(client: Client, run: TrainingRun, name, args) -> None:
    method = client.post if (name, args) in POST_VIEWS else client.get
    response = method(_url(name, args, run))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(("name", "args"), GET_VIEWS)
def test_it_shows_every_page_to_admins(admin_client: Client, run: TrainingRun, name, args) -> None:
    with mock.patch("webapp.console.views.cached_system_status", return_value=_HEALTH):
        assert admin_client.get(_url(name, args, run)).status_code == 200


_HEALTH = {
    "status": "degraded",
    "components": {
        "workers": {"ok": False, "detail": "no worker for: train", "core": False,
                    "data": {"queues": {"lean": ["w1@host"], "prover": ["w1@host"], "train": []}}},
        "lean": {"ok": False, "detail": "no Lean toolchain found", "core": False, "data": {}},
    },
}  # fmt: skip


def test_status_fragment_lists_workers_per_queue_and_components(admin_client: Client) -> None:
    with mock.patch("webapp.console.views.cached_system_status", return_value=_HEALTH):
        html = admin_client.get(reverse("console:status_components")).content.decode()
    assert "w1@host" in html and "no worker" in html and "no Lean toolchain found" in html
    assert 'id="overall-status">degraded' in html


def test_status_fragment_asks_the_real_components(admin_client: Client) -> None:
    html = admin_client.get(reverse("console:status_components")).content.decode()
    for component in ("database", "redis", "workers", "lean", "gpu", "serving_model"):
        assert f'id="component-{component}"' in html


@functools.cache
def _model_folder() -> str:
    """A folder the model resolver accepts as a Hugging Face model (a config.json): the
    launch form checks that the base model exists; nothing here loads it."""
    folder = Path(tempfile.mkdtemp(prefix="console-model-"))
    (folder / "config.json").write_text("{}")
    return str(folder)


def _launch_data(cast: Cast, **overrides: object) -> dict[str, object]:
    data = {"algorithm": "FD-GRPO", "preset": "tiny", "steps": 6, "feedback_source": "fixed",
            "alpha": 0.9, "top_k": 25, "switch_step": 3, "course": cast.course.pk,
            "base_model": _model_folder()}  # fmt: skip
    data.update(overrides)
    return data


def test_launch_creates_a_queued_run_and_enqueues_it_on_commit(
    admin_client: Client,
    cast: Cast,
    django_capture_on_commit_callbacks,
) -> None:
    with (
        mock.patch("webapp.console.actions.enqueue") as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = admin_client.post(reverse("console:launch"), _launch_data(cast))
    run = TrainingRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "console:run", args=[run.pk]
    )
    assert (run.algorithm, run.steps, run.switch_step, run.status) == ("FD-GRPO", 6, 3, "queued")
    assert run.created_by == cast.admin
    delay.assert_called_once_with("train.run_training", run.pk)


def test_launch_over_htmx_redirects_the_client(admin_client: Client, cast: Cast) -> None:
    with mock.patch("webapp.console.actions.enqueue"):
        response = admin_client.post(
            reverse("console:launch"), _launch_data(cast), HTTP_HX_REQUEST="true"
        )
    assert response["HX-Redirect"] == reverse("console:run", args=[TrainingRun.objects.get().pk])


def test_bad_launch_input_gets_messages_and_keeps_the_values(
    admin_client: Client, cast: Cast
) -> None:
    data = _launch_data(cast, switch_step=9, alpha=1.5, base_model="/my/model")
    with mock.patch("webapp.console.actions.enqueue") as delay:
        response = admin_client.post(reverse("console:launch"), data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'id="launch-form"' in html
    assert "Ensure this value is less than or equal to 1.0" in html
    assert 'value="/my/model"' in html  # nothing the admin typed is lost
    assert not TrainingRun.objects.exists() and not delay.called


def test_switch_step_past_the_run_is_refused(admin_client: Client, cast: Cast) -> None:
    response = admin_client.post(reverse("console:launch"), _launch_data(cast, switch_step=9))
    assert response.status_code == 400
    assert "at most the run&#x27;s 6 steps" in response.content.decode()
    assert not TrainingRun.objects.exists()


def test_a_launch_without_a_problem_set_is_refused(admin_client: Client, cast: Cast) -> None:
    response = admin_client.post(reverse("console:launch"), _launch_data(cast, course=""))
    assert "Choose the course" in response.content.decode()
    assert not TrainingRun.objects.exists()


def test_an_empty_base_model_with_nothing_serving_is_refused_on_the_form(
    admin_client: Client, cast: Cast, registry_root: Path
) -> None:
    data = _launch_data(cast, base_model="", steps=7)
    with mock.patch("webapp.console.actions.enqueue") as delay:
        response = admin_client.post(reverse("console:launch"), data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'id="error-base_model"' in html and "No checkpoint serves yet" in html
    assert 'name="steps" value="7"' in html  # the admin's values stay in the form
    assert not TrainingRun.objects.exists() and not delay.called


def test_an_empty_base_model_is_accepted_once_a_checkpoint_serves(
    admin_client: Client, cast: Cast, registry_root: Path
) -> None:
    admin_client.post(
        reverse("console:promote"),
        {"checkpoint": _fake_checkpoint(registry_root, "console-9", 2), "confirmed": "1"},
    )
    with mock.patch("webapp.console.actions.enqueue"):
        response = admin_client.post(reverse("console:launch"), _launch_data(cast, base_model=""))
    assert response.status_code == 302 and TrainingRun.objects.filter(base_model="").exists()


def test_a_base_model_that_does_not_exist_is_refused_on_the_form(
    admin_client: Client, cast: Cast, tmp_path: Path
) -> None:
    missing = str(tmp_path / "no-such-model")
    response = admin_client.post(reverse("console:launch"), _launch_data(cast, base_model=missing))
    html = response.content.decode()
    assert response.status_code == 400 and 'id="error-base_model"' in html
    assert "cannot be loaded" in html and f'value="{missing}"' in html
    assert not TrainingRun.objects.exists()


def test_a_course_without_exercises_is_refused_on_the_form(
    admin_client: Client, cast: Cast
) -> None:
    from webapp.courses.models import Course

    empty = Course.objects.create(slug="empty", title="Empty course")
    response = admin_client.post(reverse("console:launch"), _launch_data(cast, course=empty.pk))
    assert 'id="error-course"' in response.content.decode()
    assert "has no exercises to train on" in response.content.decode()
    assert not TrainingRun.objects.exists()


def test_stopping_a_queued_run_ends_it_at_once(admin_client: Client, run: TrainingRun) -> None:
    admin_client.post(reverse("console:run_stop", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == "stopped" and run.stop_requested and run.finished_at


def test_stopping_a_running_run_asks_the_trainer(admin_client: Client, run: TrainingRun) -> None:
    TrainingRun.objects.filter(pk=run.pk).update(status="running")
    response = admin_client.post(reverse("console:run_stop", args=[run.pk]), HTTP_HX_REQUEST="true")
    run.refresh_from_db()
    assert run.status == "stopping" and run.stop_requested
    assert "Stopping…" in response.content.decode()


def test_run_page_shows_progress_and_a_chart_of_the_metrics(
    admin_client: Client, run: TrainingRun
) -> None:
    TrainingRun.objects.filter(pk=run.pk).update(status="running", step=2)
    for step, loss in [(1, 2.0), (2, 1.5)]:
        TrainingMetric.objects.create(run=run, step=step, stage="fd", values={"loss": loss})
    html = admin_client.get(reverse("console:run", args=[run.pk])).content.decode()
    assert f'ws-connect="/ws/console/runs/{run.pk}/"' in html
    assert "step 2 / 4" in html and "<polyline" in html
    assert 'id="run-loss">1.5<' in html  # the current loss leads the page


def _status_and_charts(client: Client, run: TrainingRun) -> str:
    return client.get(reverse("console:run", args=[run.pk])).content.decode()


def test_the_run_page_leads_with_phase_elapsed_and_remaining_time(
    admin_client: Client, run: TrainingRun
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    start = timezone.now() - timedelta(minutes=3)
    TrainingRun.objects.filter(pk=run.pk).update(
        status="running", step=2, started_at=start, phase="training (fd steps)"
    )
    for step, loss, reward in [(1, 2.0, 0.1), (2, 1.5, 0.4)]:
        TrainingMetric.objects.create(
            run=run, step=step, stage="fd", values={"loss": loss, "reward": reward}
        )
    # One step took 60 s: two more steps remain, about 2 min.
    first, second = TrainingMetric.objects.order_by("step")
    TrainingMetric.objects.filter(pk=first.pk).update(created_at=start + timedelta(seconds=60))
    TrainingMetric.objects.filter(pk=second.pk).update(created_at=start + timedelta(seconds=120))
    html = _status_and_charts(admin_client, run)
    assert 'id="run-phase">training (fd steps)<' in html
    assert 'id="run-elapsed">3 min 00 s<' in html or 'id="run-elapsed">3 min 01 s<' in html
    assert 'id="run-remaining">about 2 min 00 s<' in html
    assert 'id="run-reward">0.4<' in html and "not evaluated yet" in html


def test_charts_have_axes_units_and_the_current_value(
    admin_client: Client, run: TrainingRun
) -> None:
    for step, loss in [(1, 2.0), (2, 1.5), (5, 1.25)]:
        TrainingMetric.objects.create(run=run, step=step, stage="fd", values={"loss": loss})
    html = _status_and_charts(admin_client, run)
    chart = html.split('<figure class="chart">', 1)[1].split("</figure>", 1)[0]
    assert chart.count('class="chart-axis"') >= 2  # both axes (and their ticks)
    assert ">step</text>" in chart and ">1</text>" in chart and ">5</text>" in chart
    assert ">2</text>" in chart and ">1.25</text>" in chart  # the y range is labelled
    assert "per-token loss" in chart and 'class="chart-now">1.25<' in chart
    assert 'class="chart-dot"' in chart


def test_a_one_point_or_flat_series_is_a_number_not_an_empty_chart(
    admin_client: Client, run: TrainingRun
) -> None:
    TrainingMetric.objects.create(run=run, step=1, stage="fd", values={"eval/pass@1": 0.5})
    for step in (1, 2):
        TrainingMetric.objects.create(run=run, step=step, stage="fd", values={"lr": 0.001})
    html = _status_and_charts(admin_client, run)
    assert "<svg" not in html.split('id="run-charts"', 1)[1].split("</section>", 1)[0]
    figures = html.split('id="run-figures"', 1)[1].split("</details>", 1)[0]
    assert "<dt>eval/pass@1</dt><dd>0.5" in figures and "<dt>lr</dt><dd>0.001" in figures
    assert 'id="run-held-out">0.5' in html


def test_a_run_without_lineage_shows_no_empty_card(admin_client: Client, run: TrainingRun) -> None:
    html = _status_and_charts(admin_client, run)
    assert '<section id="run-lineage">' in html and '<section id="run-lineage" class' not in html
    assert "No metrics yet" in html


def test_plot_view_serves_only_the_runs_own_pngs(
    admin_client: Client, run: TrainingRun, tmp_path: Path
) -> None:
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "loss.png").write_bytes(b"\x89PNG fake")
    (tmp_path / "secret.png").write_bytes(b"no")
    TrainingRun.objects.filter(pk=run.pk).update(output_dir=str(tmp_path))
    ok = admin_client.get(reverse("console:run_plot", args=[run.pk, "loss.png"]))
    assert ok.status_code == 200 and ok["Content-Type"] == "image/png"
    assert b"".join(ok.streaming_content) == b"\x89PNG fake"  # type: ignore[attr-defined]
    assert (
        admin_client.get(reverse("console:run_plot", args=[run.pk, "..%2Fsecret.png"])).status_code
        == 404
    )
    assert (
        admin_client.get(reverse("console:run_plot", args=[run.pk, "nope.png"])).status_code == 404
    )


def _fake_checkpoint(root: Path, run: str, step: int, *, evaluation: dict | None = None) -> str:
    """A registry entry in training.checkpoints' documented layout (config.json + meta.json)."""
    folder = root / "runs" / run / f"step-{step:06d}"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    meta = {"run": run, "step": step, "stage": "fd", "stable": True, "created": 0.0,
            "metrics": {}, "eval": evaluation or {}, "config": {}, "data_snapshot": {}}  # fmt: skip
    (folder / "meta.json").write_text(json.dumps(meta))
    return f"runs/{run}/step-{step:06d}"


@pytest.fixture
def registry_root(settings, tmp_path: Path) -> Path:
    settings.CHECKPOINT_ROOT = tmp_path / "checkpoints"
    return settings.CHECKPOINT_ROOT


def test_checkpoints_list_their_evaluations(admin_client: Client, registry_root: Path) -> None:
    _fake_checkpoint(registry_root, "console-1", 2, evaluation={"pass@1": 0.25})
    html = admin_client.get(reverse("console:checkpoints")).content.decode()
    assert "console-1" in html and "pass@1 0.25" in html and "No checkpoint serves yet" in html


def test_promote_then_roll_back_moves_the_serving_slot(
    admin_client: Client, registry_root: Path
) -> None:
    first = _fake_checkpoint(registry_root, "console-1", 2)
    second = _fake_checkpoint(registry_root, "console-1", 4)
    admin_client.post(reverse("console:promote"), {"checkpoint": first, "confirmed": "on"})
    admin_client.post(reverse("console:promote"), {"checkpoint": second, "confirmed": "on"})
    serving = json.loads((registry_root / "serving.json").read_text())
    assert (serving["path"], serving["previous"]) == (second, first)
    response = admin_client.post(reverse("console:rollback"), follow=True)
    assert json.loads((registry_root / "serving.json").read_text())["path"] == first
    assert "rolled back" in response.content.decode()


def test_promoting_an_unknown_path_changes_nothing(
    admin_client: Client, registry_root: Path
) -> None:
    response = admin_client.post(
        reverse("console:promote"), {"checkpoint": "../../etc", "confirmed": "on"}, follow=True
    )
    assert "is not a checkpoint in the registry" in response.content.decode()
    assert not (registry_root / "serving.json").exists()


def test_rollback_without_a_previous_checkpoint_says_so(
    admin_client: Client, registry_root: Path
) -> None:
    response = admin_client.post(reverse("console:rollback"), follow=True)
    assert "no previous checkpoint to roll back to" in response.content.decode()


def test_promote_without_confirmation_shows_the_confirm_step_and_changes_nothing(
    admin_client: Client, registry_root: Path
) -> None:
    checkpoint = _fake_checkpoint(registry_root, "console-1", 2)
    response = admin_client.post(reverse("console:promote"), {"checkpoint": checkpoint})
    assert not (registry_root / "serving.json").exists()
    assert response.status_code == 302 and "/checkpoints/promote/confirm?" in response["Location"]
    page = admin_client.get(response["Location"]).content.decode()
    assert 'id="confirm-path">' + checkpoint in page
    assert "Not evaluated" in page and "Promote anyway" in page  # said plainly
    assert 'name="confirmed"' in page
    # The checkpoints table asks for the confirm page, it does not post a promote.
    table = admin_client.get(reverse("console:checkpoints")).content.decode()
    assert f'action="{reverse("console:promote_confirm")}"' in table
    assert 'method="get"' in table.split('id="checkpoints"', 1)[1]


def test_the_confirm_step_says_when_the_gate_refused_the_checkpoint(
    admin_client: Client, cast: Cast, registry_root: Path
) -> None:
    from webapp.console.actions import do_record_run_lineage

    run = TrainingRun.objects.create(
        algorithm="continual", course=cast.course, created_by=cast.admin, status="finished"
    )
    checkpoint = _fake_checkpoint(registry_root, run.run_name, 4, evaluation={"pass@1": 0.25})
    reason = "pass@1 0.2500 vs serving 0.5000 on 6 gate problems: a difference of -0.2500"
    gate = {"checkpoint": str(registry_root / checkpoint), "promote": False}
    do_record_run_lineage(run, {"counts": {}}, gate, False, reason)
    url = f"{reverse('console:promote_confirm')}?checkpoint={checkpoint}"
    page = admin_client.get(url).content.decode()
    gate_text = page.split('id="confirm-gate">', 1)[1].split("</dd>", 1)[0]
    assert "Refused by the gate" in gate_text and reason in gate_text
    assert "Promote anyway" in page and "pass@1 0.25" in page
    assert f'href="{reverse("console:run", args=[run.pk])}"' in page
    response = admin_client.post(
        reverse("console:promote"), {"checkpoint": checkpoint, "confirmed": "on"}, follow=True
    )  # confirmed: the admin's call, through the same action
    assert "now serves" in response.content.decode()
    assert json.loads((registry_root / "serving.json").read_text())["path"] == checkpoint


def test_every_checkpoint_links_to_the_run_that_made_it(
    admin_client: Client, cast: Cast, registry_root: Path
) -> None:
    run = TrainingRun.objects.create(
        algorithm="SFT", course=cast.course, created_by=cast.admin, status="finished"
    )
    checkpoint = _fake_checkpoint(registry_root, run.run_name, 2)
    _fake_checkpoint(registry_root, "someone-else", 2)  # no console run: named, not linked
    run_url = reverse("console:run", args=[run.pk])
    html = admin_client.get(reverse("console:checkpoints")).content.decode()
    assert f'class="checkpoint-run" href="{run_url}"' in html
    assert html.count('class="checkpoint-run"') == 1 and "someone-else" in html
    assert "not gated" in html
    admin_client.post(reverse("console:promote"), {"checkpoint": checkpoint, "confirmed": "on"})
    html = admin_client.get(reverse("console:checkpoints")).content.decode()
    assert f'id="serving-run" href="{run_url}"' in html  # the serving model's lineage


def test_a_run_page_lists_the_ids_it_trained_on_with_links(
    admin_client: Client, cast: Cast
) -> None:
    from webapp.attempts.models import Attempt
    from webapp.console.actions import do_record_run_lineage

    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="rfl")
    run = TrainingRun.objects.create(algorithm="continual", course=cast.course, status="finished")
    lineage = {
        "attempts": [f"attempt-{attempt.pk}", "attempt-999999"],
        "students": [f"student-{cast.student.pk}"],
        "held_out_problems": ["a", "b", "c"],
        "selection_problems": ["a"],
        "gate_problems": ["b", "c"],
        "counts": {"attempts": 2, "held_out_problems": 3},
    }
    do_record_run_lineage(run, lineage, {"problems": 2}, False, "only 2 gate problems")
    html = admin_client.get(reverse("console:run", args=[run.pk])).content.decode()
    ids = html.split('id="lineage-attempt-ids">', 1)[1].split("</ul>", 1)[0]
    assert f'href="{reverse("attempts:detail", args=[attempt.pk])}">attempt-{attempt.pk}<' in ids
    assert "<code>attempt-999999</code>" in ids  # gone: the id stays, without a link
    assert f"student-{cast.student.pk}" in html
    # One held-out count, with what each part is for (the gate's "2" is the gate's share).
    held = html.split('id="lineage-held-out">', 1)[1].split("</p>", 1)[0]
    assert "<strong>3</strong> problems" in held and "1 pick" in held and "2 are judged" in held
    assert "(judged on the 2 gate problems)" in html


def test_a_console_run_says_on_how_many_held_out_problems_its_score_is_measured(
    admin_client: Client, cast: Cast
) -> None:
    from webapp.console.actions import do_record_run_lineage
    from webapp.console.training_bridge import ExportedProblems

    run = TrainingRun.objects.create(algorithm="SFT", course=cast.course, status="finished")
    exported = ExportedProblems(trained=[cast.exercise.pk], with_proof=1,
                                selection=[101, 102, 103, 104, 105], gate=[106] * 6)  # fmt: skip
    do_record_run_lineage(run, exported.lineage(8, 2), {}, False, "")
    html = admin_client.get(reverse("console:run", args=[run.pk])).content.decode()
    held = html.split('id="lineage-held-out">', 1)[1].split("</p>", 1)[0]
    assert "<strong>11</strong> problems" in held and "5 pick" in held and "6 are judged" in held
    assert "measured on the first 2 of them" in held
    assert 'id="lineage-problems">1<' in html and "not gated" in html
    exercise_url = reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])
    assert f'href="{exercise_url}">exercise-{cast.exercise.pk}<' in html


def test_charts_name_units_and_draw_a_repeated_series_once() -> None:
    from webapp.console.charts import charts_for

    rows = [(s, {"loss": 3.0 - s, "sft_loss": 3.0 - s, "tokens_per_s": 10.0 * s,
                 "step_time_s": 1.0 + s}) for s in (1, 2, 3)]  # fmt: skip
    charts, figures = charts_for(rows)
    units = {c.key: c.unit for c in charts}
    assert units == {"loss": "per-token loss", "tokens_per_s": "tokens per second",
                     "step_time_s": "s"}  # fmt: skip
    assert [(f.key, f.value) for f in figures] == [("sft_loss", 0.0)]  # same as loss: a number


def test_past_the_two_leading_charts_the_rest_are_folded_away(
    admin_client: Client, run: TrainingRun
) -> None:
    for step in (1, 2, 3):
        values = {"loss": 3.0 - step, "reward": 0.1 * step, "grad_norm": 1.0 + step,
                  "tokens": 100.0 + step}  # fmt: skip
        TrainingMetric.objects.create(run=run, step=step, stage="fd", values=values)
    html = _status_and_charts(admin_client, run)
    leading, folded = html.split('id="run-more-charts"', 1)
    leading = leading.split('id="run-charts"', 1)[1]
    assert leading.count('<figure class="chart">') == 2
    assert "<strong>loss</strong>" in leading and "<strong>reward</strong>" in leading
    assert folded.split("</details>", 1)[0].count('<figure class="chart">') == 2


def test_the_held_out_score_stands_beside_the_serving_checkpoints(
    admin_client: Client, run: TrainingRun, registry_root: Path
) -> None:
    serving = _fake_checkpoint(registry_root, "console-77", 2, evaluation={"pass@1": 0.4})
    admin_client.post(reverse("console:promote"), {"checkpoint": serving, "confirmed": "on"})
    for step, score in [(2, 0.25), (4, 0.5)]:
        TrainingMetric.objects.create(run=run, step=step, stage="eval",
                                      values={"eval/pass@1": score})  # fmt: skip
    html = _status_and_charts(admin_client, run)
    held = html.split('id="run-held-out">', 1)[1].split("</dd>", 1)[0]
    assert held.startswith("0.5") and "by its own evaluation: 0.4" in held


def test_the_runs_list_says_what_an_active_run_is_doing(
    admin_client: Client, run: TrainingRun
) -> None:
    TrainingRun.objects.filter(pk=run.pk).update(status="running", phase="loading the model")
    html = admin_client.get(reverse("console:index")).content.decode()
    assert '<span class="muted">loading the model</span>' in html.split('id="runs"', 1)[1]
