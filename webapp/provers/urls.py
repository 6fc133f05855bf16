from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from webapp.provers import views

app_name = "provers"
urlpatterns: list[URLPattern | URLResolver] = [
    path("exercise/<int:exercise_id>/ask", views.ask, name="ask"),
    path("runs/<int:pk>/", views.run_page, name="run"),
    path("runs/<int:pk>/panel", views.run_panel, name="run_panel"),
    path("runs/<int:pk>/cancel", views.cancel, name="cancel"),
]
