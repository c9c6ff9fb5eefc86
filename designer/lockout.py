"""Login lockout, shared by the web sign-in (/accounts/login/) and the admin's (/admin/login/).

Two separate limits within LOGIN_LOCKOUT_S, each a count of wrong passwords stored as rows (so
every web process sees them):

- LOGIN_MAX_FAILURES for one user name, from any address: that user name is locked (the right
  password included) wherever it is tried;
- LOGIN_MAX_FAILURES_PER_IP from one client address: that address may not try any user name, but
  users signing in from other addresses are not affected.

The client address is REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT proxies the entry of
X-Forwarded-For that the outermost trusted proxy appended (never the client-written leftmost one).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth import views as auth_views
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from designer.models import LoginFailure


def client_ip(request) -> str:
    """The client's address as the trusted proxies saw it.

    TRUSTED_PROXY_COUNT = 0: REMOTE_ADDR (X-Forwarded-For is ignored: anyone can write it).
    N ≥ 1: each trusted proxy appends the address it received from, so the Nth entry from the
    right is what the outermost trusted proxy saw; entries left of it are the client's own text.
    A header shorter than N (the request skipped outer proxies) gives its leftmost entry, which a
    trusted proxy still wrote; no header at all gives REMOTE_ADDR."""
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
        if hops:
            return hops[-min(proxies, len(hops))][:64]
    return request.META.get("REMOTE_ADDR", "")[:64]


def _failures_since(**where) -> int:
    since = timezone.now() - timedelta(seconds=settings.LOGIN_LOCKOUT_S)
    return LoginFailure.objects.filter(at__gte=since, **where).count()


def user_locked(username: str) -> bool:
    return bool(username) and _failures_since(username__iexact=username) >= settings.LOGIN_MAX_FAILURES


def address_blocked(ip: str) -> bool:
    return bool(ip) and _failures_since(ip=ip) >= settings.LOGIN_MAX_FAILURES_PER_IP


def locked_out(username: str, ip: str) -> bool:
    """Refuse this attempt: the user name is locked, or this address has sprayed too many."""
    return user_locked(username) or address_blocked(ip)


class LockoutLoginView(auth_views.LoginView):
    """Django's LoginView with the lockout; the admin's sign-in uses it too (``admin_login``)."""

    def post(self, request, *args, **kwargs):
        username = (request.POST.get("username") or "")[:150]
        if locked_out(username, client_ip(request)):
            form = self.get_form()
            form.is_valid()  # bind, but refuse whatever it says (no password is checked)
            form.errors.clear()
            minutes = max(1, settings.LOGIN_LOCKOUT_S // 60)
            form.add_error(None, f"Too many failed sign-ins: try again in {minutes} minutes.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        # a right password refused only for another reason (the admin's "staff only") is no guess
        if form.get_user() is None:
            username = (self.request.POST.get("username") or "")[:150]
            LoginFailure.objects.create(username=username, ip=client_ip(self.request))
        return super().form_invalid(form)

    def form_valid(self, form):
        # the user name's failures go; the address's stay (a valid account must not reset a spray)
        LoginFailure.objects.filter(username__iexact=form.get_user().get_username()).delete()
        return super().form_valid(form)


def admin_login(site):
    """``site.login`` with the lockout: AdminSite.login (Django 5.2) with LockoutLoginView for
    LoginView. Install with ``admin.site.login = admin_login(admin.site)`` before its urls."""

    @never_cache
    def login(request, extra_context=None):
        if request.method == "GET" and site.has_permission(request):
            return HttpResponseRedirect(reverse("admin:index", current_app=site.name))
        from django.contrib.admin.forms import AdminAuthenticationForm

        context = {
            **site.each_context(request),
            "title": _("Log in"),
            "subtitle": None,
            "app_path": request.get_full_path(),
            "username": request.user.get_username(),
        }
        if REDIRECT_FIELD_NAME not in request.GET and REDIRECT_FIELD_NAME not in request.POST:
            context[REDIRECT_FIELD_NAME] = reverse("admin:index", current_app=site.name)
        context.update(extra_context or {})
        request.current_app = site.name
        return LockoutLoginView.as_view(
            extra_context=context,
            authentication_form=site.login_form or AdminAuthenticationForm,
            template_name=site.login_template or "admin/login.html",
        )(request)

    return login
