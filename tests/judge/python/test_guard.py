"""The run-time guard fails closed: what it cannot read is refused, never passed.

The provenance rule itself is tested in a separate interpreter (test_provenance.py): an audit
hook cannot be removed from this one."""

from __future__ import annotations

import codecs

import pytest

from judge.python import harness_audit as audit
from judge.python import harness_guard as guard
from judge.python import harness_library as library


def test_bytes_declaring_another_coding_are_refused() -> None:
    payload = b"# coding: utf-7\n+AF8AXw-import+AF8AXw-('os')"

    with pytest.raises(guard.InjectionBlocked, match="declaring coding 'utf-7'"):
        guard.source_text(payload)


def test_bytes_are_read_as_strict_utf8_without_the_bom() -> None:
    assert guard.source_text(codecs.BOM_UTF8 + b"x + y") == "x + y"
    with pytest.raises(guard.InjectionBlocked, match="cannot decode|not UTF-8"):
        guard.source_text(b"x + \xff")


def test_an_error_inside_the_hook_becomes_a_refusal() -> None:
    hook = audit.make_audit_hook(lambda _: True)

    # Arguments the hook cannot read: an IndexError inside it, which must not let the event by.
    with pytest.raises(guard.InjectionBlocked, match="could not check pickle.find_class"):
        hook("pickle.find_class", ())


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("numpy", "core.multiarray.scalar"),
        ("numpy.testing", "os"),
        ("numpy.core.multiarray", "_reconstruct.__globals__"),
        ("os", "system"),
    ],
)
def test_the_unpickler_allows_exact_pairs_only(module: str, name: str) -> None:
    hook = audit.make_audit_hook(lambda _: True)

    with pytest.raises(guard.InjectionBlocked, match="unpickling"):
        hook("pickle.find_class", (module, name))
    hook("pickle.find_class", ("numpy.core.multiarray", "_reconstruct"))


@pytest.mark.parametrize("event", ["sys.settrace", "sys.setprofile"])
def test_trace_functions_are_refused_armed_or_not(event: str) -> None:
    hook = audit.make_audit_hook(lambda _: True)

    with pytest.raises(guard.InjectionBlocked, match=event):
        hook(event, ())


def test_the_hooks_frames_are_the_guards_own() -> None:
    """The rule looks for the code that asked past the guard's frames: the hook's are its."""
    hook = audit.make_audit_hook(lambda _: True)

    assert library.guard_code(hook.__code__)
    assert library.guard_code(audit._event.__code__)
    assert not library.guard_code(test_the_hooks_frames_are_the_guards_own.__code__)
