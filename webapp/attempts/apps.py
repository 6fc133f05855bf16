from __future__ import annotations

from django.apps import AppConfig


class AttemptsConfig(AppConfig):
    name = "webapp.attempts"
    label = "attempts"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from webapp.attempts.models import CoachSwitch, CuratedFeedback
        from webapp.attempts.teaching import teaching_changed

        # What teachers taught the coach is memoized per process (attempts/teaching.py).
        for model in (CuratedFeedback, CoachSwitch):
            uid = f"coach-teaching-{model.__name__}"
            post_save.connect(teaching_changed, sender=model, dispatch_uid=f"{uid}-save")
            post_delete.connect(teaching_changed, sender=model, dispatch_uid=f"{uid}-delete")
