"""Network bill of materials: the catalog (Django models in bom/models.py) and pure builders.

bom/parts.py, bom/catalog.py, bom/layout.py, bom/build.py and bom/export.py never import
Django; designer/services.py hands them plain data.
"""
