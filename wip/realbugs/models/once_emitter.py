"""Model of pyee #76 (8.0.1): two threads emit an event with one ``once``
listener; the second wrapper's ``OrderedDict.pop`` raises KeyError (or, where
the pops interleave otherwise, the listener runs twice)."""
import once_emitter_lib


def _setup(scenario, kind):
    emitter = kind()
    calls = []
    emitter.once("ping", lambda: calls.append("ping"))
    scenario.thread(emitter.emit, "ping")
    scenario.thread(emitter.emit, "ping")

    def called_once():
        assert calls == ["ping"], calls
    return called_once


def setup(scenario):
    return _setup(scenario, once_emitter_lib.Emitter)


def setup_fixed(scenario):
    return _setup(scenario, once_emitter_lib.LockedEmitter)
