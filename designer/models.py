"""Designs, their immutable revisions (requirements + results), and API tokens.

The requirement fields are declared once, in cluster/requirements.py (unit in the name,
default, range, help text); the abstract :class:`Requirements` model builds one column per
field from those declarations, and cluster/validate.py is the one validation path for the
form, the API and the CLI.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from cluster.fields import FieldSpec
from cluster.requirements import FIELDS


def _range(minimum, maximum) -> list:
    """Validators whose message says what is allowed, not only what is wrong."""
    allowed = f"allowed: {minimum:,g} to {maximum:,g}"
    return [
        MinValueValidator(minimum, message=f"%(show_value)s is too small; {allowed}"),
        MaxValueValidator(maximum, message=f"%(show_value)s is too large; {allowed}"),
    ]


def model_field(spec: FieldSpec) -> models.Field:
    """The column that stores one requirement field, from its one declaration in cluster/requirements.py."""
    optional = {"null": True, "blank": True} if spec.nullable else {"default": spec.default}
    if spec.kind == "int":
        if spec.small:
            return models.PositiveSmallIntegerField(help_text=spec.help, choices=list(spec.choices), **optional)
        return models.PositiveIntegerField(
            help_text=spec.help, validators=_range(spec.minimum, spec.maximum), **optional
        )
    if spec.kind == "real":
        return models.FloatField(help_text=spec.help, validators=_range(spec.minimum, spec.maximum), **optional)
    if spec.kind == "money":
        return models.DecimalField(
            max_digits=18,
            decimal_places=spec.decimal_places,
            help_text=spec.help,
            validators=_range(spec.minimum, spec.maximum),
            **optional,
        )
    if spec.kind == "bool":
        return models.BooleanField(default=spec.default, help_text=spec.help)
    if spec.kind == "longtext":
        return models.TextField(blank=True, default=spec.default, help_text=spec.help)
    kw: dict = {"max_length": spec.max_length, "default": spec.default, "help_text": spec.help}
    if spec.blank:
        kw["blank"] = True
    if spec.choices:
        kw["choices"] = list(spec.choices)
    if spec.pattern:
        kw["validators"] = [RegexValidator(spec.pattern, spec.pattern_message)]
    return models.CharField(**kw)


Requirements = type(
    "Requirements",
    (models.Model,),
    {
        "__module__": __name__,
        "__doc__": "Every input of the pipeline, one column per field of cluster.requirements.",
        "Meta": type("Meta", (), {"abstract": True}),
        **{f.flat: model_field(f.spec) for f in FIELDS},
    },
)


REQUIREMENT_FIELDS: tuple[str, ...] = tuple(f.name for f in Requirements._meta.local_fields)


DEMO_USERNAME = "demo"


class DesignQuerySet(models.QuerySet):
    def alive(self):
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user):
        """Designs a user may read: their own and those shared with them (not deleted)."""
        if not user.is_authenticated:
            return self.none()
        return self.alive().filter(Q(owner=user) | Q(shared_with=user)).distinct()

    def demos(self):
        """The demo designs (owned by the demo user): readable and clonable by every signed-in user."""
        return self.alive().filter(owner__username=DEMO_USERNAME)

    def readable_by(self, user):
        """What a signed-in user may open: visible_to, plus the demos."""
        if not user.is_authenticated:
            return self.none()
        return self.alive().filter(Q(owner=user) | Q(shared_with=user) | Q(owner__username=DEMO_USERNAME)).distinct()

    def owned_by(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(owner=user)

    def with_head(self):
        """Annotate the latest revision's id, name, GPU count and topology (for lists)."""
        latest = DesignRevision.objects.filter(design=OuterRef("pk")).order_by("-number")
        return self.annotate(
            head_id=Subquery(latest.values("id")[:1]),
            head_name=Subquery(latest.values("name")[:1]),
            head_gpu_count=Subquery(latest.values("gpu_count")[:1]),
            head_topology=Subquery(latest.values("topology")[:1]),
            head_number=Subquery(latest.values("number")[:1]),
        )


