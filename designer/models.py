"""Designs, their immutable revisions (requirements + results), and API tokens.

The requirement fields live once, on the abstract :class:`Requirements` model: unit in
the name, default, help text and validators. Forms, the API serializer and the CLI all
derive from it (see designer/requirements.py), so there is one validation path.
"""

from __future__ import annotations

import hashlib
import secrets
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from designer.choices import GPU_MODELS, TOPOLOGY_CHOICES
from topology.switches import SWITCH_MODELS

SWITCH_CHOICES = [(name, f"{name} — {m.radix} × {m.port_gbps:g}G") for name, m in SWITCH_MODELS.items()]


def _range(minimum, maximum) -> list:
    """Validators whose message says what is allowed, not only what is wrong."""
    allowed = f"allowed: {minimum:,g} to {maximum:,g}"
    return [
        MinValueValidator(minimum, message=f"%(show_value)s is too small; {allowed}"),
        MaxValueValidator(maximum, message=f"%(show_value)s is too large; {allowed}"),
    ]


def _pos_int(default, help_text, maximum=10_000_000, minimum=1, **kw):
    return models.PositiveIntegerField(default=default, help_text=help_text, validators=_range(minimum, maximum), **kw)


def _opt_int(help_text, maximum=100_000, minimum=1):
    return models.PositiveIntegerField(null=True, blank=True, help_text=help_text, validators=_range(minimum, maximum))


def _opt_real(help_text, minimum, maximum):
    return models.FloatField(null=True, blank=True, help_text=help_text, validators=_range(minimum, maximum))


def _money(default, help_text, maximum=10**12, places=2):
    return models.DecimalField(
        max_digits=18,
        decimal_places=places,
        default=default,
        help_text=help_text,
        validators=_range(Decimal(0), Decimal(maximum)),
    )


def _opt_money(help_text, maximum=10**12):
    return models.DecimalField(
        max_digits=18,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=help_text,
        validators=_range(Decimal(0), Decimal(maximum)),
    )


def _real(default, help_text, minimum=0.0, maximum=1e9, **kw):
    return models.FloatField(default=default, help_text=help_text, validators=_range(minimum, maximum), **kw)


