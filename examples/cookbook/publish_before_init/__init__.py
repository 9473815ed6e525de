"""Publish before init: an object made visible to other threads before its
fields are set, so a reader can see it half made."""
