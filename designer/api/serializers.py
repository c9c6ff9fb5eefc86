"""API representations. Requirements travel in the nested file layout (see designer/requirements.py)."""

from __future__ import annotations

from rest_framework import serializers

from designer.models import Design, DesignRevision
from designer.requirements import nest


class RevisionSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True)
    requirements = serializers.SerializerMethodField()

    class Meta:
        model = DesignRevision
        fields = ["id", "number", "author", "created_at", "message", "requirements", "results"]

    def get_requirements(self, obj) -> dict:
        return nest(obj.requirements())


class DesignSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    name = serializers.SerializerMethodField()
    revision_count = serializers.SerializerMethodField()
    head = serializers.SerializerMethodField()
    link_shared = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = ["id", "name", "owner", "created_at", "updated_at", "revision_count", "link_shared", "head"]

    def _head(self, obj):
        cache = self.context.setdefault("_heads", {})
        if obj.pk not in cache:
            cache[obj.pk] = obj.revisions.order_by("-number").first()
        return cache[obj.pk]

    def get_name(self, obj) -> str:
        return self._head(obj).name

    def get_revision_count(self, obj) -> int:
        return obj.revisions.count()

    def get_link_shared(self, obj) -> bool:
        return bool(obj.share_token)

    def get_head(self, obj) -> dict:
        return RevisionSerializer(self._head(obj)).data


class DesignListSerializer(DesignSerializer):
    """A list row: the head's number, GPU count and summary figures, not its whole result tree."""

    head = serializers.SerializerMethodField()

    def get_head(self, obj) -> dict:
        head = self._head(obj)
        return {
            "number": head.number,
            "created_at": head.created_at,
            "gpu_count": head.gpu_count,
            "topology": head.topology,
            "summary": head.results.get("summary", {}),
        }


class BomLineSerializer(serializers.Serializer):
    """One purchase-order line (bom/export.py BOM_COLUMNS; lines stored before a column existed get its default)."""

    line_id = serializers.CharField(help_text="stable within the revision: plane prefix + number, e.g. COM-001")
    plane = serializers.CharField(help_text="compute, storage, management or infrastructure")
    category = serializers.CharField()
    manufacturer = serializers.CharField(allow_blank=True)
    mfr_part_number = serializers.CharField(
        allow_blank=True, help_text="the manufacturer's orderable part number; blank where the catalog gives none"
    )
    sku = serializers.CharField(help_text="the catalog's part number (quotes and price books name the part by it)")
    description = serializers.CharField()
    quantity = serializers.IntegerField(min_value=0)
    unit_of_measure = serializers.CharField()
    currency = serializers.CharField(help_text="ISO 4217 code of the price book")
    list_price_usd = serializers.DecimalField(max_digits=20, decimal_places=2, help_text="unit list price")
    discount_pct = serializers.DecimalField(max_digits=5, decimal_places=2)
    unit_price_usd = serializers.DecimalField(
        max_digits=20, decimal_places=2, help_text="net unit price = ROUND(list × (1 − discount ÷ 100), 2)"
    )
    extended_price_usd = serializers.DecimalField(max_digits=20, decimal_places=2, help_text="quantity × net")
    spare = serializers.BooleanField(help_text="a spares line, apart from the installed quantity")
    price_source = serializers.CharField(help_text="where the price comes from; a quote says which")
    price_date = serializers.CharField(allow_blank=True, help_text="ISO date of the quote or price book")
    price_is_assumption = serializers.BooleanField(help_text="a planning assumption, not a quoted price")
    lead_time_weeks = serializers.IntegerField(allow_null=True, min_value=0)
    quote_reference = serializers.CharField(allow_blank=True)
    derivation = serializers.CharField(help_text="how the quantity was derived")


class BomCheckSerializer(serializers.Serializer):
    """One entry of a design's one list of checks (cluster/pipeline.py ClusterPlan.checks)."""

    section = serializers.CharField(
        help_text="fabric, storage, bom, racks, power, scheduler, workload or roce (the list is in this order)"
    )
    name = serializers.CharField(help_text="what is checked")
    ok = serializers.BooleanField(help_text="passed")
    info = serializers.BooleanField(help_text="a note (information), not a verdict")
    field = serializers.CharField(help_text="the requirement to change when the check fails")
    message = serializers.CharField(help_text="what was found, with its figures and derivation")


class ChecksSerializer(serializers.Serializer):
    """A revision's one list of checks: the same list, and count, as its page and every export."""

    design = serializers.IntegerField()
    revision = serializers.IntegerField()
    failing_count = serializers.IntegerField(help_text="checks that fail: the count every export states")
    count = serializers.IntegerField(help_text="checks in the list")
    checks = BomCheckSerializer(many=True)


class BomSerializer(serializers.Serializer):
    """A revision's network bill of materials, line by line, as the xlsx/csv exports carry it."""

    design = serializers.IntegerField()
    revision = serializers.IntegerField()
    price_book = serializers.DictField(help_text="name, version, currency, effective_date of the pricing book")
    lines = BomLineSerializer(many=True)
    totals_usd = serializers.DictField(child=serializers.DecimalField(max_digits=20, decimal_places=2))
    total_usd = serializers.DecimalField(max_digits=20, decimal_places=2)
    link_count = serializers.IntegerField()
    link_end_count = serializers.IntegerField()
    checks = BomCheckSerializer(many=True, help_text="the design's one list of checks, as bom.xlsx and bom.csv show it")
