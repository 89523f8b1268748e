"""Helpers every app's tests share (one of each): the hardware catalogue's seed."""
