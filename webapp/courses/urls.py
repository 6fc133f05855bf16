from __future__ import annotations

from django.urls import path

from webapp.courses import views

app_name = "courses"
urlpatterns = [
    path("import/", views.import_problems, name="import"),
    path("<slug:slug>/", views.course_detail, name="course"),
    path("<slug:slug>/<str:name>/", views.exercise_detail, name="exercise"),
    path("<slug:slug>/<str:name>/hints/<int:index>/", views.open_hint, name="open_hint"),
]
