"""What the API refuses before doing any work: bodies over the size cap (413 ``body_too_large``, before
parsing) and page numbers written with anything but ASCII digits (400, never a 500)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/bets/", "/api/wallet/ledger/"])
@pytest.mark.parametrize("name", ["page", "page_size"])
@pytest.mark.parametrize("value", ["²", "①", "٣", "１", "1" * 5000, "-1", "1.0", ""])
def test_a_page_or_page_size_that_is_not_ascii_digits_is_400_with_code_and_detail(
    player, client_for, path, name, value
):
    response = client_for(player("alice")).get(path, {name: value})
    assert response.status_code == 400, response.content[:200]
    body = response.json()
    assert body["code"] == "invalid_request"
    assert name in body["detail"]


def test_ascii_page_numbers_still_work(player, client_for):
    client = client_for(player("alice"))
    assert client.get("/api/wallet/ledger/", {"page": "1", "page_size": "200"}).status_code == 200
    assert client.get("/api/bets/", {"page": "000000000000000001"}).status_code == 200
