"""Amounts are handled as integer cents everywhere."""
from decimal import Decimal, InvalidOperation


def parse_amount(text):
    """'12.34' -> 1234, '-0.5' -> -50. More than two decimals is an error."""
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    cents = value * 100
    if cents != cents.to_integral_value():
        raise ValueError(f"more than two decimals: {text!r}")
    return int(cents)


def format_cents(cents):
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole}.{frac:02d}"
