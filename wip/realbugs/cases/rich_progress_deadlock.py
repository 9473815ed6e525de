"""rich: a Progress shown in a Live display deadlocks when a task is added while
the Live refreshes.

Bug: https://github.com/Textualize/rich/issues/1061 ("[BUG] deadlock in
process_renderables": a Progress inside a Live, worker threads updating it;
a thread blocks on the Live's lock in ``Live.process_renderables``). CHANGELOG
9.12.1: "Fixed deadlock in Progress https://github.com/textualize/rich/issues/1061".
In 9.12.0 ``Progress.add_task`` (and ``update(refresh=True)``, ``reset``) call
``self.refresh()`` while holding the Progress's RLock; the refresh prints through
the console, whose render hook is the Live's ``process_renderables``, which takes
the Live's lock. A ``Live.refresh()`` holds the Live's lock while the console
renders the Live's renderable, the Progress, whose ``get_renderable`` takes the
Progress's lock (``Progress.tasks``). Lock order Progress -> Live in one thread,
Live -> Progress in the other: deadlock. 9.12.1 refreshes after releasing the
Progress's lock.

Thread "worker" adds a task; thread "display" refreshes the Live (what the Live's
auto-refresh thread does; here ``auto_refresh=False`` and a scenario thread
calls the public ``Live.refresh()``). The console writes to a StringIO but is
forced to be a terminal (the interactive path of the issue); no stdout
redirection. Each run makes its own console, Progress and Live: no module state.
"""
import io

import rich
from rich.console import Console
from rich.live import Live
from rich.progress import Progress

from realbugs_variant import Variant, everywhere

BUG = "https://github.com/Textualize/rich/issues/1061 (CHANGELOG 9.12.1 'Fixed deadlock in Progress')"
VARIANTS = [Variant("rich 9.12.0", "rich-9.12.0", everywhere(True)),
            Variant("rich 9.12.1", "rich-9.12.1", everywhere(False))]


def LIB_FILE():
    return rich.__file__


class CountProgress(Progress):
    """A one-line display: the documented way to change what a Progress shows is
    to override ``get_renderables``; this one reads ``self.tasks`` (the
    Progress's lock) as the default table does, and renders a short string
    instead of a table (a smaller run)."""

    def get_renderables(self):
        yield f"{len(self.tasks)} task(s)"


def setup(scenario):
    console = Console(file=io.StringIO(), force_terminal=True, width=40, height=5, color_system=None)
    progress = CountProgress(console=console, auto_refresh=False)
    live = Live(progress, console=console, auto_refresh=False,
                redirect_stdout=False, redirect_stderr=False)
    live.start()
    done = []

    def worker():
        progress.add_task("download", total=10)
        done.append("worker")

    def display():
        live.refresh()
        done.append("display")

    scenario.thread(worker)
    scenario.thread(display)

    def both_done():
        assert sorted(done) == ["display", "worker"], done
        assert len(progress.tasks) == 1, progress.tasks
    return both_done
