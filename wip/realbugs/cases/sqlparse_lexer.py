"""sqlparse: the default Lexer built by two first calls at once.

Bug: sqlparse CHANGELOG 0.5.0, Bug Fixes: "Thread-safe initialization of Lexer
class (issue730)". In 0.4.4 ``Lexer.get_default_instance()`` (which every
``sqlparse.parse``/``format``/``split`` goes through) publishes the singleton
before it is initialized::

    if cls._default_intance is None:
        cls._default_intance = cls()
        cls._default_intance.default_initialization()
    return cls._default_intance

A second first caller that comes in between gets a lexer with no syntax yet:
``default_initialization`` has not run (``_SQL_REGEX`` is not even set:
AttributeError) or has run part way (the regexes set, no keyword dictionary
yet: ``SELECT`` comes out as a plain name). 0.5.0 does the check, the creation
and the initialization under a class-level ``threading.Lock``.

Both threads tokenize the same statement with the public ``sqlparse.lexer.tokenize``
and each must get the tokens a single-threaded call gets. The singleton is
module state: the setup drops it (``_default_intance`` in 0.4.4,
``_default_instance`` in 0.5.0) so that each run's first calls build it.
"""
import sqlparse
import sqlparse.lexer
from sqlparse.lexer import Lexer

from realbugs_variant import Variant, everywhere

BUG = "sqlparse CHANGELOG 0.5.0: 'Thread-safe initialization of Lexer class (issue730)'"
VARIANTS = [Variant("sqlparse 0.4.4", "sqlparse-0.4.4", everywhere(True)),
            Variant("sqlparse 0.5.0", "sqlparse-0.5.0", everywhere(False))]

STATEMENT = "select a"
EXPECTED = [(str(kind), text) for kind, text in sqlparse.lexer.tokenize(STATEMENT)]


def LIB_FILE():
    return sqlparse.__file__


def setup(scenario):
    for name in ("_default_intance", "_default_instance"):  # 0.4.4's spelling, 0.5.0's
        if name in vars(Lexer):
            setattr(Lexer, name, None)
    tokens = {}

    def tokenizer(tag):
        tokens[tag] = [(str(kind), text) for kind, text in sqlparse.lexer.tokenize(STATEMENT)]

    scenario.thread(tokenizer, "A")
    scenario.thread(tokenizer, "B")

    def same_tokens():
        for tag in ("A", "B"):
            assert tokens.get(tag) == EXPECTED, f"{tag} tokenized {STATEMENT!r} as {tokens.get(tag)}, not {EXPECTED}"
    return same_tokens
