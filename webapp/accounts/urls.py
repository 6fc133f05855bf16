from __future__ import annotations

from django.urls import path

from webapp.accounts import views

app_name = "accounts"
urlpatterns = [
    path("me/", views.dashboard, name="dashboard"),
    path("me/school-sign-in/", views.school_sign_in, name="school_sign_in"),
    path("classes/join/", views.join_classroom, name="join"),
    path("classes/new/", views.create_classroom, name="create_classroom"),
    path("classes/<int:pk>/", views.classroom_detail, name="classroom"),
    path("classes/<int:pk>/courses/", views.classroom_courses, name="classroom_courses"),
    path("classes/<int:pk>/prover/", views.classroom_prover, name="classroom_prover"),
    path("classes/<int:pk>/training/", views.classroom_training, name="classroom_training"),
    path("course-grants/<slug:slug>/", views.course_grants, name="course_grants"),
]