class Design(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="designs")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)
    shared_with = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="shared_designs")
    share_token = models.CharField(max_length=64, null=True, blank=True, unique=True)
    phases = models.JSONField(
        default=list,
        blank=True,
        help_text="Phased build-out (cluster/phases.py): [{name, date, size, unit}], unit 'su' or 'gpu'",
    )

    objects = DesignQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        head = self.head
        return head.name if head else f"Design {self.pk}"

    @property
    def head(self) -> DesignRevision | None:
        return self.revisions.order_by("-number").first()

    def can_edit(self, user) -> bool:
        return user.is_authenticated and self.owner_id == user.id and self.deleted_at is None

    def enable_link_sharing(self) -> str:
        if not self.share_token:
            self.share_token = secrets.token_urlsafe(24)
            self.save(update_fields=["share_token"])
        return self.share_token


class DesignRevision(Requirements):
    """One saved state of a design: its inputs and computed results. Never changed after save."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    results = models.JSONField()
    message = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["design", "-number"]
        constraints = [models.UniqueConstraint(fields=["design", "number"], name="unique_revision_number")]

    def __str__(self) -> str:
        return f"{self.name} r{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ValidationError("design revisions are immutable; save a new revision instead")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError("design revisions are immutable; delete the design instead")

    def requirements(self) -> dict:
        return {name: getattr(self, name) for name in REQUIREMENT_FIELDS}


def hash_token(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A personal API token: stored hashed, shown once, with expiry and a read-only option."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, unique=True)
    key_hash = models.CharField(max_length=64)
    read_only = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user, name: str, expires_at, read_only: bool = False) -> tuple[ApiToken, str]:
        prefix = secrets.token_hex(4)
        key = f"cd_{prefix}_{secrets.token_urlsafe(32)}"
        token = cls.objects.create(
            user=user,
            name=name,
            prefix=prefix,
            key_hash=hash_token(key),
            expires_at=expires_at,
            read_only=read_only,
        )
        return token, key

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class Sweep(models.Model):
    """A background NCCL cost sweep. The database, not the broker, is the source of truth."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sweeps")
    design = models.ForeignKey(Design, null=True, blank=True, on_delete=models.SET_NULL, related_name="sweeps")
    revision = models.ForeignKey(DesignRevision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    spec = models.JSONField(help_text="what the user asked for (vary, collectives, sizes, algorithms)")
    grid = models.JSONField(help_text="the resolved grid: fabrics × collectives × sizes × algorithms")
    fabric_labels = models.JSONField(default=list, help_text="each variant as built (e.g. 3.92308:1 end to end)")
    variants = models.JSONField(default=list, help_text="each variant's varied parameters as asked (e.g. 4:1)")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    total_points = models.PositiveBigIntegerField(default=0)
    done_points = models.PositiveBigIntegerField(default=0)
    chunk_points = models.PositiveIntegerField(default=20000)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class SweepChunk(models.Model):
    Status = Sweep.Status

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    start = models.PositiveBigIntegerField()
    stop = models.PositiveBigIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["sweep", "number"]
        constraints = [models.UniqueConstraint(fields=["sweep", "number"], name="unique_chunk_number")]
        indexes = [models.Index(fields=["sweep", "status"])]

    @property
    def size(self) -> int:
        return self.stop - self.start


class SweepChunkResult(models.Model):
    """One chunk's computed points, column-wise in one compressed blob (topology.sweep.pack_chunk).

    One row per chunk, written by an upsert on the chunk: a chunk run twice (a slow worker and
    its replacement) overwrites the same row with the same numbers, so no point is lost or
    duplicated. The grid coordinates of a point follow from its index and are not stored."""

    chunk = models.OneToOneField(SweepChunk, on_delete=models.CASCADE, related_name="result")
    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="results")
    start = models.PositiveBigIntegerField()
    stop = models.PositiveBigIntegerField()
    data = models.BinaryField()
    stored_bytes = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["sweep", "start"])]

    @property
    def size(self) -> int:
        return self.stop - self.start


