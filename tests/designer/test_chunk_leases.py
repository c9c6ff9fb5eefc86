"""designer/chunk_leases.py: the lease protocol sweeps and design searches share — spelt with plain status strings,
so they must be the models' own (a status added to one model and not the other would be missed by the reaper)."""

from __future__ import annotations

from designer import chunk_leases
from designer.models import Sweep, SweepChunk
from designer.search_models import DesignSearch, DesignSearchChunk
from designer.searches import SEARCHES
from designer.sweeps import SWEEPS


def test_the_protocol_speaks_every_models_statuses():
    names = (chunk_leases.PENDING, chunk_leases.RUNNING, chunk_leases.DONE, chunk_leases.FAILED, chunk_leases.CANCELLED)
    for model in (Sweep, SweepChunk, DesignSearch, DesignSearchChunk):
        assert tuple(model.Status.values) == names, model
    assert chunk_leases.OPEN == (Sweep.Status.PENDING, Sweep.Status.RUNNING)


def test_each_job_kind_names_its_own_models():
    assert (SWEEPS.job_model, SWEEPS.chunk_model, SWEEPS.job_field) == (Sweep, SweepChunk, "sweep")
    assert (SEARCHES.job_model, SEARCHES.chunk_model, SEARCHES.job_field) == (DesignSearch, DesignSearchChunk, "search")
    for jobs in (SWEEPS, SEARCHES):  # the chunk's key to its job is that field
        assert jobs.chunk_model._meta.get_field(jobs.job_field).related_model is jobs.job_model
