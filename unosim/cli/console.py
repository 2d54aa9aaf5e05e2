"""What the CLI writes to stderr, and the one path every expected error takes.

An expected failure (a bad config or ``--vary``, a bad option, an unusable
path or out dir, a run that cannot start) is one line ``unosim: error: ...``
on stderr and exit code 2, never a traceback: commands turn the typed errors
of the layers below into `CliError`, and the ``unosim`` group prints every
click error in that format. Anything else is a bug and keeps its traceback.

Ctrl-C (SIGINT) and ``kill`` (SIGTERM) stop a command the same way: a run
keeps its finished chunks and stops its workers, the line says how to resume,
and the exit code is the shell's 128 + signal number (130, 143).
"""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from unosim.engine.kernel.state import CompiledConfig
    from unosim.rules.config import GameConfig

__all__ = ["COMPILE_NOTICE", "EXIT_ERROR", "EXIT_SIGNAL", "CliError", "Command", "Group",
           "collecting", "compile_engine", "compile_engines", "compile_notice",
           "few_collections", "info", "one_line", "warn"]

EXIT_ERROR = 2
EXIT_SIGNAL = 128  # + the signal number: how shells report a command a signal stopped
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
COMPILE_NOTICE = ("compiling the engine for this config's rules and players "
                  "(once: later runs load it)")


def one_line(message: object) -> str:
    """``message`` with its whitespace runs (newlines too) collapsed to single spaces.

    >>> one_line("cannot read\\n  x.yaml")
    'cannot read x.yaml'
    """
    return " ".join(str(message).split())


def warn(message: str) -> None:
    """One warning line on stderr."""
    click.echo(f"unosim: warning: {one_line(message)}", err=True)


def info(quiet: bool, message: str) -> None:
    """A progress line on stderr, unless ``--quiet``."""
    if not quiet:
        click.echo(message, err=True)


def compile_notice(quiet: bool = False, entry: str | None = None) -> None:
    """Say so before the engine compiles (a cold cache), instead of a bar stuck at 0%;
    on a terminal, a status line then counts what this process compiles. ``entry``
    (``module.function``) names what will compile, e.g. ``"rules.apply_action"``
    for the façade (default: the batch kernel of any config)."""
    if entry is not None:
        from unosim.engine.kernel.jit import is_compiled as entry_compiled

        cached = entry_compiled(entry)
    else:
        from unosim.engine import is_compiled

        cached = is_compiled()
    if not cached:
        info(quiet, COMPILE_NOTICE)
        if not quiet:
            _show_compile_progress()


def compile_engine(cc: CompiledConfig, quiet: bool = False) -> float:
    """Load ``cc``'s engine here, compiling it first (with the notice and progress)
    unless cached; the seconds the compilation took (0.0 when cached). A run's
    workers then only load it, and its timer starts with the engine ready."""
    import unosim.engine as engine

    if engine.is_compiled(cc):
        return engine.prepare(cc)
    info(quiet, COMPILE_NOTICE)
    if not quiet:
        _show_compile_progress()
    with collecting():  # a compile makes garbage for minutes
        return engine.prepare(cc)


@contextlib.contextmanager
def few_collections() -> Iterator[None]:
    """No cyclic garbage collection inside: a cached start only imports and loads
    (objects that live on), and each collection would walk all of them (about
    0.1 s of CPU in all). Work that makes garbage runs under `collecting`."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def collecting() -> Iterator[None]:
    """Cyclic garbage collection on inside (a compile, a simulation), whatever outside."""
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def compile_engines(cfgs: Iterable[GameConfig], quiet: bool = False) -> float:
    """`compile_engine` for each of ``cfgs`` (validated configs) in turn, here
    and before any worker starts, so that a study's workers only load the
    engine instead of each compiling it at once; the seconds spent compiling.
    A config with a plug-in seat is left to the façade (`compile_notice`)."""
    from unosim.engine.kernel.state import compile_config
    from unosim.rules.plugins import is_plugin_name

    seconds = 0.0
    for cfg in cfgs:
        if any(is_plugin_name(p) for p in cfg.seat_policies):
            compile_notice(quiet)
        else:
            seconds += compile_engine(compile_config(cfg), quiet)
    return seconds


_PROGRESS: list[object] = []  # the listener, once installed
LOG_EVERY = 10.0  # seconds between compile progress lines when stderr is not a terminal


def _show_compile_progress() -> None:
    """While numba compiles in this process: on a terminal, one status line
    (functions compiled, seconds) rewritten in place; elsewhere (a log, a pipe,
    ``make demo`` under CI) a line every `LOG_EVERY` seconds. Both end with
    "compiled N functions in T s"."""
    if _PROGRESS:
        return
    import time

    from numba.core import event

    tty = sys.stderr.isatty()

    class Status(event.Listener):
        depth, count, t0, shown = 0, 0, 0.0, 0.0

        def on_start(self, ev: event.Event) -> None:
            now = time.perf_counter()
            if self.depth == 0:
                self.t0 = self.shown = now
            self.depth += 1
            self.count += 1
            if now - self.shown > (0.25 if tty else LOG_EVERY):
                self.shown = now
                line = f"  compiling: {self.count} functions, {now - self.t0:.0f} s"
                click.echo(f"\r{line}" if tty else line, nl=not tty, err=True)

        def on_end(self, ev: event.Event) -> None:
            self.depth -= 1
            if self.depth == 0:
                line = (f"  compiled {self.count} functions in "
                        f"{time.perf_counter() - self.t0:.1f} s")
                click.echo(f"\r{line}" if tty else line, err=True)
                self.count = 0

    _PROGRESS.append(Status())
    event.register("numba:compile", _PROGRESS[0])


class CliError(click.ClickException):
    """An expected failure: a one-line message and exit code 2, like click's usage errors."""

    exit_code = EXIT_ERROR

    def __init__(self, message: object) -> None:
        super().__init__(one_line(message))


