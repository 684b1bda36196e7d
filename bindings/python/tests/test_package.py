"""The installed package: layout, typing files, the ABI check."""

from __future__ import annotations

import pathlib

import minigraf


def package_dir() -> pathlib.Path:
    return pathlib.Path(minigraf.__file__).parent


def test_imported_from_an_installation_not_the_source_tree() -> None:
    assert "src" not in package_dir().parts[-3:], package_dir()


def test_wheel_contents() -> None:
    names = {path.name for path in package_dir().iterdir()}
    assert {"__init__.py", "capi.py", "capi.pyi", "py.typed", "libminigraf.so.1"} <= names
    # Both extension modules are built against the Limited API: one binary
    # for every CPython from 3.10 on.
    assert {"_capi.abi3.so", "_native.abi3.so"} <= names


def test_public_names() -> None:
    for name in minigraf.__all__:
        assert hasattr(minigraf, name), name
    assert minigraf.Error.__module__ == "minigraf"
    assert minigraf.Database.__module__ == "minigraf"
    assert minigraf.FactLog.__module__ == minigraf.LogWriter.__module__ == "minigraf"


def test_abi_matches() -> None:
    assert minigraf.capi.abi_version() == minigraf.capi.MINIGRAF_ABI_VERSION == 1
