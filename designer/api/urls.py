from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from designer import tool_views
from designer.api import views
from designer.api.calibrations import CalibrationViewSet
from designer.api.catalog import PartViewSet, PriceBookViewSet, PriceViewSet, QuoteViewSet
from designer.api.searches import SearchViewSet
from designer.api.simulations import SimulationViewSet
from designer.api.sweeps import SweepViewSet

# the schema is the document, not an operation of it (its ?lang=/?format= are drf-spectacular's)
SchemaView = extend_schema_view(get=extend_schema(exclude=True))(type("SchemaView", (SpectacularAPIView,), {}))

# no format-suffix routes (designs.json, sweeps/3.json): the views take no format argument (a 500 each) and the API
# speaks JSON only; such a path is a JSON 404 like any unknown one
router = DefaultRouter()
router.include_format_suffixes = False
router.register("designs", views.DesignViewSet, basename="api-design")
router.register("parts", PartViewSet, basename="api-part")
router.register("price-books", PriceBookViewSet, basename="api-price-book")
router.register("prices", PriceViewSet, basename="api-price")
router.register("quotes", QuoteViewSet, basename="api-quote")
router.register("sweeps", SweepViewSet, basename="api-sweep")
router.register("calibrations", CalibrationViewSet, basename="api-calibration")
router.register("simulations", SimulationViewSet, basename="api-simulation")
router.register("searches", SearchViewSet, basename="api-search")

urlpatterns = [
    path("evaluate/", views.evaluate_view, name="api-evaluate"),
    *(path(f"tools/{name}/", view, name=f"api-tool-{name}") for name, view in tool_views.TOOL_API_VIEWS.items()),
    path("compare/", views.compare_view, name="api-compare"),
    path("compare/bom-diff.xlsx", views.compare_bom_diff_view, name="api-compare-bom-diff"),
    path("designs/<int:pk>/<str:fmt>", views.export_view, name="api-export"),
    path("exports/<int:pk>/", views.export_job_view, name="api-export-job"),
    path("exports/<int:pk>/download", views.export_job_download_view, name="api-export-job-download"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    # Swagger UI with its start-up script served as a file (?script=), so the page needs no inline script
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    *router.urls,
]
