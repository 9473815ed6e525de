"""A broken Barrier taken for an open one: after a timeout or an abort the
workers carry on as if every party had arrived."""
