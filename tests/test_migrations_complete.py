"""Every model change has its migration: the CS duplex connector (catalog 3) reached the model's choices without
one, which a database migrated from the files would not know of. `makemigrations --check` finds such drift."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # SystemExit(1) where one is missing
