from __future__ import annotations

from django.urls import path

from webapp.attempts import views

app_name = "attempts"
urlpatterns = [
    path("submit/<int:exercise_pk>/", views.submit_attempt, name="submit"),
    path("review/", views.review_queue, name="review"),
    path("suggestions/<int:pk>/review/", views.review_suggestion, name="review_suggestion"),
    path("<int:pk>/", views.attempt_detail, name="detail"),
    path("<int:pk>/live/", views.attempt_live, name="live"),
]
