"""Linearizability checking of a concurrent object: is my class thread-safe?

:func:`~blanket.check_linearizable` (:mod:`blanket.linearizability.check`)
draws scenarios of operations on the object (:mod:`blanket.linearizability.scenarios`),
explores each with :func:`blanket.explore`, and checks every history the
runs give against a sequential specification
(:mod:`blanket.linearizability.history`); a failure is minimized and
reported with a test replaying it (:mod:`blanket.linearizability.report`).
The operations and their descriptions are :mod:`blanket.linearizability.operations`'.

This ``__init__`` imports nothing: ``blanket`` exports the public names.
"""
