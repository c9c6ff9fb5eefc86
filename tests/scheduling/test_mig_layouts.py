"""The per-GPU MIG layouts (scheduling/mig.py layouts()) against NVIDIA's placement rules, by hand.

NVIDIA MIG User Guide, "Supported MIG Profiles" (A100-80GB / H100): 8 memory slices, 7 compute slices. At most
7 × 1g, 4 × 1g with double memory (starts 0, 2, 4, 6), 3 × 2g (starts 0, 2, 4: slices 6–7 cannot hold a 2g),
2 × 3g, 1 × 4g, 1 × 7g — the seed's H100 list (1g.10gb ×7, 2g.20gb ×3, 3g.40gb ×2, 4g.40gb ×1, 7g.80gb ×1).
"""

from __future__ import annotations

from scheduling.mig import layouts


def _has(**counts: int) -> bool:
    want = {"1g": 0, "1g2": 0, "2g": 0, "3g": 0, "4g": 0, "7g": 0, **counts}
    return want in layouts()


def test_the_most_of_each_profile_on_one_gpu():
    most = {shape: max(lay[shape] for lay in layouts()) for shape in ("1g", "1g2", "2g", "3g", "4g", "7g")}
    assert most == {"1g": 7, "1g2": 4, "2g": 3, "3g": 2, "4g": 1, "7g": 1}


def test_combinations_by_hand():
    assert _has()  # MIG off: the empty layout is one of them
    assert _has(**{"4g": 1, "3g": 1})  # 4g at 0–3, 3g at 4–7: 7 compute slices
    assert _has(**{"4g": 1, "2g": 1, "1g": 1})  # 4g 0–3, 2g 4–5, 1g 6
    assert _has(**{"3g": 1, "2g": 1, "1g": 2})  # 2g 0–1, 1g 2, 1g 3, 3g 4–7
    assert _has(**{"2g": 3, "1g": 1})  # 2g 0–1, 2–3, 4–5 and 1g 6: 7 compute slices
    assert not _has(**{"3g": 1, "2g": 2, "1g": 1})  # the seed's "-cgi 9,14,14,19": 8 compute slices
    assert not _has(**{"7g": 1, "1g": 1})  # 7g takes the whole GPU
    assert not _has(**{"1g": 8})
    # two 3g take all 8 memory slices (0–3, 4–7): no room for a 1g, though 3 + 3 + 1 = 7 compute slices
    assert not _has(**{"3g": 2, "1g": 1})
    # 1g with double memory at 2, 4, 6 (slices 2–7) and 1g at 0 and 1: 5 compute slices, all 8 memory slices
    assert _has(**{"1g2": 3, "1g": 2}) and not _has(**{"1g2": 4, "1g": 1})
    # memory slices add up past 8 though compute fits: 3 × 2 + 2 + 1 = 9 and 4 + 2 × 2 + 1 = 9
    assert not _has(**{"1g2": 3, "2g": 1, "1g": 1}) and not _has(**{"4g": 1, "1g2": 2, "1g": 1})


def test_the_placements_alone_keep_compute_slices_within_seven():
    """No layout needs a compute-slice check of its own (scheduling/mig.py's docstring). A profile's compute slices
    are the number before its "g" (NVIDIA's naming: 3g.40gb = 3 compute slices, 40 GB). (1) every shape takes at
    least as many memory slices as compute slices; (2) a placement reaching memory slice 7 (start + size > 7) takes
    more memory than compute (1g2 at 6: 1 of 2, 3g at 4: 3 of 4, 7g: 7 of 8); so (3) a layout on 8 memory slices
    has at most 7 compute slices — 4g + 3g and 7g reach 7."""
    from scheduling.mig import _SHAPES

    compute = {"1g": 1, "1g2": 1, "2g": 2, "3g": 3, "4g": 4, "7g": 7}
    for shape, (size, starts) in _SHAPES.items():
        assert compute[shape] <= size
        assert all(compute[shape] < size for s in starts if s + size > 7)
    for lay in layouts():
        assert sum(compute[s] * n for s, n in lay.items()) <= 7
        assert sum(_SHAPES[s][0] * n for s, n in lay.items()) <= 8
    assert max(sum(compute[s] * n for s, n in lay.items()) for lay in layouts()) == 7