class Requirements(models.Model):
    """Every input of the engine and of the three network planes."""

    # --- cluster ---------------------------------------------------------------------------
    name = models.CharField(max_length=200, default="Untitled cluster", help_text="Design name")
    notes = models.TextField(blank=True, default="", help_text="Free text kept with the design")
    gpu_model = models.CharField(
        max_length=40,
        choices=[(g, g) for g in GPU_MODELS],
        default="H100-SXM5",
        help_text="Accelerator model",
    )
    gpu_count = _pos_int(2000, "GPUs in the cluster (a multiple of GPUs per node)")
    gpus_per_node = _pos_int(8, "GPUs per compute node", maximum=128)
    # --- compute fabric ---------------------------------------------------------------------
    topology = models.CharField(
        max_length=20, choices=TOPOLOGY_CHOICES, default="rail_optimized", help_text="Compute fabric topology"
    )
    nic_gbps = _real(400.0, "Compute NIC speed [Gbit/s]", minimum=1, maximum=3200)
    nics_per_node = _pos_int(8, "Compute NICs per node (= rails for rail-optimized)", maximum=64)
    switch_model = models.CharField(
        max_length=40,
        choices=SWITCH_CHOICES,
        blank=True,
        default="QM9700",
        help_text="Fabric switch model; sets radix and port speed (leave empty to type them)",
    )
    switch_radix = _pos_int(64, "Fabric switch ports", maximum=1024, minimum=2)
    switch_port_gbps = _real(400.0, "Fabric switch port speed [Gbit/s]", minimum=1, maximum=3200)
    oversubscription = _real(1.0, "Leaf oversubscription r:1 (1 = non-blocking)", minimum=1, maximum=64)
    agg_oversubscription = _real(1.0, "Pod-spine oversubscription in 3 tiers", minimum=1, maximum=64)
    tiers = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        choices=[(1, "1"), (2, "2"), (3, "3")],
        help_text="Switching tiers (empty = the fewest that fit)",
    )
    scalable_unit_nodes = _opt_int("Rail-optimized: nodes per scalable unit (empty = one leaf per rail)")
    leaves_per_group = _opt_int("Dragonfly+: leaves per group (empty = the most a spine takes)", maximum=1024)
    global_oversubscription = _real(1.0, "Dragonfly+: spine down ÷ global links", minimum=1, maximum=64)
    torus_dims = models.CharField(
        max_length=40,
        blank=True,
        default="",
        validators=[RegexValidator(r"^\d+x\d+x\d+$", "write the torus as XxYxZ, e.g. 16x16x16")],
        help_text="3D torus dimensions XxYxZ (empty = most cube-like)",
    )
    torus_link_gbps = _real(400.0, "3D torus link speed [Gbit/s]", minimum=1, maximum=3200)
    # --- storage plane ----------------------------------------------------------------------
    storage_nics_per_node = _pos_int(2, "Storage NICs per compute node", maximum=16)
    storage_nic_gbps = _real(100.0, "Compute storage NIC speed [Gbit/s]", minimum=1, maximum=3200)
    storage_node_count = _pos_int(8, "Storage servers", maximum=100_000)
    storage_drives_per_node = _pos_int(24, "Drives per storage server", maximum=1000)
    storage_drive_tb = _real(15.36, "Drive capacity [TB]", minimum=0.001, maximum=1000)
    storage_raid_data_drives = _pos_int(8, "RAID data drives per group", maximum=100)
    storage_raid_parity_drives = _pos_int(2, "RAID parity drives per group", maximum=100, minimum=0)
    storage_node_nics = _pos_int(2, "NICs per storage server", maximum=16)
    storage_node_nic_gbps = _real(200.0, "Storage server NIC speed [Gbit/s]", minimum=1, maximum=3200)
    storage_switch_radix = _pos_int(32, "Storage switch ports", maximum=1024, minimum=2)
    storage_switch_port_gbps = _real(100.0, "Storage switch port speed [Gbit/s]", minimum=1, maximum=3200)
    storage_oversubscription = _real(1.0, "Storage leaf oversubscription r:1", minimum=1, maximum=64)
    storage_switch_count = _opt_int("Fix the storage switch count (full mesh); empty = size a leaf–spine")
    checkpoint_params_billion = _real(70.0, "Model parameters [billions]", minimum=0.001, maximum=1e6)
    weights_bytes_per_param = _real(2.0, "Bytes per parameter of the weights (bf16 = 2)", minimum=0.1, maximum=64)
    checkpoint_bytes_per_param = _real(
        14.0,
        "Checkpoint bytes per parameter (weights + optimizer; Adam mixed precision = 14)",
        minimum=0.1,
        maximum=64,
    )
    checkpoint_shard_mb = models.FloatField(
        null=True,
        blank=True,
        validators=_range(0.001, 1e9),
        help_text="Checkpoint shard per GPU [MB]; when set it replaces parameters × bytes",
    )
    checkpoint_window_s = _real(60.0, "Checkpoint write window [s]", minimum=0.1, maximum=1e6)
    dataloader_read_gbyte_s_per_gpu = _real(0.1, "Data-loader read per GPU [GB/s]", minimum=0, maximum=1000)
    storage_required_usable_tb = models.FloatField(
        null=True,
        blank=True,
        validators=_range(0.001, 1e9),
        help_text="Usable capacity target [TB] (optional)",
    )
    # --- management plane -------------------------------------------------------------------
    mgmt_node_count = _pos_int(5, "Management servers", maximum=100_000, minimum=0)
    login_node_count = _pos_int(4, "Login servers", maximum=100_000, minimum=0)
    mgmt_nodes_per_tor = _pos_int(8, "Servers per management ToR", maximum=1000)
    mgmt_ports_per_node = _pos_int(2, "ToR ports per server (management + BMC)", maximum=16)
    mgmt_tor_access_ports = _pos_int(48, "Management ToR access ports", maximum=1024)
    mgmt_tor_access_gbps = _real(25.0, "Management ToR access port speed [Gbit/s]", minimum=0.1, maximum=800)
    mgmt_tor_uplinks = _pos_int(2, "Uplinks per management ToR", maximum=64)
    mgmt_tor_uplink_ports = _pos_int(8, "Uplink ports per management ToR", maximum=64)
    mgmt_uplink_gbps = _real(100.0, "Management uplink speed [Gbit/s]", minimum=1, maximum=1600)
    mgmt_spine_ports = _pos_int(48, "Management spine ports", maximum=1024, minimum=2)
    mgmt_min_spines = _pos_int(2, "Minimum management spines (redundancy)", maximum=64)
    # --- bill of materials ------------------------------------------------------------------
    bom_media = models.CharField(
        max_length=20,
        default="by_reach",
        choices=[
            ("by_reach", "By reach: DAC in rack, AOC/ACC next rack, optics beyond"),
            ("all_optics", "All optics (as the seed chapter buys)"),
        ],
        help_text="How links are cabled",
    )
    nodes_per_rack = _pos_int(4, "Compute nodes per rack (cable lengths)", maximum=128)
    racks_per_row = _pos_int(10, "Racks per row (cable lengths)", maximum=200)
    spares_switch_pct = _real(0.0, "Spare switches [%]", minimum=0, maximum=100)
    spares_nic_pct = _real(0.0, "Spare NICs [%]", minimum=0, maximum=100)
    spares_transceiver_pct = _real(2.0, "Spare transceivers [%]", minimum=0, maximum=100)
    spares_cable_pct = _real(2.0, "Spare cables [%]", minimum=0, maximum=100)
    growth_headroom_pct = _real(20.0, "Free-port headroom for growth to check [%] (seed: 20)", minimum=0, maximum=100)
    # --- power and racks --------------------------------------------------------------------
    node_power_w = _opt_real("Compute node power [W] (empty = GPU TDP × GPUs + host overhead)", 1, 1e6)
    gpu_tdp_w = _opt_real("GPU TDP [W] (empty = the GPU model's)", 1, 5000)
    host_overhead_w = _real(4600.0, "Node power besides the GPUs [W] (DGX H100: 10.2 kW − 8 × 700 W)", 0, 1e5)
    node_u = _pos_int(8, "Compute node height [U] (DGX H100: 8U; the chapter assumes 6U)", maximum=48)
    average_load_frac = _real(1.0, "Average draw ÷ nameplate for energy (1 = nameplate)", 0.01, 1)
    storage_node_power_w = _real(2500.0, "Storage server power [W]", 0, 1e5)
    storage_node_u = _pos_int(2, "Storage server height [U]", maximum=48)
    mgmt_node_power_w = _real(1500.0, "Management/login server power [W]", 0, 1e5)
    mgmt_node_u = _pos_int(1, "Management/login server height [U]", maximum=48)
    network_power_kw = _opt_real("Network power [kW] (empty = switches + optics from the BOM)", 0, 1e6)
    rack_budget_kw = _real(40.0, "Power budget per rack [kW]", 0.1, 1000)
    rack_u = _pos_int(42, "Rack height [U]", maximum=60)
    # --- facility and cooling ---------------------------------------------------------------
    cooling_type = models.CharField(
        max_length=20,
        blank=True,
        default="",
        choices=[
            ("", "By rack density"),
            ("air", "Air"),
            ("air_containment", "Air with containment"),
            ("direct_to_chip", "Direct-to-chip liquid"),
            ("immersion", "Immersion"),
        ],
        help_text="Cooling (empty = the least intensive that holds the rack density)",
    )
    pue = _opt_real("PUE (empty = typical for the cooling type)", 1, 5)
    electrical_chain = models.CharField(
        max_length=30,
        default="in_pue",
        choices=[
            ("in_pue", "Included in the PUE"),
            ("ups_line_interactive", "Line-interactive UPS (98 %)"),
            ("ups_double_conversion", "Double-conversion UPS (93 %)"),
            ("hvdc_240v", "240 V HVDC (94 %)"),
            ("legacy_ac", "Legacy AC chain (85 %)"),
        ],
        help_text="Electrical chain efficiency, when the PUE does not include it",
    )
    electricity_usd_per_kwh = _money(Decimal("0.08"), "Electricity price [$/kWh]", maximum=10, places=4)
    coolant_supply_c = _real(32.0, "Secondary loop supply temperature [°C]", 5, 80)
    coolant_return_c = _real(45.0, "Secondary loop return temperature [°C]", 5, 90)
    coolant_fluid = models.CharField(
        max_length=10,
        default="water",
        choices=[("water", "Water"), ("pg25", "Propylene glycol 25 %")],
        help_text="Secondary loop fluid",
    )
    cdu_unit_kw = _real(3000.0, "CDU capacity per unit [kW]", 1, 1e5)
    heat_rejection_unit_kw = _real(1000.0, "Dry cooler / cooling tower capacity per unit [kW]", 1, 1e5)
    capping_budget_kw = _opt_real("Facility budget for the power-capping planner [kW] (empty = this design's)", 1, 1e7)
    # --- TCO --------------------------------------------------------------------------------
    tco_years = _pos_int(5, "TCO horizon [years]", maximum=30)
    gpu_node_price_usd = _money(Decimal("250000"), "Compute node price [$]")
    storage_node_price_usd = _money(Decimal("350000"), "Storage server price [$]")
    network_capex_usd = _opt_money("Network CapEx [$] (empty = the BOM total)")
    mgmt_capex_usd = _money(Decimal("250000"), "Management and login servers [$]")
    cooling_capex_usd_per_kw = _money(Decimal("1260"), "Cooling plant CapEx per facility kW [$]")
    cooling_capex_usd = _opt_money("Cooling plant CapEx [$] (empty = per kW × facility kW)")
    facility_capex_usd_per_kw = _money(Decimal("720"), "Facility works per facility kW [$]")
    facility_capex_usd = _opt_money("Facility works [$] (empty = per kW × facility kW)")
    software_capex_usd = _money(Decimal("500000"), "Software licences, up front [$]")
    software_usd_per_year = _money(Decimal("200000"), "Software subscriptions per year [$]")
    ops_fte = _real(5.0, "Operations staff [FTE]", 0, 10000)
    ops_usd_per_fte_year = _money(Decimal("200000"), "Cost per FTE per year [$]")
    spares_maintenance_usd_per_year = _opt_money("Spares and maintenance per year [$] (empty = 1 % of hardware)")
    tco_utilisation_frac = _real(0.8, "Utilisation for the cost per GPU-hour", 0.01, 1)
    discount_rate_pct = _real(0.0, "Discount rate for the present value [%/year]", 0, 99)
    # --- carbon -----------------------------------------------------------------------------
    grid_kg_co2_per_kwh = _real(0.4, "Grid carbon intensity [kg CO₂/kWh]", 0, 2)
    run_days = _real(90.0, "Training run length [days]", 0.01, 3650)
    run_utilisation_frac = _real(0.9, "Training run GPU utilisation", 0.01, 1)
    run_power_frac = _real(0.7, "Training run average GPU power ÷ TDP", 0.01, 1)

    class Meta:
        abstract = True


REQUIREMENT_FIELDS: tuple[str, ...] = tuple(f.name for f in Requirements._meta.local_fields)


class DesignQuerySet(models.QuerySet):
    def alive(self):
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user):
        """Designs a user may read: their own and those shared with them (not deleted)."""
        if not user.is_authenticated:
            return self.none()
        return self.alive().filter(Q(owner=user) | Q(shared_with=user)).distinct()

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
    fabric_labels = models.JSONField(default=list)
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


class SweepPoint(models.Model):
    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="points")
    index = models.PositiveBigIntegerField()
    fabric_index = models.PositiveIntegerField()
    collective = models.CharField(max_length=20)
    size_bytes = models.PositiveBigIntegerField()
    requested = models.CharField(max_length=20)
    time_us = models.FloatField()
    algbw_gbyte_s = models.FloatField()
    busbw_gbyte_s = models.FloatField()
    algorithm = models.CharField(max_length=20)
    protocol = models.CharField(max_length=10)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["sweep", "index"], name="unique_sweep_point")]
