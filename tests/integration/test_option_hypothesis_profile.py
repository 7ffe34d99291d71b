"""``--fusion-hypothesis-profile`` and the ``fusion_hypothesis_profile`` ini key."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
from hypothesis import settings


def test_profile():
    current = settings.default
    print(f"PROFILE={settings.get_current_profile_name()} EXAMPLES={current.max_examples}")
"""


def _profile(pytester: pytest.Pytester, *args: str) -> str:
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", *args)
    result.assert_outcomes(passed=1)
    line = next(line for line in result.outlines if "PROFILE=" in line)
    return line.partition("PROFILE=")[2].split()[0]


@pytest.mark.parametrize(
    ("profile", "examples"),
    [("fusion-ci", 100), ("fusion-dev", 100), ("fusion-thorough", 100_000)],
)
def test_option_loads_the_named_profile(
    pytester: pytest.Pytester, profile: str, examples: int
) -> None:
    """The option loads its profile, with that profile's example count."""
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess(
        "-s", "-p", "no:cacheprovider", f"--fusion-hypothesis-profile={profile}"
    )
    result.stdout.fnmatch_lines([f"*PROFILE={profile} EXAMPLES={examples}"])


def test_ini_key_loads_a_profile_and_the_option_wins(pytester: pytest.Pytester) -> None:
    """The ini key picks the profile; the command-line option overrides it."""
    pytester.makeini("[pytest]\nfusion_hypothesis_profile = fusion-thorough\n")
    assert _profile(pytester) == "fusion-thorough"
    assert _profile(pytester, "--fusion-hypothesis-profile=fusion-dev") == "fusion-dev"


@pytest.mark.parametrize(("ci", "expected"), [("true", "fusion-ci"), ("", "fusion-dev"),
                                               ("false", "fusion-dev")])  # fmt: skip
def test_auto_picks_ci_on_a_ci_machine(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, expected: str
) -> None:
    """``auto`` is fusion-ci when CI is set (not to false), else fusion-dev."""
    monkeypatch.setenv("CI", ci)
    pytester.makeini("[pytest]\nfusion_hypothesis_profile = auto\n")
    assert _profile(pytester) == expected


def test_hypothesis_own_option_can_name_a_fusion_profile(pytester: pytest.Pytester) -> None:
    """``--hypothesis-profile=fusion-ci`` works, and beats the ini key."""
    pytester.makeini("[pytest]\nfusion_hypothesis_profile = fusion-thorough\n")
    assert _profile(pytester, "--hypothesis-profile=fusion-ci") == "fusion-ci"


def test_without_option_or_ini_hypothesis_settings_are_left_alone(
    pytester: pytest.Pytester,
) -> None:
    """A suite that asks for no Fusion profile keeps hypothesis's own default."""
    pytester.makeini("[pytest]\n")
    assert _profile(pytester) in ("default", "ci")


def test_unknown_ini_profile_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """A misspelt ini value stops the run with a message naming the known profiles."""
    pytester.makeini("[pytest]\nfusion_hypothesis_profile = fusion-fast\n")
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'fusion-fast'*fusion-ci, fusion-dev, fusion-thorough, auto*"])


def test_the_profiles_register_when_hypothesis_is_imported() -> None:
    """The entry point registers them when hypothesis is imported: no pytest run needed."""
    code = (
        "import sys\n"
        "from hypothesis import settings\n"
        "assert 'pytest_mcpfusion.plugin' not in sys.modules\n"
        "print(settings.get_profile('fusion-ci').derandomize, "
        "settings.get_profile('fusion-thorough').max_examples)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["True", "100000"]


def test_hypothesis_own_option_works_with_its_entry_points_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HYPOTHESIS_NO_PLUGINS the plugin registers the profiles before hypothesis loads one."""
    monkeypatch.setenv("HYPOTHESIS_NO_PLUGINS", "1")
    assert _profile(pytester, "--hypothesis-profile=fusion-ci") == "fusion-ci"


def test_a_run_without_hypothesis_in_use_does_not_import_it(pytester: pytest.Pytester) -> None:
    """Registering the profiles no longer imports hypothesis in every pytest run."""
    pytester.makepyfile(
        test_plain="""
        import sys


        def test_plain():
            assert "hypothesis" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)
