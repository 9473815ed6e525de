"""The audit of a class's thread safety, with no test code: is this class
thread-safe?

:func:`blanket.audit` (:mod:`blanket.audit.run`) infers the operations a
class offers (:mod:`blanket.audit.infer`: its public methods, properties and
protocols, each called with arguments drawn from small domains that collide,
:mod:`blanket.audit.domains`; what cannot be called safely set aside, with
why), checks every pair of them with
:func:`~blanket.check_linearizable` within a budget shared fairly among the
pairs, and says per pair whether it is linearizable, what was not checked
and why (:mod:`blanket.audit.report`); each failure comes with a test that
replays it. The operations it calls are :mod:`blanket.audit.operations`'.

This ``__init__`` imports nothing: ``blanket`` exports :func:`blanket.audit`.
"""
