# tests/reliability.mk -- threads, fork, signals and huge sizes; included
# from tests/local.mk.
