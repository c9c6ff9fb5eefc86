"""The editable parts catalog and versioned price books (Django side of bom/)."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.utils import timezone

from bom.catalog_file import TEXT_LIMITS
from bom.parts import CableMedia, Connector, PartKind, PartSpec, parse_port_groups


class Audited(models.Model):
    """Who last changed a catalog row, and when (set by the API and the admin; deletions are in the
    admin's history, django.contrib.admin LogEntry, from both)."""

    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, editable=False, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True

    def stamp(self, user) -> None:
        """Mark the row as changed now by ``user`` (anonymous: nobody); the caller saves it."""
        self.changed_by = user if user is not None and user.is_authenticated else None
        self.changed_at = timezone.now()


def validate_port_groups(text: str) -> None:
    try:
        parse_port_groups(text)
    except ValueError as e:
        raise ValidationError(str(e)) from None


class Part(Audited):
    sku = models.CharField(max_length=TEXT_LIMITS["sku"], unique=True, help_text="Vendor part number / model")
    kind = models.CharField(max_length=20, choices=[(k.value, k.value) for k in PartKind])
    vendor = models.CharField(max_length=TEXT_LIMITS["vendor"], blank=True)
    description = models.CharField(max_length=TEXT_LIMITS["description"])
    port_count = models.PositiveIntegerField(default=0, help_text="Switch/NIC ports")
    port_gbps = models.FloatField(default=0, validators=[MinValueValidator(0)], help_text="Port speed [Gbit/s]")
    ports_per_module = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1)],
        help_text="Transceiver: switch ports one module serves (twin-port OSFP = 2); switch: ports per cage",
    )
    breakout = models.CharField(max_length=TEXT_LIMITS["breakout"], blank=True, help_text="e.g. 2x200G")
    extra_port_groups = models.CharField(
        max_length=60,
        blank=True,
        default="",
        validators=[validate_port_groups],
        help_text="Switch: ports besides port_count × port_gbps, as 'count x speedG' joined by '+', e.g. 8x100G "
        "(a ToR's uplinks); roles are given switches by all their port groups",
    )
    reach_m = models.FloatField(default=0, validators=[MinValueValidator(0)], help_text="Maximum reach [m]")
    length_m = models.FloatField(default=0, validators=[MinValueValidator(0)], help_text="Cable length [m]")
    media = models.CharField(max_length=20, blank=True, choices=[("", "—")] + [(m.value, m.value) for m in CableMedia])
    form_factor = models.CharField(
        max_length=TEXT_LIMITS["form_factor"], blank=True, help_text="Module form factor; switch/NIC: its cages'"
    )
    power_w = models.FloatField(default=0, validators=[MinValueValidator(0)], help_text="Typical power [W]")
    rack_units = models.PositiveSmallIntegerField(default=0)
    fibre_count = models.PositiveSmallIntegerField(
        default=0,
        help_text="Transceiver: fibres one port's link lights (SR8 16, DR4 8, LC duplex 2); fibre: fibres it carries "
        "(0: not declared)",
    )
    connector = models.CharField(
        max_length=20,
        blank=True,
        default="",
        choices=[("", "—")] + [(c.value, c.value) for c in Connector],
        help_text="Transceiver: each port's optical connector; fibre: its ends' (a trunk fits a module of its own)",
    )
    lane_gbps = models.FloatField(
        default=0,
        validators=[MinValueValidator(0)],
        help_text="Switch/NIC: its cages' electrical lane rate; transceiver: its host lanes' [Gbit/s] (0: any)",
    )
    manufacturer = models.CharField(
        max_length=TEXT_LIMITS["manufacturer"],
        blank=True,
        default="",
        help_text="The maker to order from, or 'generic' (any maker)",
    )
    mfr_part_number = models.CharField(
        max_length=TEXT_LIMITS["mfr_part_number"],
        blank=True,
        default="",
        help_text="The maker's orderable part number, where one is published",
    )
    source_url = models.URLField(
        max_length=TEXT_LIMITS["source_url"],
        blank=True,
        default="",
        help_text="The data sheet or product page the part is from",
    )
    source_date = models.DateField(null=True, blank=True, help_text="When the source was read")
    generic_reason = models.CharField(
        max_length=TEXT_LIMITS["generic_reason"],
        blank=True,
        default="",
        help_text="Why the part is generic or has no maker's part number",
    )

    class Meta:
        ordering = ["kind", "sku"]

    def __str__(self) -> str:
        return f"{self.vendor} {self.sku}".strip()

    @classmethod
    def deletion_refusals(cls, parts) -> list[tuple[str, str]]:
        """(code, why) for each of ``parts`` a price book prices: deleting it would take its prices along."""
        out = []
        for part in parts:
            books = sorted({str(p.price_book) for p in part.prices.select_related("price_book")})
            if books:
                out.append(
                    (
                        "part_priced",
                        f"{part.sku} is priced in {len(books)} price book(s) ({', '.join(books[:5])}): "
                        "delete those prices first",
                    )
                )
        return out


