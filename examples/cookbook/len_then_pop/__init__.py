"""Look-then-pop on a list: ``if len(stack): stack.pop()`` lets two threads
see the same last item, and the second pop finds the list empty."""
