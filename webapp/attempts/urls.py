from __future__ import annotations

from django.urls import path

from webapp.attempts import teaching_views, views

app_name = "attempts"
urlpatterns = [
    path("submit/<int:exercise_pk>/", views.submit_attempt, name="submit"),
    path("goals/<int:exercise_pk>/", views.live_goals, name="live_goals"),
    path("review/", views.review_queue, name="review"),
    path("review/coach/", teaching_views.coach_switches_page, name="coach_switches"),
    path(
        "review/coach/<int:exercise_pk>/",
        teaching_views.set_coach_switch,
        name="set_coach_switch",
    ),
    path("suggestions/<int:pk>/review/", views.review_suggestion, name="review_suggestion"),
    path("suggestions/<int:pk>/share/", teaching_views.share_feedback, name="share_feedback"),
    path("<int:pk>/", views.attempt_detail, name="detail"),
    path("<int:pk>/live/", views.attempt_live, name="live"),
]
