"""Checks shared by the front-end tests that a TraceError is located at the
user's line: the error's location names the test file and the line, and the
message starts with that ``file:line``."""

import linecache

import pytest


def _error(excinfo_or_error):
    return getattr(excinfo_or_error, "value", excinfo_or_error)


def _assert_located(error, file: str, line: int):
    assert error.location is not None, str(error)
    assert error.location.file == file, error.location
    assert error.location.line == line, \
        f"error at {error.location}, expected line {line}: {error}"
    assert str(error).startswith(f"{file}:{line}:"), str(error)


def assert_error_at(excinfo, file: str, snippet: str, *fragments: str):
    """The TraceError points into ``file`` (pass the test's ``__file__``), on a
    line containing ``snippet``, and its message contains every fragment."""
    error = _error(excinfo)
    assert error.location is not None, str(error)
    line = linecache.getline(file, error.location.line)
    assert snippet in line, f"error at line {error.location.line}: {line!r}"
    _assert_located(error, file, error.location.line)
    for fragment in fragments:
        assert fragment in error.message, error.message


def assert_error_at_kernel_line(excinfo, kernel, offset: int, *fragments: str):
    """The TraceError points at line ``offset`` of the jit kernel ``kernel``
    (its decorator is line 0), in the kernel's file, and its message contains
    every fragment."""
    code = kernel.fn.__code__
    error = _error(excinfo)
    _assert_located(error, code.co_filename, code.co_firstlineno + offset)
    for fragment in fragments:
        assert fragment in error.message, error.message


def assert_statement_error(pypto, parameters: str, statement: str, match: str):
    """Traces ``bad(<parameters>)``, a kernel of 8 x 16 vector tiles whose one
    statement is ``r = <statement>``: the TraceError matches ``match`` and is
    located at that statement (line 3 of the kernel, in the file "<bad>")."""
    source = (f"def bad({parameters}):\n"
              "    pypto.set_vec_tile_shapes(8, 16)\n"
              f"    r = {statement}\n")
    scope = {"pypto": pypto}
    exec(compile(source, "<bad>", "exec"), scope)
    kernel = pypto.jit(scope["bad"])
    with pytest.raises(pypto.TraceError, match=match) as info:
        kernel.trace()
    assert_error_at_kernel_line(info, kernel, 2)
