"""The prover run's page, pushed: its status, tree and events to everyone watching the run
(the group `prover_run.<pk>`; webapp/console/live.py has the message contract)."""

from __future__ import annotations

from webapp.console.live import push, render_fragments
from webapp.provers.access import owner_may_see_final_proof
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context

RUN_TEMPLATE = "provers/run.html"


def push_prover_state(pk: int, *, final: bool = False) -> None:
    run = ProverRun.objects.select_related("exercise__world", "user").get(pk=pk)
    # Everyone watching gets what the student who asked may see (her teachers see the
    # whole proof when they load the page).
    context = run_context(run, reveal=owner_may_see_final_proof(run))
    push(run.group_name, render_fragments(RUN_TEMPLATE, ["status", "tree", "events"], context),
         final=final)  # fmt: skip
