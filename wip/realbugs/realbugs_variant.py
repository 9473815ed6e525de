"""Variants of a real-bug case: a library version (or the stdlib) and, per interpreter, whether the bug is there."""
PYTHONS = ("3.11", "3.12", "3.13", "3.13t")


def everywhere(buggy):
    return {python: buggy for python in PYTHONS}


class Variant:
    def __init__(self, label, lib, buggy, entry="setup"):
        self.label, self.lib, self.buggy, self.entry = label, lib, dict(buggy), entry

    @property
    def pythons(self):
        return list(self.buggy)

    def is_buggy(self, python):
        return self.buggy[python]