class CalibrationProfile(models.Model):
    """The collective model fitted to an nccl-tests log of a design's cluster (cluster/calibrate.py).

    The log itself is kept (with its SHA-256) so the fit can be audited and redone."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calibrations")
    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="calibrations")
    revision = models.ForeignKey(DesignRevision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    collective = models.CharField(max_length=20)
    column = models.CharField(max_length=20, default="out_of_place")
    log_text = models.TextField()
    log_filename = models.CharField(max_length=255, blank=True, default="")
    log_sha256 = models.CharField(max_length=64)
    parameters = models.JSONField(help_text="bw_efficiency, latency_offset_us, simple_latency_offset_us")
    result = models.JSONField(help_text="rows measured vs model vs calibrated, fit errors, provenance")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["owner", "design", "name"], name="unique_calibration_name")]

    def __str__(self) -> str:
        return self.name


class SimulationRun(models.Model):
    """A background run of a design revision's workload (cluster/simulation.py): one simulation, or a
    capacity search over sizes. The database holds its state and progress; a Celery task computes it."""

    class Kind(models.TextChoices):
        SIMULATE = "simulate"
        CAPACITY = "capacity"

    Status = Sweep.Status

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="simulations")
    design = models.ForeignKey(Design, null=True, blank=True, on_delete=models.SET_NULL, related_name="simulations")
    revision = models.ForeignKey(DesignRevision, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.SIMULATE)
    params = models.JSONField(default=dict, help_text="capacity target and sizes; trace format and file name")
    requirements = models.JSONField(default=dict, help_text="the revision's requirements (flat) as simulated")
    trace_text = models.TextField(blank=True, default="", help_text="a job trace replayed instead of the workload")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    progress_frac = models.FloatField(default=0.0)
    attempts = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return self.name


class LoginFailure(models.Model):
    """A wrong password at the web sign-in (designer/lockout.py)."""

    username = models.CharField(max_length=150, db_index=True)
    ip = models.CharField(max_length=64, blank=True, db_index=True)
    at = models.DateTimeField(default=timezone.now, db_index=True)


class ExportJob(models.Model):
    """A large export (designer/export_jobs.py) built by a Celery job, one per revision, format, author
    line and catalog: every request for the same export reuses it. The file is kept in the database in
    compressed chunks (ExportChunk), so any web process on any machine streams it out a chunk at a time."""

    Status = Sweep.Status

    revision = models.ForeignKey(DesignRevision, on_delete=models.CASCADE, related_name="export_jobs")
    fmt = models.CharField(max_length=40)
    show_author = models.BooleanField(default=True, help_text="false: the author's user name is left out")
    catalog_stamp = models.CharField(max_length=16, help_text="the price book and parts the export was asked with")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    size_links = models.PositiveIntegerField(default=0, help_text="the size measure that sent it to a job")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    stage = models.CharField(max_length=40, blank=True, default="")
    progress_frac = models.FloatField(default=0.0)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    filename = models.CharField(max_length=255, blank=True, default="")
    content_type = models.CharField(max_length=120, blank=True, default="")
    size_bytes = models.PositiveBigIntegerField(default=0)
    stored_bytes = models.PositiveBigIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["revision", "fmt", "show_author", "catalog_stamp"], name="unique_export_job"
            )
        ]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.fmt} of revision {self.revision_id}"


class ExportChunk(models.Model):
    """One piece of a finished export's file, zlib-compressed (at most EXPORT_CHUNK_BYTES before)."""

    job = models.ForeignKey(ExportJob, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["job", "number"]
        constraints = [models.UniqueConstraint(fields=["job", "number"], name="unique_export_chunk")]


from designer.search_models import DesignSearch, DesignSearchChunk  # noqa: E402, F401  (registered with this app)
