from django.contrib import admin

from bom.models import Part, Price, PriceBook


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    list_display = ("sku", "kind", "vendor", "port_count", "port_gbps", "ports_per_module", "length_m", "power_w")
    list_filter = ("kind", "vendor", "media")
    search_fields = ("sku", "description", "vendor")


class PriceInline(admin.TabularInline):
    model = Price
    extra = 0
    autocomplete_fields = ("part",)


@admin.register(PriceBook)
class PriceBookAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "currency", "effective_date", "is_active")
    inlines = [PriceInline]
    actions = ["make_new_version"]

    @admin.action(description="Copy into a new version")
    def make_new_version(self, request, queryset):
        for book in queryset:
            book.new_version()
