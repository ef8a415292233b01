"""ledgerkit - money helpers for splitting shared costs between cost centres."""
from .money import format_cents, parse_amount
from .allocate import allocate, split_evenly
from .invoice import split_invoice

__all__ = ["format_cents", "parse_amount", "allocate", "split_evenly", "split_invoice"]
