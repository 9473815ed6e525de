"""Model of the duplicate-handler race: two threads configure the app's logger
(check-then-add, in handler_app; the handler list lives in
handler_registry_lib) and log one line each. Both may add a handler: every line
is written twice. Each run starts from a fresh logger (the registry is
process-wide: the setup resets it)."""
import handler_app
import handler_registry_lib

NAME = "model.app"


def _setup(scenario, configure):
    logger = handler_registry_lib.get_logger(NAME)
    for handler in list(logger.handlers):
        logger.remove_handler(handler)
    sinks = [], []

    def work(tag, sink):
        configure(NAME, sink).log(f"hello from {tag}")

    scenario.thread(work, "A", sinks[0])
    scenario.thread(work, "B", sinks[1])

    def one_handler():
        assert len(logger.handlers) == 1, f"{len(logger.handlers)} handlers"
        assert sum(map(len, sinks)) == 2, sinks
    return one_handler


def setup(scenario):
    return _setup(scenario, handler_app.configure)


def setup_fixed(scenario):
    return _setup(scenario, handler_app.configure_locked)
