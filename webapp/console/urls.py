from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from webapp.console import views

app_name = "console"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.index, name="index"),
    path("runs/launch", views.launch, name="launch"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/status", views.run_status, name="run_status"),
    path("runs/<int:pk>/stop", views.run_stop, name="run_stop"),
    path("runs/<int:pk>/plots/<str:name>", views.run_plot, name="run_plot"),
    path("checkpoints/", views.checkpoints, name="checkpoints"),
    path("checkpoints/promote", views.promote, name="promote"),
    path("checkpoints/promote/confirm", views.promote_confirm, name="promote_confirm"),
    path("checkpoints/rollback", views.rollback, name="rollback"),
    path("status/", views.status, name="status"),
    path("status/components", views.status_fragment, name="status_components"),
    path("monitoring", views.monitoring_fragment, name="monitoring"),
]
