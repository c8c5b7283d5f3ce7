"""The archive: a static web site of every game (``pbem archive build DIR``)."""
