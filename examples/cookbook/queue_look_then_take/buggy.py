"""Consumers of a bounded ``queue.Queue`` that look before they take."""

import queue


def produce(jobs: queue.Queue, job: object) -> None:
    """Put *job* in the queue, waiting while it is full."""
    jobs.put(job)


def consume(jobs: queue.Queue) -> object:
    """Take the next job, or ``None`` when there is none."""
    if jobs.empty():
        return None
    # Another consumer can take the job between the look and the take.
    return jobs.get_nowait()