def _today():
    """A DateField default must be a date (timezone.now gives a datetime: a 500 after the row is saved)."""
    return timezone.now().date()


def validate_currency(code: str) -> None:
    from bom.currencies import currency_error

    problem = currency_error(code)
    if problem:
        raise ValidationError(problem)


class PriceBook(Audited):
    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField(default=1)
    currency = models.CharField(
        max_length=3, default="USD", validators=[validate_currency], help_text="ISO 4217 code, e.g. USD"
    )
    effective_date = models.DateField(default=_today)
    note = models.TextField(blank=True)
    is_active = models.BooleanField(default=True, help_text="The newest active book prices new designs")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-effective_date", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="unique_price_book_version")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @classmethod
    def current(cls) -> PriceBook | None:
        """The newest active book that has prices (an empty one never prices designs)."""
        priced = models.Exists(Price.objects.filter(price_book=models.OuterRef("pk")))
        return cls.objects.filter(priced, is_active=True).order_by("-effective_date", "-version", "-pk").first()

    @classmethod
    def deletion_refusals(cls, books) -> list[tuple[str, str]]:
        """(code, why) for each reason deleting all of ``books`` together would break planning or history:
        the current book, every active book, or a book saved design revisions were priced from."""
        from django.apps import apps

        books = list(books)
        ids = {b.pk for b in books}
        out = []
        current = cls.current()
        if current is not None and current.pk in ids:
            out.append(
                (
                    "price_book_current",
                    f"{current} is the current price book: it prices every new design "
                    "(retire it with is_active=false once another active book has prices)",
                )
            )
        if any(b.is_active for b in books) and not cls.objects.filter(is_active=True).exclude(pk__in=ids).exists():
            out.append(("price_book_last_active", "deleting it would leave no active price book to price new designs"))
        revisions = apps.get_model("designer", "DesignRevision").objects
        for book in books:
            n = revisions.filter(results__bom__price_book__id=book.pk).count()
            if n:
                out.append(
                    (
                        "price_book_in_use",
                        f"{n} saved design revision(s) were priced from {book}: "
                        "set is_active to false to retire it instead (restorable)",
                    )
                )
        return out

    def deactivation_refusal(self) -> str:
        """Why this active book may not be set inactive ('' if it may): it is the last active one with prices."""
        priced = models.Exists(Price.objects.filter(price_book=models.OuterRef("pk")))
        others = PriceBook.objects.filter(priced, is_active=True).exclude(pk=self.pk)
        if self.pk and self.prices.exists() and not others.exists():
            return f"{self} is the last active price book with prices: activate another priced book first"
        return ""

    def new_version(self, note: str = "", user=None) -> PriceBook:
        """Copy this book's prices into version + 1 (the old one stays for old revisions)."""
        with transaction.atomic():
            top = PriceBook.objects.filter(name=self.name).aggregate(v=models.Max("version"))["v"] or 0
            book = PriceBook(
                name=self.name,
                version=top + 1,
                currency=self.currency,
                effective_date=timezone.now().date(),
                note=note or self.note,
            )
            book.stamp(user)
            book.save()
            quotes = {
                q.pk: Quote.objects.create(
                    price_book=book,
                    reference=q.reference,
                    supplier=q.supplier,
                    quoted_on=q.quoted_on,
                    valid_until=q.valid_until,
                    note=q.note,
                    changed_by=book.changed_by,
                    changed_at=book.changed_at,
                )
                for q in self.quotes.all()
            }
            Price.objects.bulk_create(
                Price(
                    price_book=book,
                    part=p.part,
                    list_price_usd=p.list_price_usd,
                    discount_pct=p.discount_pct,
                    source_note=p.source_note,
                    is_assumption=p.is_assumption,
                    lead_time_weeks=p.lead_time_weeks,
                    quote=quotes.get(p.quote_id),
                    changed_by=book.changed_by,
                    changed_at=book.changed_at,
                )
                for p in self.prices.all()
            )
        return book

    def info(self) -> dict:
        return {
            "id": self.pk,
            "name": self.name,
            "version": self.version,
            "currency": self.currency,
            "effective_date": str(self.effective_date),
            "note": self.note,
        }


