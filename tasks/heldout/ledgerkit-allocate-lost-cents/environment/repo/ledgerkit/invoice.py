"""Splitting supplier invoices between cost centres."""
from .allocate import allocate
from .money import parse_amount


def split_invoice(lines, shares):
    """lines: [(description, amount_text)], shares: {cost_centre: ratio}.

    Returns {cost_centre: total cents}; every line is split separately so the
    per-line postings add up to the line amounts.
    """
    centres = sorted(shares)
    ratios = [shares[c] for c in centres]
    totals = dict.fromkeys(centres, 0)
    for _description, amount in lines:
        for centre, part in zip(centres, allocate(parse_amount(amount), ratios)):
            totals[centre] += part
    return totals
