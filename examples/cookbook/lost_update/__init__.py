"""A lost update: ``self.count += 1`` reads the count and writes it back, and
another thread can read the same count in between."""
