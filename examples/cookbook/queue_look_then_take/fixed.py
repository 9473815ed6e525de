"""Consumers of a bounded ``queue.Queue`` that take, or learn there was nothing."""

import queue


def produce(jobs: queue.Queue, job: object) -> None:
    """Put *job* in the queue, waiting while it is full."""
    jobs.put(job)


def consume(jobs: queue.Queue) -> object:
    """Take the next job, or ``None`` when there is none."""
    try:
        return jobs.get_nowait()  # the look and the take are one critical section
    except queue.Empty:
        return None
