"""blanket's benchmarks (not tests): ``python -m bench`` or ``make bench``.

:mod:`bench.measure` makes the measurements, using only blanket 1.0's
documented API so it can measure blanket 1.0 too; :mod:`bench.__main__`
interleaves them, compares each figure with its target from issue #7 and
prints the table.
"""
