# Makefile — build, grade, test and benchmark OpenCL Memory Lab.
#   make deps                      install the packages, Debian 12 or Ubuntu 24.04 (sudo when not root),
#                                  with the Slurm test's (slurmctld, slurmd, slurm-client, munge) and
#                                  test_html's (chromium, libpng-dev)
#   make                           build build/clgrade and the Oclgrind tracer plugin
#   make check LESSON=N [KERNEL=file.cl] [DEVICE=substring] [JSON=out.json] [HTML=page.html]
#   make check                     grade every lesson's current kernel (a progress table)
#   make hint LESSON=N             print the lesson's next hint
#   make watch LESSON=N [HTML=f]   re-grade the lesson's kernel on every save (Ctrl-C to leave);
#                                  HTML= keeps that page current (it reloads itself)
#   make test                      Check unit tests + integration tests but the fixture corpora (in build/pristine), as
#                                  many test binaries at once as there are cores (J=N to change)
#   make test T=test_batch         build and run one test binary (T=batch works too)
#   make test-slow                 the fixture corpora, HTML, Gradescope, Slurm (CI runs them too)
#   make test-all                  make test and make test-slow in one run
#   make bench                     wall time of `make check` per lesson (median of runs), and
#                                  batch throughput (lesson 3, 40 submissions, -j 2)
#   make bench BASE=rev            check wall time against revision rev, alternating (ratio)
#   make bench HTML=1              check wall time with --html against without, alternating (ratio)
#   make gradescope LESSON=N       Gradescope autograder zip (build/gradescope/autograder-<slug>.zip)

BUILD    := build
CC       ?= cc
CXX      ?= g++
PKGS     := OpenCL libcjson libseccomp

# Every target but deps/clean needs the packages: stop at once and say which and how.
ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
DEPS_MISSING := $(shell sh grader/deps.sh check)
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
endif

# CFLAGS (and CPPFLAGS, LDFLAGS) are the user's: `make CFLAGS=-O0` replaces the optimisation
# and debug flags only.  What the build needs is in the internal variables below, whatever
# the command line says.
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
BUILD_CFLAGS := -std=c11 $(WARN) -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -iquote grader \
                $(shell pkg-config --cflags $(PKGS))
