"""Two packages, ``one`` and ``two``, each with a module ``counter.py``
whose update is on the same line: steps at data races tell them apart."""
