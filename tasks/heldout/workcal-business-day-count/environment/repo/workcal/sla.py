"""Support ticket SLA helpers."""
import datetime as _dt

CUTOFF = _dt.time(17, 0)


def due_date(opened_at, sla_days, calendar):
    """Date by which a ticket opened at datetime *opened_at* must be resolved.

    Tickets opened after the cut-off or on a non-business day start counting
    from the next business day.
    """
    start = opened_at.date()
    if opened_at.time() >= CUTOFF or not calendar.is_business_day(start):
        start = calendar.next_business_day(start + _dt.timedelta(days=1))
    return calendar.add_business_days(start, sla_days)


def days_open(opened_on, today, calendar):
    """Business days a ticket has been open (the opening day counts, today does not)."""
    return calendar.business_days_between(opened_on, today)
