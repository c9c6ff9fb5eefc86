"""Typed requirements and the pure requirements → plan pipeline (no Django).

``cluster.requirements`` declares every input once (unit-named, with its default, range
and help); ``cluster.validate`` turns what a form, the API, a YAML file or a stored
revision holds into a frozen :class:`~cluster.requirements.Requirements`;
``cluster.pipeline.plan_cluster`` runs the engines in order and returns a
:class:`~cluster.pipeline.ClusterPlan`.
"""
