"""The catalog in the admin: every save stamps who changed the row; deleting what planning or saved
designs rely on is refused (the delete page lists why, for one row or the bulk action)."""

from django.contrib import admin, messages

from bom.models import Part, Price, PriceBook, Quote, SupplierAlias

AUDIT = ("changed_by", "changed_at")


class AuditedAdmin(admin.ModelAdmin):
    """Stamps ``changed_by``/``changed_at`` on the row and its inlines; shows them read-only."""

    def get_readonly_fields(self, request, obj=None):
        return (*super().get_readonly_fields(request, obj), *AUDIT)

    def save_model(self, request, obj, form, change):
        obj.stamp(request.user)
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        for row in formset.save(commit=False):
            row.stamp(request.user)
            row.save()
        for row in formset.deleted_objects:
            row.delete()
        formset.save_m2m()

    def get_deleted_objects(self, objs, request):
        """Django's own "protected" list refuses the delete page and the "delete selected" action."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        refusals = self.model.deletion_refusals(objs) if hasattr(self.model, "deletion_refusals") else []
        return deleted, counts, perms_needed, [*protected, *(f"refused: {why}" for _code, why in refusals)]


@admin.register(Part)
class PartAdmin(AuditedAdmin):
    list_display = (
        "sku", "kind", "vendor", "manufacturer", "mfr_part_number", "port_count", "port_gbps", "ports_per_module",
        "length_m", "power_w",
    )  # fmt: skip
    list_filter = ("kind", "vendor", "manufacturer", "media")
    search_fields = ("sku", "description", "vendor", "manufacturer", "mfr_part_number")


class PriceInline(admin.TabularInline):
    model = Price
    extra = 0
    autocomplete_fields = ("part",)
    fields = ("part", "list_price_usd", "discount_pct", "lead_time_weeks", "quote", "source_note", "is_assumption")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "quote":  # only the quotes of the book being edited
            book_id = request.resolver_match.kwargs.get("object_id") if request.resolver_match else None
            kwargs["queryset"] = Quote.objects.filter(price_book_id=book_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class QuoteInline(admin.TabularInline):
    model = Quote
    extra = 0
    fields = ("reference", "supplier", "quoted_on", "valid_until", "note")


@admin.register(PriceBook)
class PriceBookAdmin(AuditedAdmin):
    list_display = ("name", "version", "currency", "effective_date", "is_active", "changed_by", "changed_at")
    inlines = [QuoteInline, PriceInline]
    actions = ["make_new_version"]

    @admin.action(description="Copy into a new version")
    def make_new_version(self, request, queryset):
        for book in queryset:
            self.log_addition(request, book.new_version(user=request.user), f"new version of {book}")

    def save_model(self, request, obj, form, change):
        if change and "is_active" in form.changed_data and not obj.is_active:
            why = PriceBook.objects.get(pk=obj.pk).deactivation_refusal()
            if why:  # keep it active, say why (the rest of the change is saved)
                obj.is_active = True
                self.message_user(request, f"Still active: {why}", messages.WARNING)
        super().save_model(request, obj, form, change)


@admin.register(SupplierAlias)
class SupplierAliasAdmin(AuditedAdmin):
    """A supplier's own SKU for one of our parts: its quote lines under that SKU price the part."""

    list_display = ("supplier", "supplier_sku", "part")
    search_fields = ("supplier", "supplier_sku", "part__sku")
    autocomplete_fields = ("part",)
