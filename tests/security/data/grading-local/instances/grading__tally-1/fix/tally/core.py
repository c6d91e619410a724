def tally(items):
    """A dict of item -> number of occurrences, in first-seen order."""
    counts = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def most_common(items, n=None):
    """The ``n`` most common items with their counts, most common first (ties in first-seen
    order); all of them when ``n`` is None."""
    ranked = sorted(tally(items).items(), key=lambda pair: pair[1], reverse=True)
    return ranked if n is None else ranked[:n]
