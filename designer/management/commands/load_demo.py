"""`cluster-designer load-demo` (`python manage.py load_demo`) — a demo user and the examples, shared by link.

Idempotent: designs already there (by name) are left alone. The demo user's password is
set only when given (``--password``) or in DEBUG, where it defaults to "demo".
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from designer.models import DEMO_USERNAME, Design
from designer.requirements import RequirementsError
from designer.services import create_design, evaluate, load_requirements_file, revise


class Command(BaseCommand):
    help = "Create the demo user and load examples/*.yaml as demo designs shared by link."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=None)
        parser.add_argument("--examples", type=Path, default=Path(settings.EXAMPLES_DIR))

    def handle(self, *args, password, examples: Path, **options):
        from bom.models import load_default_catalog

        added = load_default_catalog()
        if added:
            self.stdout.write(f"catalog: {added} default part(s) added")
        User = get_user_model()
        user, created = User.objects.get_or_create(username=DEMO_USERNAME)
        if password or (created and settings.DEBUG):
            user.set_password(password or "demo")
            user.save()
        elif created:
            user.set_unusable_password()
            user.save()
        existing = {d.head.name: d for d in Design.objects.filter(owner=user).with_head() if d.head is not None}
        loaded = updated = 0
        for path in sorted(examples.glob("*.yaml")):
            try:
                ev = evaluate(load_requirements_file(path))
            except RequirementsError as exc:
                raise CommandError(f"{path.name}: {exc}") from None
            name = ev.requirements["name"]
            if name in existing:  # an example changed since it was loaded: its demo gets a new revision
                _, created = revise(existing[name], user, ev.requirements, ev, message=f"demo updated from {path.name}")
                updated += created
                continue
            design = create_design(user, ev.requirements, ev, message=f"demo from {path.name}")
            design.enable_link_sharing()
            loaded += 1
        self.stdout.write(
            f"demo user '{DEMO_USERNAME}': {loaded} design(s) loaded, {len(existing)} already there"
            f" ({updated} updated from a changed example)"
        )
