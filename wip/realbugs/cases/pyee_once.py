"""pyee: a ``once`` listener fired by two concurrent emits.

Bug: https://github.com/jfhbrook/pyee/issues/76 (fix: PR #77, released in 8.1.0,
a ``threading.Lock`` made in ``EventEmitter.__init__`` around the listener table,
and the once-wrapper checks the listener is still there before removing it).
In 8.0.1 both emits copy the listener list, both call the once-wrapper; the
second wrapper's ``remove_listener`` raises KeyError (``OrderedDict.pop``).
"""
import pyee
from pyee import EventEmitter

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/jfhbrook/pyee/issues/76"
VARIANTS = [Variant("pyee 8.0.1", "pyee-8.0.1", everywhere(True)),
            Variant("pyee 8.1.0", "pyee-8.1.0", everywhere(False))]


def LIB_FILE():
    return pyee.__file__


def setup(scenario):
    emitter = EventEmitter()
    calls = []

    @emitter.once("ping")
    def on_ping():
        calls.append("ping")

    scenario.thread(emitter.emit, "ping")
    scenario.thread(emitter.emit, "ping")

    def called_once():
        assert calls == ["ping"], f"once-listener called {len(calls)} times"
    return called_once
