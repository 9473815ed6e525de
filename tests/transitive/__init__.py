"""Code the threads of tests/test_explore_transitive.py call into, as a
program calls into its helpers and libraries: nothing here is named to
blanket (no ``scenario.instrument``); an exploration watches it because the
threads run it."""
