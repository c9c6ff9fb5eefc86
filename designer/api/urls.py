from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from designer.api import views

router = DefaultRouter()
router.register("designs", views.DesignViewSet, basename="api-design")

urlpatterns = [
    path("evaluate/", views.evaluate_view, name="api-evaluate"),
    path("compare/", views.compare_view, name="api-compare"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    *router.urls,
]
