from __future__ import annotations

from django.urls import path

from webapp.core import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("metrics", views.metrics, name="metrics"),
]
