from __future__ import annotations

from django.urls import path

from webapp.assignments import views

app_name = "assignments"
urlpatterns = [
    path("classes/<int:pk>/assignments/new/", views.new_assignment, name="new"),
    path("classes/<int:pk>/grades.csv", views.grades_csv, name="grades_csv"),
    path("assignments/<int:pk>/", views.assignment_detail, name="detail"),
    path("assignments/<int:pk>/delete/", views.delete_assignment, name="delete"),
    path(
        "assignments/<int:pk>/exercises/<int:exercise_pk>/",
        views.exercise_analytics,
        name="exercise",
    ),
    path(
        "assignments/<int:pk>/exercises/<int:exercise_pk>/attempts/",
        views.exercise_attempts,
        name="attempts",
    ),
]
