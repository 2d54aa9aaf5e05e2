"""One-line errors for config and edition files.

A bad file must fail before any game starts with a message the user can act
on, ``FILE: KEY.PATH: message``; pydantic's multi-line reports are turned
into that shape here, naming the key at fault and, through ``extends:``
chains, the file that set it.
"""

from __future__ import annotations

import difflib
import os
import reprlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

__all__ = [
    "MAX_MESSAGE",
    "MAX_QUOTE",
    "ConfigError",
    "KeyedValueError",
    "clip",
    "display_path",
    "error_from_validation",
    "format_loc",
    "model_at",
    "quoted",
]

# Every value quoted in an error is cut to this many characters, and a whole
# message (unknown-key hints list every key) to the longer bound: a hostile
# file must not become a megabyte-long error line.
MAX_QUOTE = 60
MAX_MESSAGE = 400


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as short as is unambiguous: relative to the cwd when below it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


class ConfigError(Exception):
    """A config or edition file that cannot be used.

    ``str()`` is always one line, ``FILE: KEY.PATH: message``, so the CLI can
    print it as is and the user knows where to look. Its parts quote user input,
    so each is cut to a bounded length and shows unprintable characters (NUL,
    escape, newline in a file name) as escapes; whitespace in the message folds.

    >>> print(ConfigError("x.yaml", "players", "must be <= 40,\\n got 41"))
    x.yaml: players: must be <= 40, got 41
    >>> print(ConfigError("a\\nb.yaml", "p\\x1bq", "edition file not found: \\x00"))
    a\\nb.yaml: p\\x1bq: edition file not found: \\x00
    """

    def __init__(
        self, source: str | os.PathLike[str] | None, key: str | None, message: str
    ) -> None:
        where = display_path(source) if isinstance(source, os.PathLike) else source
        self.source = _printable(where) if where else None
        self.key = clip(_printable(key), MAX_QUOTE) if key else None
        self.message = clip(_printable(" ".join(str(message).split())), MAX_MESSAGE)
        super().__init__(str(self))

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.key, self.message) if part)


def _printable(text: str) -> str:
    """``text`` with each unprintable character (newline, NUL, ...) as its escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class KeyedValueError(ValueError):
    """A validator's complaint about a key below the one being validated.

    Pydantic reports model-level validator errors at the model's own location;
    raising this lets the message name the key actually at fault.
    """

    def __init__(self, key: str | int | tuple[str | int, ...], message: str) -> None:
        self.key = key if isinstance(key, tuple) else (key,)
        super().__init__(message)


def format_loc(loc: Iterable[str | int]) -> str:
    """A pydantic location as the user writes it in a config or ``--set``.

    >>> format_loc(("seats", 2)), format_loc(("house_rules", "jump_in"))
    ('seats[2]', 'house_rules.jump_in')
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` cut to at most ``limit`` characters, marked with '...' where cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _BoundedRepr(reprlib.Repr):
    """reprlib's bounded walk, also for integers too long to print at all."""

    def repr_int(self, x: int, level: int) -> str:
        # Python refuses to print an int of more than 4300 digits, and a long
        # one says nothing more than its size.
        if x.bit_length() > 200:
            return f"an integer of about {int(x.bit_length() * 0.30103) + 1} digits"
        return repr(x)


_REPR = _BoundedRepr()
_REPR.maxlevel = 2
_REPR.maxstring = _REPR.maxother = MAX_QUOTE
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = 4


def quoted(value: object) -> str:
    """``repr(value)`` cut to ``MAX_QUOTE`` characters, in time bounded by that length.

    Only a few items of each container, a few levels deep, are looked at, so
    even a structure that shares subtrees exponentially often is cheap.

    >>> quoted("players"), quoted(10**20), quoted(10**5000)
    ("'players'", '100000000000000000000', 'an integer of about 5001 digits')
    >>> quoted({"a": [[1, 2, 3, 4, 5, 6]] * 9})
    "{'a': [[...], [...], [...], [...], ...]}"
    """
    return clip(_REPR.repr(value), MAX_QUOTE)


def model_at(model: type[BaseModel], loc: Iterable[str | int]) -> type[BaseModel] | None:
    """The nested model class reached by ``loc`` from ``model``, if any."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None or not isinstance(part, str) or part not in current.model_fields:
            return None
        current = _submodel(current.model_fields[part].annotation)
    return current


def _submodel(annotation: object) -> type[BaseModel] | None:
    """The BaseModel class inside ``X`` or ``X | None``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


_EXPECTED = {
    "bool_type": "a boolean (true/false)",
    "int_type": "an integer",
    "float_type": "a number",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
}
_BOUNDS = {
    "greater_than_equal": ">=",
    "greater_than": ">",
    "less_than_equal": "<=",
    "less_than": "<",
}


def _describe(
    err: ErrorDetails, model: type[BaseModel]
) -> tuple[tuple[str | int, ...], str]:
    """A pydantic error as (key path, plain-words message)."""
    loc = tuple(err["loc"])
    typ = err["type"]
    got = quoted(err.get("input"))
    ctx = err.get("ctx") or {}
    if typ == "value_error" and isinstance(ctx.get("error"), KeyedValueError):
        exc = ctx["error"]
        return loc + exc.key, str(exc)
    if typ == "value_error":
        return loc, str(ctx.get("error", err["msg"]))
    if typ == "extra_forbidden":
        parent = model_at(model, loc[:-1])
        known = list(parent.model_fields) if parent else []
        hint = difflib.get_close_matches(str(loc[-1]), known, n=1)
        extra = (
            f" (did you mean {hint[0]!r}?)"
            if hint
            else (f" (known keys: {', '.join(known)})" if known else "")
        )
        return loc, f"unknown key{extra}"
    if typ in _EXPECTED:
        return loc, f"expected {_EXPECTED[typ]}, got {got}"
    if typ == "literal_error":
        return loc, f"expected {ctx.get('expected')}, got {got}"
    if typ == "missing":
        return loc, "required key is missing"
    if typ == "string_too_long":
        length = len(err["input"])
        return loc, f"must be at most {ctx['max_length']} characters long, got {length}"
    if typ in _BOUNDS:
        bound = next(iter(ctx.values()), "?")
        return loc, f"must be {_BOUNDS[typ]} {bound}, got {got}"
    return loc, f"{err['msg']}, got {got}"


def error_from_validation(
    exc: ValidationError,
    model: type[BaseModel],
    source: str | os.PathLike[str] | None,
    source_of: Callable[[Sequence[str | int]], str | None] | None = None,
) -> ConfigError:
    """The first pydantic error as a one-line ``ConfigError``.

    ``source_of(loc)`` may name a different file for a key (the config that
    set it, through ``extends:``); by default every key is blamed on ``source``.
    """
    # An unknown key is usually a typo and the cause of any "missing" error
    # next to it, so it is reported first.
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    loc, message = _describe(errors[0], model)
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
    where = source_of(loc) if source_of else None
    return ConfigError(where or source, format_loc(loc), message)
