"""dateutil.tz.tzical: two threads ask one iCalendar time zone for an offset.

Bug: https://github.com/dateutil/dateutil/issues/428 ("tzical is not thread-safe":
IndexError: list index out of range in ``_find_comp``), fixed by PR #430 in 2.7.0
(NEWS: "Added a lock to tz.tzical's cache"). In 2.6.1 ``_find_comp`` caches the
last answers in two parallel lists, ``_cachedate.insert(0, ...)`` then
``_cachecomp.insert(0, ...)``, with no lock: a second thread looking the same
date up in between finds it in ``_cachedate`` and indexes ``_cachecomp``, still
empty (IndexError) or holding another date's answer (a wrong offset).
"""
import datetime
import io

import dateutil
from dateutil import tz

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/dateutil/dateutil/issues/428 (fix PR #430, NEWS 2.7.0: 'Added a lock to tz.tzical's cache')"
VARIANTS = [Variant("python-dateutil 2.6.1", "python-dateutil-2.6.1", everywhere(True)),
            Variant("python-dateutil 2.7.0", "python-dateutil-2.7.0", everywhere(False))]

VTIMEZONE = """BEGIN:VTIMEZONE
TZID:US-Eastern
BEGIN:STANDARD
DTSTART:20021027T020000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:20020407T020000
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
END:DAYLIGHT
END:VTIMEZONE
"""


def LIB_FILE():
    return dateutil.__file__


def setup(scenario):
    eastern = tz.tzical(io.StringIO(VTIMEZONE)).get()
    when = datetime.datetime(2003, 7, 1, 12, 0, tzinfo=eastern)
    got = {}

    def offset(tag):
        got[tag] = when.utcoffset()

    scenario.thread(offset, "A")
    scenario.thread(offset, "B")

    def summer_time():
        edt = datetime.timedelta(hours=-4)
        assert got == {"A": edt, "B": edt}, got
    return summer_time