class Quote(Audited):
    """A supplier's quote attached to one price book version; prices it covers say so on every BOM line."""

    price_book = models.ForeignKey(PriceBook, on_delete=models.CASCADE, related_name="quotes")
    reference = models.CharField(max_length=60, help_text="The supplier's quote number, e.g. Q-2026-0412")
    supplier = models.CharField(max_length=100)
    quoted_on = models.DateField(help_text="Date of the quote")
    valid_until = models.DateField(null=True, blank=True, help_text="Last day the quoted prices hold")
    note = models.TextField(blank=True)
    report = models.JSONField(
        default=dict, blank=True, help_text="An uploaded quote's lines as read: matched (to which part) and unmatched"
    )

    class Meta:
        ordering = ["price_book", "reference"]
        constraints = [models.UniqueConstraint(fields=["price_book", "reference"], name="unique_quote_per_book")]

    def __str__(self) -> str:
        return f"{self.reference} ({self.supplier})"

    def clean(self) -> None:
        if self.valid_until and self.quoted_on and self.valid_until < self.quoted_on:
            raise ValidationError({"valid_until": "a quote cannot expire before the day it was made"})

    def describe(self) -> str:
        valid = f", valid until {self.valid_until}" if self.valid_until else ""
        return f"quote {self.reference} from {self.supplier} of {self.quoted_on}{valid}"


class SupplierAlias(Audited):
    """A supplier's own SKU for one of our parts: a quote line under that SKU prices the part (bom/quotes.py)."""

    supplier = models.CharField(max_length=100, help_text="The supplier, as named on its quotes")
    supplier_sku = models.CharField(max_length=60, help_text="The supplier's own part number")
    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="aliases")

    class Meta:
        ordering = ["supplier", "supplier_sku"]
        constraints = [models.UniqueConstraint(fields=["supplier", "supplier_sku"], name="unique_supplier_sku")]

    def __str__(self) -> str:
        return f"{self.supplier}: {self.supplier_sku} → {self.part.sku}"


class Price(Audited):
    price_book = models.ForeignKey(PriceBook, on_delete=models.CASCADE, related_name="prices")
    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="prices")
    list_price_usd = models.DecimalField(max_digits=14, decimal_places=2, validators=[MinValueValidator(0)])
    discount_pct = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="Negotiated discount off list [%]",
    )
    source_note = models.CharField(max_length=300, help_text="Where the price comes from")
    is_assumption = models.BooleanField(default=True, help_text="A planning figure, not a quote")
    lead_time_weeks = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(260)], help_text="Delivery lead time [weeks]"
    )
    quote = models.ForeignKey(
        Quote,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="prices",
        help_text="The supplier's quote this price comes from (a quote of the same price book)",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["price_book", "part"], name="unique_price_per_book")]

    def clean(self) -> None:
        if self.quote_id and self.price_book_id and self.quote.price_book_id != self.price_book_id:
            raise ValidationError({"quote": f"{self.quote} belongs to another price book"})

    def __str__(self) -> str:
        return f"{self.part.sku} @ {self.list_price_usd}"

    @property
    def unit_price_usd(self) -> Decimal:
        return net_price_usd(self.list_price_usd, self.discount_pct)


