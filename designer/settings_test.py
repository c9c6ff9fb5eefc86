"""Test settings: the base settings with a test secret key; services come from the environment."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")

from designer.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
