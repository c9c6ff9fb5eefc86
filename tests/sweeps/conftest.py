from tests.designer.conftest import alice, alice_design, bob  # noqa: F401
