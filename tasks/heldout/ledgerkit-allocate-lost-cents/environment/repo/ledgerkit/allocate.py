"""Splitting an amount of cents according to ratios."""


def _check(ratios):
    if not ratios:
        raise ValueError("need at least one ratio")
    if any(r < 0 for r in ratios):
        raise ValueError("ratios must not be negative")
    if sum(ratios) == 0:
        raise ValueError("ratios must not all be zero")


def allocate(total_cents, ratios):
    """Split *total_cents* (int) into len(ratios) integer shares proportional to
    *ratios* (ints or Decimals)."""
    _check(ratios)
    total_ratio = sum(ratios)
    return [round(total_cents * r / total_ratio) for r in ratios]


def split_evenly(total_cents, parts):
    """Split *total_cents* into *parts* equal shares."""
    if parts < 1:
        raise ValueError("parts must be >= 1")
    return allocate(total_cents, [1] * parts)