DEPFLAGS  = -MMD -MP
ALL_CFLAGS = $(BUILD_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS   := $(shell pkg-config --libs $(PKGS)) -lm
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# The grader: every grader/*.c; main.c alone holds main().
SRCS     := $(wildcard grader/*.c)
LIBOBJS  := $(patsubst grader/%.c,$(BUILD)/obj/%.o,$(filter-out grader/main.c,$(SRCS)))

# The Oclgrind plugin: a thin C++ adapter over the C analysis code (trace*.c, bank.c), built
# against the LLVM that the distribution's liboclgrind links (grader/deps.sh llvm: 14 on
# Debian 12 and Ubuntu 24.04); LLVM_CONFIG=llvm-config-N overrides it.
LLVM_MAJOR    := $(shell sh grader/deps.sh llvm)
LLVM_CONFIG   ?= llvm-config-$(LLVM_MAJOR)
PLUGIN_CXXFLAGS = -O2 -fPIC $(shell $(LLVM_CONFIG) --cxxflags) -std=c++17 -fno-rtti -fexceptions \
                  -Wall -Igrader $(shell pkg-config --cflags libcjson)
PLUGIN_SRCS  := $(wildcard grader/tracer/*.cpp)
PLUGIN_C_ALL := grader/trace.c grader/trace_price.c grader/trace_finding.c grader/trace_summary.c \
                grader/trace_arith.c \
                grader/trace_merge.c grader/trace_skip.c grader/bank.c grader/irmlp.c
PLUGIN_C     := $(filter $(wildcard $(PLUGIN_C_ALL)),$(PLUGIN_C_ALL))
PLUGIN       := $(if $(PLUGIN_SRCS),$(BUILD)/libcltrace.so) $(BUILD)/liboclquiet.so
OCLGRIND_ICD := $(BUILD)/oclgrind-icd/oclgrind.icd

UNIT_TESTS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
INT_TESTS    := $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(wildcard tests/integration/test_*.c))
ITEST_OBJ    := $(BUILD)/obj/itest.o

.PHONY: all deps check hint watch test test-slow test-all bench gradescope clean
all: $(BUILD)/clgrade $(PLUGIN) $(OCLGRIND_ICD)

# The grader's packages and the test suite's (Slurm, for test_slurm); `make test` installs
# nothing.  Gradescope's setup.sh runs `deps.sh install`: the grader's only.
deps:
	@sh grader/deps.sh install tests

# Header dependencies: each compile writes its .d beside its output (-MMD -MP), read below.
$(BUILD)/obj/%.o: grader/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/libclgrade.a: $(LIBOBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/clgrade: $(BUILD)/obj/main.o $(BUILD)/libclgrade.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/pic/%.o: grader/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -fPIC -c -o $@ $<

$(BUILD)/obj/tracer/%.o: grader/tracer/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(PLUGIN_CXXFLAGS) $(DEPFLAGS) -c -o $@ $<

PLUGIN_OBJS := $(patsubst grader/tracer/%.cpp,$(BUILD)/obj/tracer/%.o,$(PLUGIN_SRCS)) \
               $(patsubst grader/%.c,$(BUILD)/obj/pic/%.o,$(PLUGIN_C))
$(BUILD)/libcltrace.so: $(PLUGIN_OBJS)
	$(CXX) $(PLUGIN_CXXFLAGS) $(LDFLAGS) -shared -o $@ $(PLUGIN_OBJS) \
	    -loclgrind $(shell $(LLVM_CONFIG) --ldflags --libs) $(shell pkg-config --libs libcjson)

# Oclgrind's messages without their LLVM instruction (grader/oclgrind_quiet.cpp): no LLVM,
# no Oclgrind, only the one symbol it interposes.
$(BUILD)/liboclquiet.so: grader/oclgrind_quiet.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O2 -fPIC -shared -Wall $(LDFLAGS) -o $@ $<

# Oclgrind reached as an ICD: the grader points OCL_ICD_VENDORS at this folder.
$(OCLGRIND_ICD):
	@mkdir -p $(dir $@)
	@f=$$(ls /usr/lib/oclgrind/liboclgrind-rt-icd.so /usr/lib/*/oclgrind/liboclgrind-rt-icd.so 2>/dev/null | head -n1); \
	  echo "$$f" > $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libclgrade.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libclgrade.a \
	    $(CHECK_LIBS) $(LDLIBS)

$(ITEST_OBJ): tests/integration/itest.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/integration/%.c $(ITEST_OBJ) $(BUILD)/libclgrade.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(ITEST_OBJ) \
	    $(BUILD)/libclgrade.a $(CHECK_LIBS) $(LDLIBS)

# test_html decodes its screenshots with libpng when it is there (`make deps` installs it);
# without it, that one test says it skipped.
PNG_OK := $(shell pkg-config --exists libpng 2>/dev/null && echo 1)
$(BUILD)/tests/test_html: CHECK_CFLAGS += $(if $(PNG_OK),-DHAVE_PNG $(shell pkg-config --cflags libpng))
$(BUILD)/tests/test_html: CHECK_LIBS += $(if $(PNG_OK),$(shell pkg-config --libs libpng))

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/pic/*.d $(BUILD)/obj/tracer/*.d $(BUILD)/tests/*.d)
# An output built before its .d existed (an older Makefile): every header, until it is rebuilt.
$(foreach o,$(BUILD)/obj/main.o $(LIBOBJS) $(PLUGIN_OBJS) $(ITEST_OBJ) $(UNIT_TESTS) $(INT_TESTS),\
  $(if $(wildcard $(basename $(o)).d),,$(eval $(o): $(wildcard grader/*.h grader/tracer/*.h))))

CHECK_CMD = $(BUILD)/clgrade check $(LESSON) $(if $(KERNEL),'$(KERNEL)') $(if $(DEVICE),--device '$(DEVICE)') \
	    $(if $(JSON),--json '$(JSON)') $(if $(HTML),--html '$(HTML)') $(if $(SEED),--seed $(SEED))

# `make check` exits like `clgrade check` -- 0 pass, 1 fail, 2 the grader could not run -- and
# a failing kernel gets no "make: *** [check] Error 1" line.  make itself can only exit 1 in
# question mode (-q), so when check is the only goal the grading runs while this Makefile is
# read (after building what it needs), printing to make's own stdout, and a failing verdict
# switches make to -q, where the phony, never up-to-date `check` ends make with status 1.
ifeq ($(MAKECMDGOALS),check)
ifneq ($(and $(KERNEL),$(if $(LESSON),,1)),)
$(error KERNEL= needs LESSON=N (make check LESSON=N KERNEL=$(KERNEL)))
endif
# The build runs silent (-s), so when there is one to do (the first check after a clone: 40 s
# serial on the 2-core VM, `rm -rf build && time make -s all`) a line says what it is doing.
CHECK_BUILD_MSG := make: building build/clgrade and the Oclgrind tracer plugin first (about 40 s \
	on 2 cores, once) ...
CHECK_RC := $(shell out=/proc/$$PPID/fd/1; [ -w $$out ] || out=/dev/stderr; \
	( $(MAKE) -q --no-print-directory all 2>/dev/null || echo "$(CHECK_BUILD_MSG)"; \
	  $(MAKE) -s --no-print-directory all && $(CHECK_CMD) ) >>$$out 2>&1; echo $$?)
ifeq ($(CHECK_RC),1)
MAKEFLAGS += -q
else ifneq ($(CHECK_RC),0)
$(error the check could not finish (exit $(CHECK_RC)): see the message above)
endif
check: ; @:
else
check: all
	@$(if $(and $(KERNEL),$(if $(LESSON),,1)),echo "KERNEL= needs LESSON=N (make check LESSON=N KERNEL=$(KERNEL))" >&2; exit 2;) \
	$(CHECK_CMD)
endif

hint: all
	@$(BUILD)/clgrade hint $(LESSON)

# Re-grade the lesson's kernel on every save; Ctrl-C leaves (make dies quietly of the signal).
watch: all
	@$(if $(LESSON),,echo "usage: make watch LESSON=N [KERNEL=file.cl] [DEVICE=substring]" >&2; exit 2;) \
	$(BUILD)/clgrade watch $(LESSON) $(if $(KERNEL),'$(KERNEL)') $(if $(DEVICE),--device '$(DEVICE)') \
	    $(if $(HTML),--html '$(HTML)') $(if $(SEED),--seed $(SEED))

# The tests run in build/pristine (tests/pristine.sh): the starters and solutions as committed,
# so a student's solved kernels/starter files never turn the suite red.  tests/run.sh runs J
# test binaries at once (default: the number of cores), each one's output kept and printed
# in the order given, then the closing "N passed, M failed" line.  T=name runs one binary
# (T=test_batch or T=batch).
# Two tiers.  `make test` is the unit tests and the grader's own integration tests (each
# lesson's solution and starter, a table of broken kernels per lesson, the trust boundary,
# the sandbox, batch, watch, the hints), within 3 minutes on 2 cores.  `make test-slow` is
# the fixture corpora (every fixture's clauses, lessons 1-7; lesson 5's predicted-speed
# families; the analysis at edge sizes; each kernel's __local bytes on PoCL) and the tests
# of the systems around the grader (the HTML pages in Chromium, the Gradescope bundle, a
# Slurm cluster).  CI (.ci/run) runs both; `make test-all` runs both in one schedule.
ALL_TESTS  := $(UNIT_TESTS) $(INT_TESTS)
SLOW_TESTS := $(addprefix $(BUILD)/tests/test_,fixtures fixtures67 reduction edges localmem_pocl \
                html gradescope slurm)
FAST_TESTS := $(filter-out $(SLOW_TESTS),$(ALL_TESTS))
ifneq ($(T),)
RUN_TESTS := $(filter $(foreach t,$(T),$(BUILD)/tests/$(t) $(BUILD)/tests/test_$(t)),$(ALL_TESTS))
ifeq ($(RUN_TESTS),)
ifneq ($(filter test test-slow test-all,$(MAKECMDGOALS)),)
$(error T=$(T): no such test binary; the binaries: $(notdir $(ALL_TESTS)))
endif
endif
else
RUN_TESTS := $(FAST_TESTS)
endif
# The build before a test run uses every core (a clean clone's is 25 s serial on 2 cores).
J ?=
NPROC := $(shell nproc 2>/dev/null || echo 1)
TEST_RUN = @$(MAKE) --no-print-directory -j$(NPROC) all $(1) && \
	sh tests/pristine.sh $(BUILD)/pristine && \
	cd $(BUILD)/pristine && sh tests/run.sh $(if $(J),-j $(J)) $(1)
test:
	$(call TEST_RUN,$(RUN_TESTS))
test-slow:
	$(call TEST_RUN,$(SLOW_TESTS))
test-all:
	$(call TEST_RUN,$(ALL_TESTS))

# html_page() alone, timed on a real report (tests/html-cost.c): for `make bench HTML=1`
$(BUILD)/html-cost: tests/html-cost.c $(BUILD)/libclgrade.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libclgrade.a $(LDLIBS)

bench: all $(if $(HTML),$(BUILD)/html-cost)
	@BENCH_HTML='$(HTML)' sh tests/bench.sh
	@[ -n "$(BASE)$(HTML)" ] || sh tests/bench-batch.sh

gradescope:
	@sh grader/gradescope/make-zip.sh '$(LESSON)'

clean:
	rm -rf $(BUILD)