class CatalogWrites(models.Model):
    """One row: a token the database itself changes on every write to the tables the catalog is read from (parts,
    price books, prices, quotes) — its triggers (migration 0015, SQLite and PostgreSQL), so every write path moves
    it: save(), a bulk update(), the admin, raw SQL, PostgreSQL's TRUNCATE. A new token is never an old one (SQLite:
    random(), 64 bits; PostgreSQL: a sequence, which a rollback does not rewind), so a write rolled back leaves the
    token it found and a later write cannot bring a rolled-back token back. designer.services.current_catalog reads
    this one value on every keystroke and the catalog's rows only when it moved."""

    token = models.BigIntegerField(default=0)

    TRIGGERED = ("sqlite", "postgresql")  # the vendors migration 0015 puts the triggers on

    @classmethod
    def token_now(cls) -> int | None:
        """The token; None where it cannot be trusted — a database without the triggers, or no row (a flushed
        table): then the rows are read every time."""
        from django.db import connection

        if connection.vendor not in cls.TRIGGERED:
            return None
        return cls.objects.filter(pk=1).values_list("token", flat=True).first()


def net_price_usd(list_price_usd: Decimal, discount_pct: Decimal) -> Decimal:
    """List less the discount; half a cent rounds up, as a spreadsheet's ROUND does (the exported net price is that
    formula)."""
    return (list_price_usd * (100 - discount_pct) / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)


def catalog_specs(book: PriceBook | None = None) -> list[PartSpec]:
    """The catalog as pure PartSpecs priced from ``book`` (default: the current book)."""
    return list(specs_of_rows(catalog_rows(book or PriceBook.current())))


def catalog_rows(book: PriceBook | None) -> tuple:
    """Everything :func:`specs_of_rows` reads, as plain values (no model instances: the live form reads the catalog on
    every keystroke, and 363 instances were ≈ 5 ms of it): the book's fields, its prices, their quotes, the parts.
    Equal rows give equal specs — whatever wrote them (a form, the admin, a bulk update, SQL): designer.services
    keeps the catalog made from the last rows read, and the rows are read every time."""
    if book is None:
        return None, (), (), tuple(Part.objects.values_list(*_PART_FIELDS, *SOURCING_FIELDS))
    prices = tuple(book.prices.order_by("part_id").values_list(*_PRICE_FIELDS))
    quote_ids = {price[-1] for price in prices if price[-1] is not None}
    quotes = Quote.objects.filter(pk__in=quote_ids).order_by("pk").values_list(*_QUOTE_FIELDS) if quote_ids else ()
    book_row = (book.pk, book.name, book.version, book.currency, book.effective_date, book.note)
    return book_row, prices, tuple(quotes), tuple(Part.objects.values_list(*_PART_FIELDS, *SOURCING_FIELDS))


def specs_of_rows(rows: tuple) -> list[PartSpec]:
    """The PartSpecs of :func:`catalog_rows`' rows."""
    book_row, price_rows, quote_rows, part_rows = rows
    book = dict(zip(("id", "name", "version", "currency", "effective_date", "note"), book_row)) if book_row else None
    book_name = f"{book['name']} v{book['version']}" if book else "any price book"  # as PriceBook.__str__
    prices = {row[0]: dict(zip(_PRICE_FIELDS, row, strict=True)) for row in price_rows}
    quotes = {row[0]: Quote(**dict(zip(_QUOTE_FIELDS, row, strict=True))) for row in quote_rows}
    specs = []
    for row in part_rows:
        part = dict(zip((*_PART_FIELDS, *SOURCING_FIELDS), row, strict=True))
        price = prices.get(part["id"])
        quote = quotes.get(price["quote_id"]) if price else None
        source = price["source_note"] if price else f"no price in {book_name}"
        if quote is not None:
            source = f"{quote.describe()}: {source}"
        if price and price["discount_pct"]:
            source += f" (list ${price['list_price_usd']:,} less {price['discount_pct']}%)"
        specs.append(
            PartSpec(
                kind=PartKind(part["kind"]),
                **{name: part[name] for name in _PART_FIELDS if name not in ("id", "kind")},
                unit_price_usd=net_price_usd(price["list_price_usd"], price["discount_pct"]) if price else Decimal("0"),
                price_source=source,
                price_is_assumption=(price["is_assumption"] and quote is None) if price else True,
                list_price_usd=price["list_price_usd"] if price else None,
                discount_pct=price["discount_pct"] if price else Decimal("0"),
                **sourcing(part),
                currency=book["currency"] if book else "USD",
                price_date=str(quote.quoted_on if quote is not None else book["effective_date"]) if book else "",
                lead_time_weeks=price["lead_time_weeks"] if price else None,
                quote_reference=quote.reference if quote is not None else "",
            )
        )
    return specs


