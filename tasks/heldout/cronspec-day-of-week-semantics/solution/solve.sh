#!/bin/bash
set -e
cd /app/cronspec
# step: OR-combine day-of-month and day-of-week when both are restricted (record which fields are '*')
python3 - <<'PY'
p = "cronspec/schedule.py"
s = open(p).read()
s = s.replace("""    weekdays: tuple    # 0-6, 0 = Sunday
""", """    weekdays: tuple    # 0-6, 0 = Sunday
    dom_star: bool = False
    dow_star: bool = False
""")
s = s.replace("""        return d.day in self.days and cron_dow in self.weekdays
""", """        dom_ok = d.day in self.days
        dow_ok = cron_dow in self.weekdays
        if self.dom_star or self.dow_star:
            return dom_ok and dow_ok
        return dom_ok or dow_ok
""")
s = s.replace("""        weekdays=tuple(parse_field(dow, 0, 6, DAYS, what="day-of-week")),
    )""", """        weekdays=tuple(parse_field(dow, 0, 6, DAYS, what="day-of-week")),
        dom_star=dom == "*",
        dow_star=dow == "*",
    )""")
open(p, "w").write(s)
PY
cat > tests/test_dom_dow_or.py <<'PY'
import unittest
from datetime import datetime

import cronspec


class DomDowOr(unittest.TestCase):
    def test_first_or_monday(self):
        spec = cronspec.parse("30 8 1 * 1")
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 5, 27, 9)), datetime(2024, 6, 1, 8, 30))
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 6, 1, 9)), datetime(2024, 6, 3, 8, 30))


if __name__ == "__main__":
    unittest.main()
PY
python3 -m unittest discover -s tests -t .
# step[easy-to-miss]: accept 7 as Sunday in day-of-week values, lists, ranges and steps (parse 0-7, then fold 7 into 0)
python3 - <<'PY'
p = "cronspec/schedule.py"
s = open(p).read()
s = s.replace("""        weekdays=tuple(parse_field(dow, 0, 6, DAYS, what="day-of-week")),""",
              """        weekdays=tuple(sorted({v % 7 for v in parse_field(dow, 0, 7, DAYS, what="day-of-week")})),""")
open(p, "w").write(s)
PY
cat > tests/test_sunday_seven.py <<'PY'
import unittest
from datetime import datetime

import cronspec


class SundaySeven(unittest.TestCase):
    def test_seven(self):
        self.assertEqual(cronspec.parse("0 9 * * 7").weekdays, (0,))

    def test_range_to_seven(self):
        spec = cronspec.parse("0 9 * * 5-7")
        self.assertEqual(spec.weekdays, (0, 5, 6))
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 5, 4, 10)), datetime(2024, 5, 5, 9))

    def test_eight_invalid(self):
        with self.assertRaises(cronspec.CronError):
            cronspec.parse("0 9 * * 8")


if __name__ == "__main__":
    unittest.main()
PY
python3 -m unittest discover -s tests -t .
