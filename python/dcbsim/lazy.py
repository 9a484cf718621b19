"""Modules loaded on first use, so that commands which do not need them start fast."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any


class _OnFirstUse(ModuleType):
    """A stand-in for a module, which imports it when one of its attributes is first
    read and from then on holds the module's names itself.

    The import goes through :func:`importlib.import_module`, whose per-module lock
    makes a second thread wait until the module is whole. (The standard library's
    ``LazyLoader`` did not before Python 3.12.3: threads running :func:`dcbsim.run`
    at once in a new process failed on a half-made numpy.)"""

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)


def lazy_import(name: str) -> ModuleType:
    """Module ``name``, imported only when one of its attributes is first read (or
    itself, if it is already loaded whole: one that another thread is still importing
    is waited for on first use, as one not loaded is). Raises ``ModuleNotFoundError``
    at once if there is no such module."""
    loaded = sys.modules.get(name)
    if loaded is not None and not getattr(getattr(loaded, "__spec__", None), "_initializing", False):
        return loaded
    if importlib.util.find_spec(name) is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return _OnFirstUse(name)
