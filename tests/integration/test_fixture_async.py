"""``fusion_call_async``: the same calls from async tests (anyio's pytest plugin)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("transport", ["inproc", "stdio"])
def test_async_twin(shop: pytest.Pytester, transport: str) -> None:
    """Awaited calls return the same results as the sync fixture."""
    shop.makepyfile(
        test_async="""
import pytest


@pytest.mark.anyio
async def test_get(fusion_call_async):
    result = await fusion_call_async("billing", "get", id="INV-1")
    assert result.data == {"id": "INV-1", "amount_cents": 4500, "status": "paid"}


@pytest.fixture
def anyio_backend():
    return "asyncio"
"""
    )
    result = shop.runpytest(
        "--fusion-app=shop:app", f"--fusion-transport={transport}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1)
