"""`cluster-designer design …` (`python manage.py design …`) — saved designs from the shell, with the app's rules.

    design list    --user U [--search TEXT]
    design show    --user U ID [--revision N] [--format json|table]
    design save    --user U FILE.yaml [--id ID] [--message TEXT]   (new design, or a new revision of ID)
    design history --user U ID
    design compare --user U ID[:REV] ID[:REV] [...]                 (2–4; differences only)
    design clone | delete | restore --user U ID

Requirements files go through the same validation as the form and the API; a design the
user may not see is reported as not found.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404
from django.utils import timezone

from cluster.render import result_table
from designer.access import owned_design, visible_design
from designer.compare import comparison_rows
from designer.models import Design
from designer.requirements import RequirementsError
from designer.services import clone_design, create_design, evaluate, load_requirements_file, revise


class Command(BaseCommand):
    help = "List, show, save, compare, clone, delete and restore saved designs."

    def add_arguments(self, parser):
        parser.add_argument(
            "action", choices=["list", "show", "save", "history", "compare", "clone", "delete", "restore"]
        )
        parser.add_argument("targets", nargs="*")
        parser.add_argument("--user", required=True, help="act as this user")
        parser.add_argument("--id", type=int, help="save: add a revision to this design")
        parser.add_argument("--revision", type=int)
        parser.add_argument("--message", default="")
        parser.add_argument("--search", default="")
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *_, action, targets, user, **opts):
        try:
            self.user = get_user_model().objects.get(username=user)
        except get_user_model().DoesNotExist:
            raise CommandError(f"--user: no user named {user!r}") from None
        try:
            getattr(self, f"do_{action}")(targets, opts)
        except Http404:
            raise CommandError("design not found (or not yours to see)") from None
        except RequirementsError as exc:
            lines = ["invalid requirements"] + [f"  {k}: {' '.join(v)}" for k, v in exc.errors.items()]
            raise CommandError("\n".join(lines)) from None

    def _id(self, args, n=1) -> list[int]:
        if len(args) != n or not all(a.isdigit() for a in args):
            raise CommandError(f"give {n} design id(s)")
        return [int(a) for a in args]

    def do_list(self, args, opts):
        qs = Design.objects.visible_to(self.user).with_head().order_by("-updated_at")
        if opts["search"]:
            qs = qs.filter(head_name__icontains=opts["search"])
        for d in qs:
            mine = "" if d.owner_id == self.user.id else f"  (shared by {d.owner.username})"
            self.stdout.write(f"{d.pk:>6}  r{d.head_number:<3} {d.head_gpu_count:>8,} GPUs  {d.head_name}{mine}")

    def do_show(self, args, opts):
        (pk,) = self._id(args)
        design = visible_design(self.user, pk)
        rev = design.revisions.filter(number=opts["revision"]).first() if opts["revision"] else design.head
        if rev is None:
            raise CommandError(f"--revision: design {pk} has no revision {opts['revision']}")
        if opts["format"] == "json":
            self.stdout.write(json.dumps(rev.results, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(
                f"design {pk} revision {rev.number} by {rev.author.username} at {rev.created_at:%Y-%m-%d %H:%M}"
            )
            self.stdout.write(result_table(rev.results))

    def do_save(self, args, opts):
        if len(args) != 1:
            raise CommandError("give one requirements file")
        ev = evaluate(load_requirements_file(Path(args[0])))
        if opts["id"]:
            design = owned_design(self.user, opts["id"])
            rev, created = revise(design, self.user, ev.requirements, ev, message=opts["message"])
            if not created:
                self.stdout.write(f"nothing changed: design {design.pk} stays at revision {rev.number}")
                return
        else:
            design = create_design(self.user, ev.requirements, ev, message=opts["message"] or "created")
            rev = design.head
        self.stdout.write(f"saved design {design.pk} revision {rev.number}")

    def do_history(self, args, opts):
        (pk,) = self._id(args)
        for r in visible_design(self.user, pk).revisions.select_related("author").order_by("-number"):
            self.stdout.write(f"r{r.number:<4} {r.created_at:%Y-%m-%d %H:%M}  {r.author.username:<12} {r.message}")

    def do_compare(self, args, opts):
        if not 2 <= len(args) <= 4:
            raise CommandError("give 2 to 4 designs as ID or ID:REVISION")
        revs = []
        for a in args:
            pk, _, num = a.partition(":")
            if not pk.isdigit() or (num and not num.isdigit()):
                raise CommandError(f"{a!r}: write ID or ID:REVISION")
            design = visible_design(self.user, int(pk))
            rev = design.revisions.filter(number=int(num)).first() if num else design.head
            if rev is None:
                raise CommandError(f"{a!r}: no such revision")
            revs.append(rev)
        for row in comparison_rows(revs):
            if row.differs:
                cells = "  |  ".join(
                    str(c.value) + (f" ({c.delta_pct:+.1f} %)" if c.delta_pct else "") for c in row.cells
                )
                self.stdout.write(f"{row.key}: {cells}")

    def do_clone(self, args, opts):
        (pk,) = self._id(args)
        copy = clone_design(visible_design(self.user, pk), self.user)
        self.stdout.write(f"cloned into design {copy.pk}")

    def do_delete(self, args, opts):
        (pk,) = self._id(args)
        Design.objects.filter(pk=owned_design(self.user, pk).pk).update(deleted_at=timezone.now())
        self.stdout.write(f"design {pk} moved to the trash (restore with: design restore {pk})")

    def do_restore(self, args, opts):
        (pk,) = self._id(args)
        Design.objects.filter(pk=owned_design(self.user, pk, include_deleted=True).pk).update(deleted_at=None)
        self.stdout.write(f"design {pk} restored")
