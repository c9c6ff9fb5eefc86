"""The job-class table round-trips: list of mappings (files, API) → stored text (one class per line) → the
same classes, for any names and numbers the API schema admits; what cannot round-trip is refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import SchedulerInputError
from scheduling.workload import DURATIONS, SEED_TABLE_14_24, SLA_CLASSES, class_dict, classes_text, parse_classes

BAD = set(',"') | {chr(c) for c in range(0x20)} | {chr(c) for c in range(0x7F, 0xA0)} | {"\u2028", "\u2029"}
cells = st.text(st.characters(blacklist_characters=sorted(BAD), blacklist_categories=("Cs",)), max_size=40)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=64)
rows = st.fixed_dictionaries(
    {
        "name": cells.filter(lambda x: x.strip() and not x.strip().startswith("#")),
        "share_pct": numbers, "min_gpus": st.integers(1, 10**12), "max_gpus": st.integers(1, 10**12),
        "granularity_gpus": st.integers(1, 10**6), "min_hours": numbers, "max_hours": numbers,
        "sla": st.sampled_from(SLA_CLASSES),
    },
    optional={"tenant": cells, "comm_fraction": st.floats(0, 0.999), "duration": st.sampled_from(DURATIONS)},
)  # fmt: skip


@given(st.lists(rows, min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_list_to_text_to_classes_loses_nothing(items):
    classes = parse_classes(items)
    again = parse_classes(classes_text(classes))
    assert again == classes
    assert [class_dict(c)["name"] for c in again] == [str(i["name"]).strip() for i in items]


def test_the_seed_table_round_trips_and_reads_as_the_chapter_prints_it():
    text = classes_text(SEED_TABLE_14_24.classes)
    assert text.splitlines()[0] == "pretraining, 40, 512, 1024, 64, 168, 2160, critical"  # Table 14-24, 7–90 days
    assert parse_classes(text) == SEED_TABLE_14_24.classes


@pytest.mark.parametrize(
    ("row", "text"),
    [
        ({"name": "a,b"}, "no commas"),
        ({"name": 'say "x"'}, "quotes"),
        ({"name": "two\nlines"}, "control characters"),
        ({"name": "# not a class"}, "not starting with #"),
        ({"tenant": "t\u2028u"}, "a tenant of at most 60"),
        ({"sla": "urgent"}, "sla is one of critical, queued, best_effort"),
        ({"duration": "weibull"}, "duration is one of"),
        ({"min_gpus": 2.5}, "min_gpus: a whole number"),
        ({"colour": "red"}, "unknown column 'colour'"),
    ],
)
def test_what_cannot_round_trip_is_refused(row, text):
    base = {"name": "a", "share_pct": 100, "min_gpus": 1, "max_gpus": 2, "granularity_gpus": 1, "min_hours": 1,
            "max_hours": 2, "sla": "queued"}  # fmt: skip
    with pytest.raises(SchedulerInputError) as exc:
        parse_classes([{**base, **row}])
    assert text in exc.value.errors["classes"]
