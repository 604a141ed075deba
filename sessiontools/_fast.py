"""A fast way to make frozen, slotted dataclasses, for the hot paths of the first two stages
(the decoders and the fold).

A frozen dataclass's ``__init__`` goes through ``object.__setattr__`` for every field, about
three times slower than setting the slots directly. The reader makes millions of values, so
its hot path uses ``fast_maker(cls)``: a positional constructor that takes every field, in
order, and checks nothing. Everything else uses the ordinary constructor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["fast_maker"]

T = TypeVar("T")


def fast_maker(cls: type[T]) -> Callable[..., T]:
    """A constructor for the frozen, slotted dataclass ``cls`` taking every field positionally."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    body = []
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        body.append(f"    _set_{name}(o, {name})\n")
    source = f"def _make({', '.join(names)}):\n    o = _new(_cls)\n{''.join(body)}    return o\n"
    exec(source, namespace)
    maker: Callable[..., T] = namespace["_make"]
    return maker