_PART_FIELDS = (
    "id", "sku", "kind", "vendor", "description", "port_count", "port_gbps", "ports_per_module", "reach_m", "length_m",
    "media", "form_factor", "power_w", "rack_units", "breakout", "extra_port_groups", "fibre_count", "connector",
    "lane_gbps",
)  # fmt: skip
_PRICE_FIELDS = (
    "part_id",
    "list_price_usd",
    "discount_pct",
    "source_note",
    "is_assumption",
    "lead_time_weeks",
    "quote_id",
)


_QUOTE_FIELDS = ("id", "reference", "supplier", "quoted_on", "valid_until")  # what Quote.describe and a spec read
SOURCING_FIELDS = ("manufacturer", "mfr_part_number", "source_url", "source_date", "generic_reason")


def sourcing(part: Part | dict) -> dict[str, str]:
    """A part row's maker, part number and source as PartSpec fields (the date as ISO text, '' when unknown); the row
    a model instance or its values."""
    out = {name: part[name] if isinstance(part, dict) else getattr(part, name) for name in SOURCING_FIELDS}
    out["source_date"] = out["source_date"].isoformat() if out["source_date"] else ""
    return out


def _row_value(spec: PartSpec, name: str):
    """A PartSpec field as its Part column holds it (the source date a date, None when not given)."""
    value = getattr(spec, name)
    if name == "source_date":
        return date.fromisoformat(value) if value else None
    return value


def load_default_catalog(part_model=Part, book_model=PriceBook, price_model=Price) -> int:
    """Insert the default parts and price book (idempotent); used by a data migration."""
    from bom.catalog import DEFAULT_PARTS, DEFAULT_PRICE_BOOK

    book, _ = book_model.objects.get_or_create(
        name=DEFAULT_PRICE_BOOK["name"],
        version=DEFAULT_PRICE_BOOK["version"],
        defaults={
            "currency": DEFAULT_PRICE_BOOK["currency"],
            "effective_date": DEFAULT_PRICE_BOOK["effective_date"],
            "note": DEFAULT_PRICE_BOOK["note"],
        },
    )
    added = 0
    # an earlier migration's Part has no extra_port_groups column yet (migrations call this with their model)
    fields = {f.name for f in part_model._meta.get_fields()}
    for spec in DEFAULT_PARTS:
        extra = {
            name: _row_value(spec, name)
            for name in ("extra_port_groups", "fibre_count", "connector", "lane_gbps", *SOURCING_FIELDS)
            if name in fields
        }
        part, created = part_model.objects.get_or_create(
            sku=spec.sku,
            defaults=dict(
                **extra,
                kind=spec.kind.value,
                vendor=spec.vendor,
                description=spec.description,
                port_count=spec.port_count,
                port_gbps=spec.port_gbps,
                ports_per_module=spec.ports_per_module,
                breakout=spec.breakout,
                reach_m=spec.reach_m,
                length_m=spec.length_m,
                media=str(spec.media),
                form_factor=spec.form_factor,
                power_w=spec.power_w,
                rack_units=spec.rack_units,
            ),
        )
        added += created
        price_model.objects.get_or_create(
            price_book=book,
            part=part,
            defaults=dict(
                list_price_usd=spec.unit_price_usd,
                source_note=spec.price_source,
                is_assumption=spec.price_is_assumption,
            ),
        )
    return added
