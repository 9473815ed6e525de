"""A stack of pending jobs that idle workers take from, with no lock."""


class JobStack:
    """Jobs pushed by producers, taken by workers, last in first out."""

    def __init__(self, jobs: list[str]) -> None:
        self.jobs = list(jobs)

    def take(self) -> str | None:
        """The newest job, or ``None`` when there is none."""
        if len(self.jobs):
            # Another worker can take the last job between the check and the pop.
            return self.jobs.pop()
        return None
