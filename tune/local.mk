# tune/local.mk -- memasm-tune, the install-time tuner; included from
# Makefile.am.
#
# memasm-tune measures with the engine memasm-bench uses (bench/engine.c)
# and writes the file with the library's own writer, which is internal, so
# it links libmemasm statically (as memasm-info does) and tunes exactly the
# library it was built with.
#
#   make tune                  run it here: writes ./memasm.conf
#   make tune TUNE_FLAGS=--quick   (or --threads N, --objective stream, ...)
#   make install               also installs ./memasm.conf, when there is
#                              one, as $(sysconfdir)/memasm.conf

bin_PROGRAMS += memasm-tune
memasm_tune_SOURCES = \
	tune/memasm-tune.c \
	tune/crossover.c \
	tune/crossover.h \
	tune/tunefile.c \
	tune/tunefile.h \
	bench/engine.c \
	bench/engine.h \
	bench/harness.c \
	bench/harness.h \
	bench/tables.h \
	c/xoshiro.h
nodist_memasm_tune_SOURCES = bench/tables.c
memasm_tune_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench $(CPU_FEATURES_CPPFLAGS)
memasm_tune_LDFLAGS = -static
memasm_tune_LDADD = libmemasm.la -lpthread -lm

dist_man_MANS += doc/memasm-tune.1
EXTRA_DIST += tune/README.md doc/tuning-x86_64.md

TUNE_FLAGS =
TUNE_OUTPUT = memasm.conf
tune: memasm-tune$(EXEEXT)
	./memasm-tune$(EXEEXT) --output $(TUNE_OUTPUT) $(TUNE_FLAGS)
.PHONY: tune

# A tuned file is a result of this machine, not part of the package:
# installed when `make tune` made one; uninstall removes the installed copy
# only while it is still the one this build tree made (an edited or
# re-tuned file stays, with a message).
install-data-local: install-tuned
install-tuned:
	@if test -f $(TUNE_OUTPUT); then \
	  echo " $(MKDIR_P) '$(DESTDIR)$(sysconfdir)'"; \
	  $(MKDIR_P) '$(DESTDIR)$(sysconfdir)' || exit 1; \
	  echo " $(INSTALL_DATA) $(TUNE_OUTPUT) '$(DESTDIR)$(sysconfdir)/memasm.conf'"; \
	  $(INSTALL_DATA) $(TUNE_OUTPUT) '$(DESTDIR)$(sysconfdir)/memasm.conf' || exit 1; \
	else \
	  echo "memasm-tune has not run here (make tune): no $(sysconfdir)/memasm.conf installed"; \
	fi
uninstall-local: uninstall-tuned
uninstall-tuned:
	@f='$(DESTDIR)$(sysconfdir)/memasm.conf'; \
	if test -f "$$f"; then \
	  if test -f $(TUNE_OUTPUT) && cmp -s $(TUNE_OUTPUT) "$$f"; then \
	    echo " rm -f '$$f'"; rm -f "$$f"; \
	  else \
	    echo "$$f differs from this build's $(TUNE_OUTPUT): left in place"; \
	  fi; \
	fi
.PHONY: install-tuned uninstall-tuned
DISTCLEANFILES = $(TUNE_OUTPUT)

# The crossover finder on synthetic curves, the file's writer, reader,
# replace rules and atomic write (no timing); an interrupted run; --isa
# (refusals, and a quick run at the baseline level read back).
TESTS += tune/interrupt.sh tune/isa.sh tune/repeat.sh
EXTRA_DIST += tune/interrupt.sh tune/isa.sh tune/repeat.sh tune/test-lib.sh
if HAVE_CHECK
check_PROGRAMS += tune/test-crossover tune/test-tunefile
TESTS += tune/test-crossover tune/test-tunefile
tune_test_tunefile_SOURCES = tune/test-tunefile.c tune/tunefile.c tune/tunefile.h
tune_test_tunefile_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tune_test_tunefile_LDFLAGS = -static
tune_test_tunefile_LDADD = libmemasm.la $(CHECK_LIBS)
tune_test_crossover_SOURCES = tune/test-crossover.c tune/crossover.c tune/crossover.h bench/harness.c bench/harness.h
tune_test_crossover_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tune_test_crossover_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tune_test_crossover_LDFLAGS = -static
tune_test_crossover_LDADD = $(CHECK_LIBS) -lm
endif
