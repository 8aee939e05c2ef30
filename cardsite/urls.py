from django.contrib import admin
from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("games/<slug:slug>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("admin/", admin.site.urls),
]
