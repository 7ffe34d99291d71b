"""A server that cannot start, or an app that does not load: a usage error of a few lines.

pytest's own usage errors end with exit code 4 and one ``ERROR:`` paragraph;
so does a ``--fusion`` run whose app or server cannot be reached, naming the
command or import path and repeating the server's last stderr lines.

Runs are in process (a pytest subprocess costs seconds of start-up and adds
nothing to a usage error) except under xdist and where a server command is
started: a server that cannot start leaves its stderr file and a pipe
unclosed (a ResourceWarning, an error in process under ``filterwarnings =
error``), which a subprocess hides.
"""

from __future__ import annotations

import sys

import pytest

DIES = "import sys\nsys.stderr.write('config error: MY_API_KEY is not set\\n')\nsys.exit(3)\n"


def _short(result: pytest.RunResult) -> str:
    """All of the run's output, which must be a few lines without any traceback."""
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
    assert len(output.splitlines()) < 15, output
    return output


def test_a_command_that_does_not_start(pytester: pytest.Pytester) -> None:
    """``--fusion-server=false``: exit code 4, naming the command."""
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.runpytest_subprocess("--fusion", "--fusion-server=false")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = _short(result)
    assert "could not start the MCP server 'false'" in output


def test_a_program_that_does_not_exist(pytester: pytest.Pytester) -> None:
    """A missing program is named as such."""
    result = pytester.runpytest_subprocess("--fusion", "--fusion-server=no-such-server --stdio")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "No such file or directory: 'no-such-server'" in _short(result)


def test_a_server_that_exits_shows_its_stderr(pytester: pytest.Pytester) -> None:
    """The server's last stderr lines say why it stopped."""
    pytester.makepyfile(dies=DIES)
    result = pytester.runpytest_subprocess("--fusion", f"--fusion-server={sys.executable} dies.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = _short(result)
    assert "dies.py" in output
    assert "it exited with code 3 before answering\n" in output
    assert "Connection closed" not in output  # the SDK's words for it, no longer appended
    assert output.count("| config error: MY_API_KEY is not set") == 1  # the client's tail, once


def test_a_server_killed_at_start_names_the_signal(pytester: pytest.Pytester) -> None:
    """A server killed by a signal while starting: exit code 4, the signal named."""
    pytester.makepyfile(killed="import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    server = f"--fusion-server={sys.executable} killed.py"
    result = pytester.runpytest_subprocess("--fusion", server)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "it was killed by signal SIGKILL (9) before answering" in _short(result)


def test_a_bad_app_spec(shop: pytest.Pytester) -> None:
    """``--fusion-app`` naming nothing: exit code 4, naming the import path."""
    result = shop.runpytest("--fusion", "--fusion-app=shop:nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--fusion-app=shop:nope" in _short(result)


def test_an_app_whose_module_raises(pytester: pytest.Pytester) -> None:
    """An exception while importing the app: exit code 4, naming it and where it was raised."""
    pytester.makepyfile(broken="raise RuntimeError('DATABASE_URL is not set')\n")
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion", "--fusion-app=broken:app")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = _short(result)
    assert "--fusion-app=broken:app: importing it raised RuntimeError: DATABASE_URL" in output
    assert "broken.py:1)" in output


def test_a_bad_app_spec_under_xdist(shop: pytest.Pytester) -> None:
    """The controller reports it before any worker starts."""
    result = shop.runpytest_subprocess(
        "--fusion", "--fusion-app=nowhere.at.all:app", "-p", "xdist", "-n", "2"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--fusion-app=nowhere.at.all:app" in _short(result)


def test_without_the_gate_each_call_fails_in_a_few_lines(pytester: pytest.Pytester) -> None:
    """Without ``--fusion`` the tests that call the server error in short; the others run."""
    pytester.makepyfile(
        test_calls="def test_call(fusion_call):\n    fusion_call('x')\n\n\n"
        "def test_other():\n    pass\n"
    )
    result = pytester.runpytest_subprocess("--fusion-server=false", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1, passed=1)
    result.stdout.fnmatch_lines(["could not start the MCP server 'false'*"])
    assert "Traceback" not in result.stdout.str()


def test_an_app_that_does_not_load_is_tried_once_and_fails_every_call_test(
    pytester: pytest.Pytester,
) -> None:
    """Without the gate an app whose module raises errors each calling test, imported once."""
    pytester.makepyfile(
        broken="import pathlib\n"
        "with pathlib.Path('imports.log').open('a') as log:\n"
        "    log.write('imported\\n')\n"
        "raise RuntimeError('DATABASE_URL is not set')\n",
        test_calls="def test_one(fusion_call):\n    fusion_call('x')\n\n\n"
        "def test_two(fusion_call_async):\n    pass\n\n\n"
        "def test_other():\n    pass\n",
    )
    pytester.syspathinsert()
    result = pytester.runpytest("--fusion-app=broken:app", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "ERROR test_calls.py::test_one - RuntimeError: DATABASE_URL is not set",
            "ERROR test_calls.py::test_two - RuntimeError: DATABASE_URL is not set",
        ]
    )
    assert pytester.path.joinpath("imports.log").read_text() == "imported\n"
