"""logging.config (control, no known bug): the setup configures logging with
dictConfig (process-wide state, handlers replaced every run) and two threads
log through it. Expected: no failure; the question is what blanket says
(issue 21 saw dfs stop with "the scenario is not deterministic ... at step 1").
"""
import io
import logging
import logging.config

from realbugs_variant import Variant, everywhere

BUG = "(control) https://docs.python.org/3/library/logging.html#thread-safety"
VARIANTS = [Variant("stdlib", None, everywhere(False))]
stream_holder = {}


def LIB_FILE():
    return logging.config.__file__


def setup(scenario):
    stream = io.StringIO()
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(message)s"}},
        "handlers": {"mem": {"class": "logging.StreamHandler", "stream": stream,
                             "formatter": "plain"}},
        "loggers": {"realbugs.cfg": {"handlers": ["mem"], "level": "INFO",
                                     "propagate": False}},
    })
    logger = logging.getLogger("realbugs.cfg")

    def work(tag):
        logger.info("line %s", tag)

    scenario.thread(work, "A")
    scenario.thread(work, "B")

    def both_logged():
        assert sorted(stream.getvalue().splitlines()) == ["line A", "line B"], stream.getvalue()
    return both_logged
