from django.contrib import admin

from bom.models import Part, Price, PriceBook, Quote


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    list_display = ("sku", "kind", "vendor", "port_count", "port_gbps", "ports_per_module", "length_m", "power_w")
    list_filter = ("kind", "vendor", "media")
    search_fields = ("sku", "description", "vendor")


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
class PriceBookAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "currency", "effective_date", "is_active")
    inlines = [QuoteInline, PriceInline]
    actions = ["make_new_version"]

    @admin.action(description="Copy into a new version")
    def make_new_version(self, request, queryset):
        for book in queryset:
            book.new_version()