def _say_error(message: object) -> None:
    click.echo(f"unosim: error: {one_line(message)}", err=True)


def _stopped(message: object, caught: list[int]) -> click.exceptions.Exit:
    """Say what a signal stopped, on one line; exit with 128 + the (first) signal."""
    _say_error(message)
    return click.exceptions.Exit(EXIT_SIGNAL + (caught[0] if caught else signal.SIGINT))


@contextlib.contextmanager
def _stop_signals() -> Iterator[list[int]]:
    """SIGINT and SIGTERM raise KeyboardInterrupt; yields the list of those caught.

    A run turns KeyboardInterrupt into keeping its finished chunks and killing
    its workers, so SIGTERM must take that path too: by default it would kill
    this process alone and leave busy workers running. A signal the process
    was started ignoring (``nohup``, a background job) stays ignored.
    """
    caught: list[int] = []

    def stop(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        raise KeyboardInterrupt

    old: dict[int, Callable[[int, FrameType | None], object] | int | None] = {}
    with contextlib.suppress(ValueError):  # not the main thread: not ours to take
        for s in _STOP_SIGNALS:
            if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):
                old[s] = signal.signal(s, stop)
    try:
        yield caught
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)


# The typed errors of the layers below whose messages are meant for the user, by
# module. An error's module is imported before it can be raised, so looking them up
# in sys.modules keeps the error path from importing the engine, pandas or dask.
_EXPECTED = (("unosim.rules.errors", "ConfigError"), ("unosim.rules.cards", "CardError"),
             ("unosim.run.errors", "RunError"), ("unosim.report.grid", "VaryError"),
             ("unosim.engine.plugins", "PluginError"),
             ("unosim.engine.plugins", "PluginActionError"),
             ("unosim.study.options", "StudyError"),
             ("unosim.report.screen", "FactorError"),
             ("unosim.analysis.factorial", "DesignError"))


def _is(exc: BaseException, module: str, name: str) -> bool:
    """Whether ``exc`` is ``module.name``, without importing ``module``."""
    cls = getattr(sys.modules.get(module), name, None)
    return isinstance(cls, type) and isinstance(exc, cls)


class Command(click.Command):
    """A command whose expected errors become `CliError` (also when invoked on its own)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Options with a ``help_section`` (``--set``: every key) get one before the epilog."""
        for param in self.get_params(ctx):
            section = getattr(param, "help_section", None)
            if section is not None:
                title, rows = section(ctx)
                with formatter.section(title):
                    formatter.write_dl(rows)
        super().format_epilog(ctx, formatter)

    def invoke(self, ctx: click.Context) -> object:
        with _stop_signals() as caught:
            try:
                return super().invoke(ctx)
            except click.ClickException:
                raise
            except KeyboardInterrupt:
                raise _stopped("interrupted", caught) from None
            except OSError as exc:
                if exc.filename is None:  # not about a path the user gave: a bug
                    raise
                raise CliError(f"{exc.filename}: {exc.strerror or exc}") from None
            except Exception as exc:
                if _is(exc, "unosim.run.errors", "RunInterrupted"):  # says what was kept
                    raise _stopped(exc, caught) from None
                if any(_is(exc, module, name) for module, name in _EXPECTED):
                    raise CliError(exc) from None
                raise


def _fail(message: str, exit_code: int = EXIT_ERROR) -> NoReturn:
    _say_error(message)
    sys.exit(exit_code)


class Group(click.Group):
    """The ``unosim`` group: every click error is one ``unosim: error:`` line, exit 2."""

    command_class = Command

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:  # embedding callers handle exceptions themselves
            return super().main(args, prog_name, complete_var, False, **extra)
        # Library warnings (numba, joblib, dask) also become single lines.
        warnings.showwarning = lambda message, *_args, **_kw: warn(str(message))
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.ClickException as exc:
            _fail(exc.format_message())
        except (click.Abort, KeyboardInterrupt):  # Ctrl-C before a command started
            _fail("interrupted", EXIT_SIGNAL + signal.SIGINT)
        # The interpreter's last garbage collections would walk every object numba
        # and the reports made (about 0.15 s of CPU for nothing): exempt them.
        gc.freeze()
        sys.exit(rv if isinstance(rv, int) else 0)
