"""Page arithmetic. Pages are numbered from 1, as in the API's ``?page=`` parameter."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing."""

    items: list[T]
    number: int
    total_pages: int

    @property
    def has_next(self) -> bool:
        return self.number < self.total_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def page_count(total: int, per_page: int) -> int:
    """Number of pages needed for ``total`` items; an empty listing still has one page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return max(1, math.ceil(total / per_page))


def paginate(items: Sequence[T], page: int = 1, per_page: int = 20) -> Page[T]:
    """Return page number ``page`` (counting from 1) of ``items``."""
    total_pages = page_count(len(items), per_page)
    if page < 1 or page > total_pages:
        raise ValueError(f"page {page} is out of range 1..{total_pages}")
    start = (page - 1) * per_page
    return Page(list(items[start : start + per_page]), page, total_pages)
