"""LeanCoach web layer: Django project, its apps, Celery tasks and Channels consumers."""

from webapp.celery import app as celery_app

__all__ = ["celery_app"]
