# tests/local.mk -- test suites, included from Makefile.am.

include tests/config.mk
