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
