from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from designer import (
    calibration_views,
    failure_views,
    quote_views,
    search_views,
    simulation_views,
    sweep_views,
    tool_views,
    views,
)
from designer.lockout import LockoutLoginView, admin_login

admin.site.login = admin_login(admin.site)  # the admin's sign-in shares the lockout (before its urls)

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", LockoutLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/tokens/", views.tokens, name="tokens"),
    path("designs/", views.design_list, name="design-list"),
    path("designs/new/", views.design_new, name="design-new"),
    path("designs/trash/", views.trash, name="design-trash"),
    path("designs/<int:pk>/", views.design_detail, name="design-detail"),
    path("designs/<int:pk>/reprice/", quote_views.design_reprice, name="design-reprice"),
    path("designs/<int:pk>/failures/", failure_views.design_failures, name="design-failures"),
    path("catalog/quotes/new/", quote_views.quote_new, name="quote-new"),
    path("catalog/quotes/<int:pk>/", quote_views.quote_detail, name="quote-detail"),
    path("designs/<int:pk>/r/<int:number>/", views.design_detail, name="revision-detail"),
    path("designs/<int:pk>/edit/", views.design_edit, name="design-edit"),
    path("designs/<int:pk>/history/", views.design_history, name="design-history"),
    path("designs/<int:pk>/clone/", views.design_clone, name="design-clone"),
    path("designs/<int:pk>/delete/", views.design_delete, name="design-delete"),
    path("designs/<int:pk>/restore/", views.design_restore, name="design-restore"),
    path("designs/<int:pk>/share/", views.design_share, name="design-share"),
    path("designs/<int:pk>/export/<str:fmt>", views.design_export, name="design-export"),
    path("s/<str:token>/export/<str:fmt>", views.shared_export, name="shared-export"),
    path("exports/<int:pk>/", views.export_job, name="export-job"),
    path("exports/<int:pk>/progress.json", views.export_job_progress, name="export-job-progress"),
    path("exports/<int:pk>/download", views.export_job_download, name="export-job-download"),
    path("s/<str:token>/exports/<int:pk>/", views.shared_export_job, name="shared-export-job"),
    path(
        "s/<str:token>/exports/<int:pk>/progress.json",
        views.shared_export_job_progress,
        name="shared-export-job-progress",
    ),
    path(
        "s/<str:token>/exports/<int:pk>/download", views.shared_export_job_download, name="shared-export-job-download"
    ),
    path("compare/", views.compare, name="compare"),
    path("compare/bom-diff.xlsx", views.compare_bom_diff, name="compare-bom-diff"),
    path("designs/<int:pk>/sweeps/new/", sweep_views.sweep_new, name="sweep-new"),
    path("designs/<int:pk>/sweeps/size.json", sweep_views.sweep_size_json, name="sweep-size"),
    path("sweeps/<int:pk>/", sweep_views.sweep_detail, name="sweep-detail"),
    path("sweeps/<int:pk>/progress.json", sweep_views.sweep_progress_json, name="sweep-progress"),
    path("sweeps/<int:pk>/cancel/", sweep_views.sweep_cancel, name="sweep-cancel"),
    path("sweeps/<int:pk>/rerun/", sweep_views.sweep_rerun, name="sweep-rerun"),
    path("sweeps/<int:pk>/points.<str:fmt>", sweep_views.sweep_download, name="sweep-download"),
    path("designs/<int:pk>/searches/new/", search_views.search_new, name="search-new"),
    path("searches/<int:pk>/", search_views.search_detail, name="search-detail"),
    path("searches/<int:pk>/progress.json", search_views.search_progress_json, name="search-progress"),
    path("searches/<int:pk>/cancel/", search_views.search_cancel, name="search-cancel"),
    path("searches/<int:pk>/rerun/", search_views.search_rerun, name="search-rerun"),
    path("searches/<int:pk>/save/", search_views.search_save, name="search-save"),
    path("searches/<int:pk>/compare/", search_views.search_compare, name="search-compare"),
    path("searches/<int:pk>/rows.<str:fmt>", search_views.search_download, name="search-download"),
    path("designs/<int:pk>/calibrations/new/", calibration_views.calibration_new, name="calibration-new"),
    path("calibrations/<int:pk>/", calibration_views.calibration_detail, name="calibration-detail"),
    path("calibrations/<int:pk>/log.txt", calibration_views.calibration_log, name="calibration-log"),
    path("calibrations/<int:pk>/delete/", calibration_views.calibration_delete, name="calibration-delete"),
    path("designs/<int:pk>/simulations/", simulation_views.simulation_new, name="simulation-new"),
    path("simulations/compare/", simulation_views.simulation_compare, name="simulation-compare"),
    path("simulations/<int:pk>/", simulation_views.simulation_detail, name="simulation-detail"),
    path("simulations/<int:pk>/progress.json", simulation_views.simulation_progress_json, name="simulation-progress"),
    path("simulations/<int:pk>/result.json", simulation_views.simulation_result_json, name="simulation-result"),
    path("simulations/<int:pk>/cancel/", simulation_views.simulation_cancel, name="simulation-cancel"),
    path("s/<str:token>/", views.shared_detail, name="shared-detail"),
    path("tools/", tool_views.tools, name="tools"),
    path("health/", views.health, name="health"),
    path("api/v1/", include("designer.api.urls")),
    path("admin/", admin.site.urls),
]

handler404 = "designer.views.not_found"
