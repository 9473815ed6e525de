"""Check-then-insert on a dict: ``if key not in d: d[key] = make()`` lets two
threads both miss and both make the value."""
