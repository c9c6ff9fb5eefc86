"""Login lockout: after LOGIN_MAX_FAILURES wrong passwords for a user name (or from one address)
within LOGIN_LOCKOUT_S, further attempts are refused until the window has passed — even with
the right password. Failures are rows in the database, so every web process sees them."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.db.models import Q
from django.utils import timezone

from designer.models import LoginFailure


def client_ip(request) -> str:
    """The peer address (behind a proxy set USE_X_FORWARDED_FOR=1 to take the first forwarded address)."""
    if settings.USE_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()[:64]
    return request.META.get("REMOTE_ADDR", "")[:64]


def locked_out(username: str, ip: str) -> bool:
    since = timezone.now() - timedelta(seconds=settings.LOGIN_LOCKOUT_S)
    recent = LoginFailure.objects.filter(at__gte=since)
    by_user = recent.filter(username__iexact=username).count() if username else 0
    by_ip = recent.filter(ip=ip).count() if ip else 0
    return max(by_user, by_ip // 4) >= settings.LOGIN_MAX_FAILURES  # an address may try a few user names


class LockoutLoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        username = (request.POST.get("username") or "")[:150]
        if locked_out(username, client_ip(request)):
            form = self.get_form()
            form.is_valid()  # bind, but refuse whatever it says
            form.errors.clear()
            minutes = max(1, settings.LOGIN_LOCKOUT_S // 60)
            form.add_error(None, f"Too many failed sign-ins: try again in {minutes} minutes.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        username = (self.request.POST.get("username") or "")[:150]
        LoginFailure.objects.create(username=username, ip=client_ip(self.request))
        return super().form_invalid(form)

    def form_valid(self, form):
        LoginFailure.objects.filter(Q(username__iexact=form.get_user().get_username())).delete()
        return super().form_valid(form)
