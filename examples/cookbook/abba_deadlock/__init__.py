"""An ABBA deadlock: two threads take the same two locks in opposite orders;
blanket reports who holds what and waits for what, instead of hanging."""
