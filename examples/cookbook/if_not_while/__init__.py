"""``if`` instead of ``while`` around ``Condition.wait``: a woken consumer
takes for granted what another consumer may already have taken."""
