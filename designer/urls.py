from django.contrib import admin
from django.urls import path

from designer import views

urlpatterns = [
    path("", views.home, name="home"),
    path("examples/<slug:slug>/", views.example_detail, name="example-detail"),
    path("health/", views.health, name="health"),
    path("admin/", admin.site.urls),
]
