"""Library code with the thread-safety bugs of released packages, each beside
its fix, written the way those packages wrote them (no blanket in sight): the
code the setups of tests/shipped_bugs.py call, as users' tests call a library
they did not write. Each module names the released bug it is modelled on."""
