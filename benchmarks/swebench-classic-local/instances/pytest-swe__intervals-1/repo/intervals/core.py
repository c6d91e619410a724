"""Merging closed intervals given as (start, end) pairs."""

from __future__ import annotations

Interval = tuple[int, int]


def merge(intervals: list[Interval]) -> list[Interval]:
    """The union of ``intervals`` as a sorted list of disjoint intervals.

    Intervals that overlap or touch (``(1, 2)`` and ``(2, 4)``) become one.
    """
    for start, end in intervals:
        if start > end:
            raise ValueError(f"interval ({start}, {end}) ends before it starts")
    merged: list[Interval] = []
    for start, end in intervals:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def total_length(intervals: list[Interval]) -> int:
    """How much of the line the intervals cover together."""
    return sum(end - start for start, end in merge(intervals))
