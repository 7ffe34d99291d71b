"""Every option and ini key parsed once, at configure: a bad value names its key and the choices."""

from __future__ import annotations

import dataclasses

import pytest

from fusion_core._mcp import _client
from pytest_mcpfusion import _options

BAD_INI = [
    ("fusion_isolate", "sometimes", "the ini key fusion_isolate must be session or test"),
    ("fusion_level", "strict", "the ini key fusion_level must be fusion or mcp"),
    ("fusion_pending", "maybe", "the ini key fusion_pending must be true or false"),
    ("fusion_strict", "perhaps", "the ini key fusion_strict must be true or false"),
    ("fusion_check_references", "nah", "the ini key fusion_check_references must be true or false"),
    ("fusion_examples", "many", "the ini key fusion_examples must be a whole number, 1 or more"),
    ("fusion_examples", "0", "the ini key fusion_examples must be a whole number, 1 or more"),
    ("fusion_timeout", "soon", "the ini key fusion_timeout must be a number: 0 (no limit) or more"),
    ("fusion_timeout", "-1", "the ini key fusion_timeout must be a number: 0 (no limit) or more"),
    (
        "fusion_max_response_bytes",
        "1.5",
        "the ini key fusion_max_response_bytes must be a whole number: 0 (no limit) or more",
    ),
    ("fusion_hypothesis_profile", "fast", "fusion_hypothesis_profile: unknown Fusion hypothesis*"),
]


@pytest.mark.parametrize(
    ("key", "value", "message"), BAD_INI, ids=[f"{k}={v}" for k, v, _ in BAD_INI]
)
def test_a_bad_ini_value_fails_at_configure_naming_the_key(
    pytester: pytest.Pytester, key: str, value: str, message: str
) -> None:
    """Exit 4 (usage error) before any test runs, with the key, the value and what it may be."""
    pytester.makeini(f"[pytest]\n{key} = {value}\n")
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}*"])
    assert "Traceback" not in result.stderr.str()


def test_a_negative_limit_on_the_command_line_names_the_option(pytester: pytest.Pytester) -> None:
    """The range of a number given on the command line is checked too, naming the option."""
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--fusion-examples=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --fusion-examples must be a whole number, 1 or more*"])


def test_the_command_line_wins_over_the_ini_file(pytester: pytest.Pytester) -> None:
    """One object holds the session's settings, the option over the key, read once."""
    pytester.makeini(
        "[pytest]\nfusion_isolate = test\nfusion_examples = 3\nfusion_timeout = 0\n"
        "fusion_allow_writes =\n    billing.*\n"
    )
    pytester.makeconftest(
        """
        from pytest_mcpfusion import _options


        def pytest_sessionfinish(session):
            options = _options.options_of(session.config)
            print(
                f"\\nisolate={options.isolate} examples={options.examples} "
                f"timeout={options.timeout} writes={options.allow_writes} "
                f"transport={options.transport_name}"
            )
        """
    )
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-s",
        "--fusion-isolate=session",
        "--fusion-allow-writes=shop.*",
        "--fusion-server=http://127.0.0.1:9/mcp",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [("isolate=session examples=3 timeout=None writes=('billing.*', 'shop.*') transport=http")]
    )


def test_the_options_object_is_frozen_and_slotted() -> None:
    """No reader can change a setting under another's feet, or add one by a typo."""
    assert dataclasses.is_dataclass(_options.FusionOptions)
    assert "__slots__" in vars(_options.FusionOptions)
    params = _options.FusionOptions.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen


def test_the_plugin_s_defaults_are_the_client_s() -> None:
    """The limits' defaults are spelled in _options (cheap to import) and equal the client's."""
    assert _options.DEFAULT_TIMEOUT == _client.DEFAULT_TIMEOUT
    assert _options.DEFAULT_MAX_RESPONSE_BYTES == _client.DEFAULT_MAX_RESPONSE_BYTES
