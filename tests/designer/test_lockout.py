"""Issue #32: a login lockout that holds (the admin shares it, a forged X-Forwarded-For does not
move it) and cannot be turned against other users (per user name and per address, apart)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory, override_settings

from designer.env import env_trusted_proxy_count
from designer.lockout import client_ip
from designer.models import LoginFailure

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.1"  # the trusted reverse proxy every request below comes through


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("sam", password="pw-sam-12345", is_staff=True, is_superuser=True)


def sign_in(path: str, username: str, password: str, client: Client | None = None, **meta) -> int:
    return (client or Client()).post(path, {"username": username, "password": password}, **meta).status_code


def test_six_wrong_passwords_at_the_admin_lock_both_sign_ins(staff):
    c = Client()
    for _ in range(5):
        assert sign_in("/admin/login/", "sam", "wrong", c) == 200
    r = c.post("/admin/login/", {"username": "sam", "password": "wrong"})
    assert r.status_code == 429 and "Too many failed sign-ins" in r.content.decode()
    assert sign_in("/admin/login/", "sam", "pw-sam-12345", c) == 429
    assert sign_in("/accounts/login/", "sam", "pw-sam-12345", c) == 429
    assert "_auth_user_id" not in c.session
    assert c.get("/admin/").status_code == 302  # still signed out


def test_a_user_locked_at_the_web_sign_in_cannot_walk_round_through_the_admin(staff):
    for _ in range(5):
        assert sign_in("/accounts/login/", "sam", "wrong") == 200
    c = Client()
    assert sign_in("/admin/login/", "sam", "pw-sam-12345", c) == 429
    assert "_auth_user_id" not in c.session


def test_the_admin_still_signs_staff_in_and_a_right_non_staff_password_is_no_failure(staff, alice):
    c = Client()
    assert sign_in("/admin/login/", "sam", "pw-sam-12345", c) == 302
    assert c.get("/admin/").status_code == 200
    for _ in range(6):  # alice's right password, refused only because she is not staff
        assert sign_in("/admin/login/", "alice", "pw-alice-123") == 200
    assert not LoginFailure.objects.filter(username="alice").exists()
    assert sign_in("/accounts/login/", "alice", "pw-alice-123") == 302


@override_settings(TRUSTED_PROXY_COUNT=1, LOGIN_MAX_FAILURES_PER_IP=20)
def test_spraying_user_names_with_forged_forwarded_for_is_blocked_by_the_proxy_seen_address(alice):
    codes = []
    for i in range(40):
        # the client writes any leftmost entries it likes; the proxy appends the address it saw
        forged = f"198.51.{i}.{i}, 192.0.2.{i}"
        codes.append(
            sign_in(
                "/accounts/login/",
                f"user{i}",
                "guess",
                REMOTE_ADDR=PROXY,
                HTTP_X_FORWARDED_FOR=f"{forged}, 203.0.113.7",
            )
        )
    assert codes == [200] * 20 + [429] * 20
    assert set(LoginFailure.objects.values_list("ip", flat=True)) == {"203.0.113.7"}
    # another client behind the same proxy is not that address: alice signs in
    assert (
        sign_in("/accounts/login/", "alice", "pw-alice-123", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="192.0.2.50")
        == 302
    )


@override_settings(LOGIN_MAX_FAILURES_PER_IP=10)
def test_failures_from_one_address_do_not_lock_users_at_other_addresses(alice, bob):
    attacker = {"REMOTE_ADDR": "203.0.113.9"}
    for i in range(10):  # four of them against alice: under her own limit of five
        assert sign_in("/accounts/login/", "alice" if i < 4 else f"user{i}", "guess", **attacker) == 200
    assert sign_in("/accounts/login/", "nobody", "guess", **attacker) == 429  # the address is blocked
    assert sign_in("/admin/login/", "nobody", "guess", **attacker) == 429  # on the admin too
    assert sign_in("/accounts/login/", "bob", "pw-bob-123", **attacker) == 429  # anyone at that address
    assert LoginFailure.objects.count() == 10  # refused attempts check no password and count nothing
    assert sign_in("/accounts/login/", "alice", "pw-alice-123", REMOTE_ADDR="192.0.2.1") == 302
    assert sign_in("/accounts/login/", "bob", "pw-bob-123", REMOTE_ADDR="192.0.2.2") == 302


def test_a_user_name_locks_from_any_address(alice):
    for i in range(5):
        assert sign_in("/accounts/login/", "ALICE", "guess", REMOTE_ADDR=f"203.0.113.{i}") == 200
    assert sign_in("/accounts/login/", "alice", "pw-alice-123", REMOTE_ADDR="192.0.2.1") == 429


def test_a_successful_sign_in_does_not_reset_its_address_count(alice):
    with override_settings(LOGIN_MAX_FAILURES_PER_IP=3):
        for i in range(2):
            assert sign_in("/accounts/login/", f"user{i}", "guess") == 200
        assert sign_in("/accounts/login/", "alice", "pw-alice-123") == 302
        assert sign_in("/accounts/login/", "user9", "guess") == 200
        assert sign_in("/accounts/login/", "user10", "guess") == 429


@override_settings(TRUSTED_PROXY_COUNT=0)
def test_no_trusted_proxy_ignores_forwarded_for_entirely(alice):
    codes = [
        sign_in("/accounts/login/", f"user{i}", "guess", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")
        for i in range(21)
    ]
    assert codes == [200] * 20 + [429]
    assert set(LoginFailure.objects.values_list("ip", flat=True)) == {"203.0.113.5"}


@pytest.mark.parametrize(
    "proxies, header, expected",
    [
        (0, "1.1.1.1, 2.2.2.2", "9.9.9.9"),  # no proxy: the header is the client's own text
        (1, "1.1.1.1, 2.2.2.2", "2.2.2.2"),  # one proxy: what it appended
        (2, "1.1.1.1, 2.2.2.2, 3.3.3.3", "2.2.2.2"),  # two: what the outer one appended
        (2, " 3.3.3.3 ", "3.3.3.3"),  # fewer entries than proxies: the leftmost (a proxy wrote it)
        (1, "", "9.9.9.9"),  # no header: the peer
        (1, " , ", "9.9.9.9"),
    ],
)
def test_client_ip_is_the_rightmost_minus_trusted_proxies(proxies, header, expected):
    request = RequestFactory().get("/", REMOTE_ADDR="9.9.9.9", HTTP_X_FORWARDED_FOR=header)
    with override_settings(TRUSTED_PROXY_COUNT=proxies):
        assert client_ip(request) == expected


def test_trusted_proxy_count_from_the_environment(monkeypatch):
    monkeypatch.delenv("USE_X_FORWARDED_FOR", raising=False)
    monkeypatch.delenv("TRUSTED_PROXY_COUNT", raising=False)
    assert env_trusted_proxy_count() == 0
    monkeypatch.setenv("TRUSTED_PROXY_COUNT", "2")
    assert env_trusted_proxy_count() == 2
    monkeypatch.setenv("TRUSTED_PROXY_COUNT", "-1")
    with pytest.raises(ImproperlyConfigured, match="≥ 0"):
        env_trusted_proxy_count()
    monkeypatch.setenv("USE_X_FORWARDED_FOR", "1")  # the retired switch and its successor together
    with pytest.raises(ImproperlyConfigured, match="set only TRUSTED_PROXY_COUNT"):
        env_trusted_proxy_count()
    monkeypatch.delenv("TRUSTED_PROXY_COUNT")
    assert env_trusted_proxy_count() == 1  # the old "behind a proxy" switch: one proxy
    monkeypatch.setenv("USE_X_FORWARDED_FOR", "0")
    assert env_trusted_proxy_count() == 0


def test_a_token_records_its_use_once_a_minute(alice):
    """last_used_at is written when the token was last seen a minute or more ago, not on every request (a write
    per API call serialised the load test's requests on SQLite's one writer)."""
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    from designer.models import ApiToken

    token, key = ApiToken.issue(alice, "t", timezone.now() + timedelta(days=1))
    c = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert c.get("/api/v1/designs/").status_code == 200
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    assert c.get("/api/v1/designs/").status_code == 200
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(seconds=61))
    assert c.get("/api/v1/designs/").status_code == 200
    assert ApiToken.objects.get(pk=token.pk).last_used_at > first - timedelta(seconds=1)
