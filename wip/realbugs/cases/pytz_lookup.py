"""pytz.timezone: two threads make the first time zone lookup of a process.

Bug: https://github.com/stub42/pytz/issues/95 (2022.7: "NameError:
'_all_timezones_unchecked' is not defined"; the maintainer: "_case_insensitive_zone_lookup
is no longer thread safe ... if multiple threads attempt the first timezone lookup
at the same time"), fixed in 2022.7.1 by no longer deleting the global.
In 2022.7 the first lookup builds ``_all_timezones_lower_to_standard`` from
``_all_timezones_unchecked`` and then ``del``s that global: a second thread that
also saw the table unbuilt reads the deleted name (NameError).
Each run starts from the state of a fresh process: the setup puts back
``_all_timezones_unchecked`` (kept at import) and sets ``_all_timezones_lower_to_standard``
to None; ``all_timezones_set`` is filled before the threads. (``importlib.reload(pytz)``
did the same but made every run slow under blanket: no result in 200 s.)
The threads look up a name pytz does not have, so that each run is the lookup and
not the building of a tzinfo from its file: UnknownTimeZoneError is the answer.
"""
import pytz

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/stub42/pytz/issues/95 (fixed in 2022.7.1)"
VARIANTS = [Variant("pytz 2022.7", "pytz-2022.7", everywhere(True)),
            Variant("pytz 2022.7.1", "pytz-2022.7.1", everywhere(False))]


_UNCHECKED = pytz._all_timezones_unchecked  # before any lookup, as at import


def LIB_FILE():
    return pytz.__file__


def setup(scenario):
    fresh = pytz
    fresh._all_timezones_unchecked = _UNCHECKED
    fresh._all_timezones_lower_to_standard = None
    "Europe/Paris" in fresh.all_timezones_set  # fills the lazy set here, not in the threads
    got = {}

    def lookup(tag):
        try:
            fresh.timezone("Europe/Nowhere")
        except fresh.UnknownTimeZoneError:
            got[tag] = "unknown"

    scenario.thread(lookup, "A")
    scenario.thread(lookup, "B")

    def both_answered():
        assert got == {"A": "unknown", "B": "unknown"}, got
    return both_answered
