"""Fast ways to make and build the frozen, slotted dataclasses of the first stages (entries, the
session model, spans): ``frozen`` to define one, ``fast_maker`` to make its values on a hot
path.

``frozen`` is ``dataclasses.dataclass(frozen=True, slots=True)``, made cheaper to define. On
Python 3.11 the standard decorator compiles six methods from source for each class (``exec``):
about 0.75 ms a class, and the traces export loads twenty of them before it reads a line,
most of its start-up. ``frozen`` lets ``dataclass`` register the fields and make the slots, and
gives the class methods that behave as the generated ones: ``__repr__``, ``__eq__``,
``__hash__``, the frozen ``__setattr__`` and ``__delattr__``, pickling (``__getstate__``,
``__setstate__``) are closures over the field names, and ``__init__`` is compiled as the
standard one is, on the class's first construction (the exporters make their values with
``fast_maker`` and never call it). ``tests/test_fast.py`` compares every such class with the
standard decorator's twin.

A frozen dataclass's ``__init__`` goes through ``object.__setattr__`` for every field, about
three times slower than setting the slots directly. The reader makes millions of values, so
its hot path uses ``fast_maker(cls)``: a positional constructor that takes every field, in
order, and checks nothing. Everything else uses the ordinary constructor.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import reprlib
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from types import FunctionType
from typing import Any, TypeVar, dataclass_transform

__all__ = ["fast_maker", "frozen"]

T = TypeVar("T")


def _stand_in(*args: Any) -> Any:
    return _first(*args)  # type: ignore[name-defined]  # noqa: F821 - in its own globals


def fast_maker(cls: type[T]) -> Callable[..., T]:
    """A constructor for the frozen, slotted dataclass ``cls`` taking every field positionally.

    It is compiled on its first call: a module that makes one for a class it may never build
    (the fold's for a log with no run, ``spans``' for the export, which writes JSON) pays
    nothing for it at import (compiling the seven ``sessiontools otel`` makes at start-up was
    6.4 M instructions of its 253 M). Until then it is a stand-in whose code the first call
    replaces with the compiled constructor's, so that every later call runs that directly.

    The constructor makes a value of a twin class, with the same slots and no frozen
    ``__setattr__``, sets each slot as any attribute is set, then makes the value a ``cls``
    (``__class__`` assignment, which the twins' identical layout allows): the value is a
    ``cls`` like any other. A slot's descriptor's ``__set__``, called for each field (what a
    class without such a twin, one with a base of its own, gets), costs three times as much:
    a ``Turn`` of eleven fields took 1.4 µs that way, 0.5 µs this way."""
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}

    def first(*args: Any) -> T:
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        twin = _twin(cls, names)
        if twin is not None:
            namespace["_twin"] = twin
            body = [f"    o.{name} = {name}\n" for name in names]
            body.append("    o.__class__ = _cls\n")
            source = f"def _make({', '.join(names)}):\n    o = _new(_twin)\n{''.join(body)}"
        else:
            body = []
            for name in names:
                slot = next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__)
                namespace[f"_set_{name}"] = slot.__set__
                body.append(f"    _set_{name}(o, {name})\n")
            source = f"def _make({', '.join(names)}):\n    o = _new(_cls)\n{''.join(body)}"
        exec(source + "    return o\n", namespace)
        made: Callable[..., T] = namespace["_make"]
        maker.__code__ = made.__code__  # same globals (namespace), no free variables
        return made(*args)

    namespace["_first"] = first
    maker: Callable[..., T] = FunctionType(_stand_in.__code__, namespace, "_make")
    return maker


def _twin(cls: type, names: list[str]) -> type | None:
    """A class laid out as ``cls`` (a class of ``object`` whose slots are its fields), whose
    values can be made ``cls`` values by assigning ``__class__``; ``None`` for a class that
    has another base or other slots, or whose values cannot be (``fast_maker``)."""
    if cls.__bases__ != (object,) or tuple(cls.__dict__.get("__slots__", ())) != tuple(names):
        return None
    if {"o", "_new", "_cls", "_twin"} & set(names):  # the constructor's own names
        return None
    twin = type(f"_{cls.__name__}Twin", (object,), {"__slots__": tuple(names)})
    blank: Any = object.__new__(twin)
    try:
        blank.__class__ = cls
    except TypeError:  # not the same layout after all
        return None
    return twin


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(cls: type[T]) -> type[T]:
    """``@dataclass(frozen=True, slots=True)``, defined faster (module docstring). The class
    must have a docstring, and its fields only defaults and ``field(default=...,
    compare=..., repr=...)``: no default factory, ``init=False`` field, ``InitVar`` or
    ``__post_init__`` (a ``TypeError`` says so).

    Raises:
        TypeError: the class uses what ``frozen`` does not make.
    """
    if cls.__dict__.get("__doc__") is None:
        raise TypeError(f"@frozen {cls.__qualname__}: give the class a docstring")
    if "__post_init__" in cls.__dict__ or "__init__" in cls.__dict__:
        raise TypeError(f"@frozen {cls.__qualname__}: no __init__ or __post_init__ of its own")
    own_eq = "__eq__" in cls.__dict__
    new: Any = _slotted(cls)
    if new is None:  # what _slotted does not make: as the standard decorator makes it
        new = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    fields = dataclasses.fields(new)
    for f in fields:
        if f.default_factory is not MISSING or not f.init or f.kw_only is True:
            raise TypeError(f"@frozen {cls.__qualname__}.{f.name}: only plain defaults")
    names = tuple(f.name for f in fields)
    shown = tuple(f.name for f in fields if f.repr)
    compared = tuple(f.name for f in fields if f.compare)
    key = _key(compared)
    field_names = frozenset(names)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = ", ".join([f"{name}={getattr(self, name)!r}" for name in shown])
        return f"{self.__class__.__qualname__}({values})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(key(self) == key(other))
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is new or name in field_names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(new, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is new or name in field_names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(new, self).__delattr__(name)

    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    methods: dict[str, Callable[..., Any]] = {
        "__repr__": __repr__,
        "__hash__": __hash__,
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
        "__getstate__": __getstate__,
        "__setstate__": __setstate__,
        "__init__": _lazy_init(new, fields),
    }
    if not own_eq:
        methods["__eq__"] = __eq__
    for name, method in methods.items():
        method.__qualname__ = f"{new.__qualname__}.{name}"
        setattr(new, name, method)
    params = new.__dataclass_params__  # as dataclass(frozen=True) would say
    params.init = params.repr = params.eq = params.frozen = True
    result: type[T] = new
    return result


#: A dataclass's parameters as ``dataclass(init=False, repr=False, eq=False, slots=True)``
#: gives them, in this Python's own form (``slots`` from 3.12 on): ``_slotted`` gives each class
#: a copy.
_PARAMS_OF: Any = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(
    type("_Params", (), {"__doc__": "."})
)
_PARAMS: Any = _PARAMS_OF.__dataclass_params__

#: How the standard decorator marks a field (not a class variable or an ``InitVar``).
_FIELD: Any = getattr(dataclasses, "_FIELD")  # noqa: B009 - private, looked up once

#: What an annotation of a field the standard decorator treats apart may name (``_slotted``
#: leaves such a class to it).
_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY")


def _plain(annotation: object) -> bool:
    return type(annotation) is str and not any(name in annotation for name in _SPECIAL)


def _slotted(cls: type) -> type | None:
    """``dataclass(init=False, repr=False, eq=False, slots=True)(cls)``, made without the
    standard decorator's per-field checks of string annotations (three regular expression
    matches and module look-ups a field; ``cls`` made again with its slots as it makes it):
    the fields, ``__match_args__`` and the slotted class are the same. ``None`` for a class
    it leaves to the standard decorator: one with a base or a metaclass, annotations that
    are not strings (``from __future__ import annotations``) or that name ``ClassVar``,
    ``InitVar`` or ``KW_ONLY``, or its own ``__slots__``.

    Raises:
        TypeError, ValueError: as the standard decorator does (a ``field`` without an
            annotation, a mutable default).
    """
    namespace = cls.__dict__
    annotations = namespace.get("__annotations__", {})
    if (
        type(cls) is not type
        or cls.__bases__ != (object,)
        or "__slots__" in namespace
        or not all(_plain(a) for a in annotations.values())
    ):
        return None
    fields: dict[str, dataclasses.Field[Any]] = {}
    for name, annotation in annotations.items():
        default = namespace.get(name, MISSING)
        if isinstance(default, dataclasses.Field):
            f = default
        else:
            f = dataclasses.field(default=default)
        f.name = name
        f.type = annotation
        f._field_type = _FIELD  # type: ignore[attr-defined]  # noqa: SLF001 - its mark
        if f.kw_only is MISSING:
            f.kw_only = False
        if f.default.__class__.__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        fields[name] = f
    for name, value in namespace.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    body = {k: v for k, v in namespace.items() if k not in fields}
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = tuple(fields)
    body["__dataclass_fields__"] = fields
    body["__dataclass_params__"] = copy.copy(_PARAMS)
    if "__match_args__" not in body:
        body["__match_args__"] = tuple(name for name, f in fields.items() if f.init)
    made = type(cls.__name__, (object,), body)
    made.__qualname__ = cls.__qualname__
    return made


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of a value's fields ``names``, as the generated ``__eq__`` and ``__hash__``
    compare and hash it."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda value: (get(value),)
    return lambda value: ()


def _lazy_init(cls: Any, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """``cls.__init__`` until its first call, which compiles the ``__init__`` the standard
    decorator makes (each field set with ``object.__setattr__``), puts it on the class and
    calls it. Its signature is the compiled one's."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for f in fields:
        default = inspect.Parameter.empty if f.default is MISSING else f.default
        parameters.append(
            inspect.Parameter(
                f.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=default,
                annotation=f.type,
            )
        )
        annotations[f.name] = f.type
    annotations["return"] = None

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _compile_init(cls, fields, annotations)
        cls.__init__ = init
        init(self, *args, **kwargs)

    __init__.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    __init__.__annotations__ = annotations
    return __init__


def _compile_init(
    cls: Any, fields: tuple[dataclasses.Field[Any], ...], annotations: dict[str, Any]
) -> Callable[..., None]:
    namespace: dict[str, Any] = {"__dataclass_object_setattr__": object.__setattr__}
    args = ["self"]
    for f in fields:
        if f.default is MISSING:
            args.append(f.name)
        else:
            namespace[f"__dataclass_dflt_{f.name}__"] = f.default
            args.append(f"{f.name}=__dataclass_dflt_{f.name}__")
    body = "".join(
        f"\n    __dataclass_object_setattr__(self, {f.name!r}, {f.name})" for f in fields
    )
    exec(f"def __init__({', '.join(args)}):{body or chr(10) + '    pass'}", namespace)
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(annotations)
    return init
