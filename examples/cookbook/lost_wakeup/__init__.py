"""Lost wakeup: a notify sent before anyone waits wakes nobody, and the
consumer that waits afterwards sleeps forever."""
