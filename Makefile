# Lazaret - one non-recursive Makefile. Sources are found by directory, so a new
# module is a new file; see README "Building".
#   make            build every program into build/
#   make test       build, then run every unit and integration test (tests/run)
#   make check      include rules, then unit tests under ASan + UBSan
#   make run        set up the host and start the workbench on a real sandbox
#   make bench      benchmark scripts (figures, never assertions)
#   make bench-scale  20 sandboxes, 50 CLIs, 8 audit writers (bench/scale.sh)
#   make fuzz       libFuzzer harnesses
#   make install    PREFIX=/usr/local DESTDIR= (GNU layout; uninstall undoes it)
#   make deb        build/lazaret_VERSION_ARCH.deb (dpkg-deb)
#   V=1             show the commands
VERSION   := 0.1.0
CC        ?= cc
BUILD     ?= build
PKGS      := yaml-0.1 libuv sqlite3 libsodium openssl vterm ncursesw panelw formw menuw libmnl
WARN      := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
             -Wmissing-prototypes -Wmissing-declarations -Wpointer-arith \
             -Wwrite-strings -Wundef -Wswitch-enum -Wno-missing-field-initializers
OPT       ?= -O2 -g -D_FORTIFY_SOURCE=2
CFLAGS_ALL = -std=c17 -D_GNU_SOURCE -DLZ_VERSION='"$(VERSION)"' $(WARN) $(OPT) \
             -fstack-protector-strong -fPIE -MMD -MP \
             -Ibackend/common -Ibackend -Ivterm -Iwidgets -Iapp \
             $(shell pkg-config --cflags $(PKGS)) $(CFLAGS) $(SANFLAGS)
LDLIBS_ALL = $(shell pkg-config --libs $(PKGS)) -lutil -lpthread $(LDLIBS)
LDFLAGS_ALL = -pie $(SANFLAGS) $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

COMMON_SRC  := $(wildcard backend/common/*.c)
BACKEND_SRC := $(wildcard backend/coord/*.c backend/sandbox/*.c backend/escalation/*.c backend/store/*.c backend/net/*.c backend/review/*.c)
TERM_SRC    := $(filter-out vterm/term-draw.c,$(wildcard vterm/*.c))
DRAW_SRC    := $(wildcard vterm/term-draw.c) $(wildcard widgets/*.c)
APP_MAINS   := app/lazaret.c app/workbench.c app/lazaret-exec.c
APP_SRC     := $(filter-out $(APP_MAINS),$(wildcard app/*.c))
UNIT_SRC    := $(wildcard tests/unit/test-*.c)
UNIT_HELP   := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON  := $(BUILD)/libcommon.a
LIBBACKEND := $(BUILD)/libbackend.a
LIBTERM    := $(BUILD)/libterm.a
LIBDRAW    := $(BUILD)/libdraw.a
LIBAPP     := $(BUILD)/libapp.a
LIBS_ORDER := $(LIBAPP) $(LIBDRAW) $(LIBBACKEND) $(LIBTERM) $(LIBCOMMON)

PROGS := $(BUILD)/lazaret $(BUILD)/lazaret-exec $(BUILD)/lazaret-statx.so
ifneq ($(wildcard app/workbench.c),)
PROGS += $(BUILD)/lazaret-workbench
endif
ifneq ($(wildcard escalate/*.c),)
PROGS += $(BUILD)/lazaret-escalate
endif
ifneq ($(wildcard sidecar/*.c),)
PROGS += $(BUILD)/lazaret-sidecar
endif
ifneq ($(wildcard tests/probe/*.c),)
PROGS += $(BUILD)/lazaret-probe
endif
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

.PHONY: all setup test check unit run bench bench-scale fuzz clean cppcheck clang-tidy install uninstall deb
all: $(PROGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

define mklib
$(1): $(call obj,$(2))
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(eval $(call mklib,$(LIBCOMMON),$(COMMON_SRC)))
$(eval $(call mklib,$(LIBBACKEND),$(BACKEND_SRC)))
$(eval $(call mklib,$(LIBTERM),$(TERM_SRC)))
$(eval $(call mklib,$(LIBDRAW),$(DRAW_SRC)))
$(eval $(call mklib,$(LIBAPP),$(APP_SRC)))

LINK = $(CC) $(LDFLAGS_ALL) -o $@ $^ -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

$(BUILD)/lazaret: $(call obj,app/lazaret.c) $(LIBS_ORDER)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,app/lazaret.c) -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

$(BUILD)/lazaret-workbench: $(call obj,app/workbench.c) $(LIBS_ORDER)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,app/workbench.c) -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

# Static programs: plain libc (+ what each needs), no sanitizers, no NSS.
STATIC_CFLAGS = -std=c17 -D_GNU_SOURCE -DLZ_VERSION='"$(VERSION)"' $(WARN) -O2 -g -Ibackend/common
ESC_COMMON := $(addprefix backend/common/,err.c xmalloc.c strv.c shellwords.c jsonw.c \
              proto.c paths.c esc-payload.c sign.c trust.c cred-fd.c trace.c sudo-req.c)
ESC_LIBS   := -lssl -lcrypto -lsodium -lpthread -ldl
ESC_SRC := $(wildcard escalate/*.c)
$(BUILD)/lazaret-escalate: $(ESC_SRC) $(ESC_COMMON) $(wildcard backend/common/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) $(STATIC_CFLAGS) -static -o $@ $(ESC_SRC) $(ESC_COMMON) $(ESC_LIBS)
# The sidecar links libmnl/libnftnl, and Debian ships no libmnl.a nor
# fetchable sources (notes/sidecar-build.md): it is linked dynamically and
# its image holds exactly this binary and its ldd closure (backend/net/net-image.c).
SIDE_SRC    := $(wildcard sidecar/*.c)
SIDE_COMMON := $(addprefix backend/common/,err.c xmalloc.c strv.c proto.c netctl.c netreq.c dns.c egress.c httpreq.c pktline.c)
SIDE_LIBS   := $(shell pkg-config --libs libnftnl libmnl 2>/dev/null) -lssl -lcrypto -lsodium -lpthread
$(BUILD)/lazaret-sidecar: $(SIDE_SRC) $(SIDE_COMMON) $(wildcard sidecar/*.h backend/common/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(STATIC_CFLAGS) -Isidecar -fPIE -pie -Wl,-z,relro,-z,now -o $@ $(SIDE_SRC) \
	    $(SIDE_COMMON) $(SIDE_LIBS)
# The coordinator's exec steps (ns-exec, cgroup-exec, sandbox-exec), static:
# three of them run one after another on a cold start, each without
# lazaret's libraries to load (app/lazaret-exec.c).
EXEC_SRC    := app/lazaret-exec.c app/cmd-step.c app/cmd-ns-exec.c app/cmd-cgroup-exec.c app/cmd-sandbox-exec.c \
               app/cmd-disk-usage.c app/cli-usage.c backend/sandbox/pause.c backend/sandbox/disk-usage.c \
               backend/sandbox/runsc-call.c \
               backend/sandbox/runsc-ctl.c backend/review/surface-json.c
EXEC_COMMON := $(addprefix backend/common/,err.c xmalloc.c strv.c jsonw.c shellwords.c prefix.c)
$(BUILD)/lazaret-exec: $(EXEC_SRC) $(EXEC_COMMON) $(wildcard app/*.h backend/sandbox/*.h backend/common/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) $(STATIC_CFLAGS) -Ibackend -Iapp -static -o $@ $(EXEC_SRC) $(EXEC_COMMON)
# The statx shim preloaded in every sandbox (shim/statx.c): no libc linked,
# so it loads into any image's glibc or musl.
$(BUILD)/lazaret-statx.so: shim/statx.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SHLIB   $@")
	$(Q)$(CC) -std=c17 $(WARN) -O2 -shared -fPIC -nostdlib -fno-stack-protector -fno-builtin \
	    -Wl,-soname,lazaret-statx.so -Wl,-z,now,-z,relro,-z,noexecstack -Wl,--hash-style=both -o $@ $<
PROBE_SRC := $(wildcard tests/probe/*.c)
PROBE_COMMON := $(addprefix backend/common/,err.c xmalloc.c dns.c)
$(BUILD)/lazaret-probe: $(PROBE_SRC) $(PROBE_COMMON) $(wildcard tests/probe/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) $(STATIC_CFLAGS) -static -o $@ $(PROBE_SRC) $(PROBE_COMMON)

$(BUILD)/tests/%: $(call obj,tests/unit/%.c) $(call obj,$(UNIT_HELP)) $(LIBS_ORDER)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL) $(shell pkg-config --libs cmocka) $(UNIT_LDFLAGS_$*)

unit: $(PROGS) $(UNIT_BINS)

# Host preparation first (build packages, rootless podman + runsc, the test
# user), so a fresh machine can build; idempotent. LAZARET_SKIP_SETUP=1 skips.
# Sandbox tests build the default image on first use.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
setup:
ifneq ($(LAZARET_SKIP_SETUP),1)
	$(SUDO) scripts/setup-host
endif

test: setup
	$(MAKE) unit
	tests/run

# Include rules between folders (scripts/check-includes, and its own test),
# then unit tests under ASan+UBSan, leak detection on, in a build tree of
# their own.
check:
	scripts/check-includes
	tests/lint/test-check-includes.sh
	$(MAKE) cppcheck
	$(MAKE) BUILD=build/san OPT="-O1 -g -fno-omit-frame-pointer" \
	    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    LAZARET_BUILD=build/san tests/run --unit

run: setup
	$(MAKE) all
	scripts/run-main

bench: all
	bench/run

bench-scale: all
	bash bench/scale.sh

fuzz:
	scripts/build-fuzz

# varFuncNullUB: glibc's NULL is ((void *)0), a pointer, so a NULL sentinel is fine.
cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --suppress=varFuncNullUB \
	    -Ibackend/common -Ibackend $(COMMON_SRC) $(BACKEND_SRC) app

clang-tidy:
	clang-tidy $(COMMON_SRC) $(BACKEND_SRC) -- $(CFLAGS_ALL)

# GNU layout. The programs find their helpers and data from their own path
# (backend/common/prefix.c), so nothing here is compiled in: any PREFIX works,
# and a tree staged under DESTDIR runs from there too.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL     ?= install
INST_BIN    := $(filter $(BUILD)/lazaret $(BUILD)/lazaret-workbench,$(PROGS))
# helpers: the sandbox's escalation client, the egress sidecar (when built)
INST_HELP   := $(filter $(BUILD)/lazaret-escalate $(BUILD)/lazaret-sidecar $(BUILD)/lazaret-exec \
               $(BUILD)/lazaret-statx.so,$(PROGS))
MAN1        := $(wildcard docs/man/*.1)
MAN5        := $(wildcard docs/man/*.5)
THEMES      := $(wildcard themes/*.yaml)
PRESETS     := $(wildcard presets/*)
KITS        := $(wildcard kits/*/kit.yaml)

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/lazaret \
	    $(DESTDIR)$(DATADIR)/lazaret/themes $(DESTDIR)$(DATADIR)/lazaret/presets \
	    $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0755 $(INST_BIN) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 0755 $(INST_HELP) scripts/setup-host $(DESTDIR)$(LIBEXECDIR)/lazaret/
	$(INSTALL) -m 0644 $(THEMES) $(DESTDIR)$(DATADIR)/lazaret/themes/
	$(INSTALL) -m 0644 $(PRESETS) $(DESTDIR)$(DATADIR)/lazaret/presets/
	for k in $(KITS); do $(INSTALL) -D -m 0644 $$k $(DESTDIR)$(DATADIR)/lazaret/$$k || exit 1; done
	$(INSTALL) -m 0644 scripts/packages $(DESTDIR)$(DATADIR)/lazaret/packages
	$(INSTALL) -m 0644 data/surface.tsv $(DESTDIR)$(DATADIR)/lazaret/surface.tsv
	$(INSTALL) -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL) -m 0644 scripts/lazaret.bash-completion $(DESTDIR)$(BASHCOMPDIR)/lazaret
	ln -sf lazaret $(DESTDIR)$(BASHCOMPDIR)/lazaret-workbench

# Removes what install put there and the directories that are Lazaret's alone
# (setup-host's runsc wrapper in PREFIX/libexec/lazaret stays, and so does the
# directory then).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,lazaret lazaret-workbench) \
	    $(addprefix $(DESTDIR)$(LIBEXECDIR)/lazaret/,lazaret-escalate lazaret-sidecar lazaret-exec lazaret-statx.so setup-host) \
	    $(addprefix $(DESTDIR)$(DATADIR)/lazaret/themes/,$(notdir $(THEMES))) \
	    $(addprefix $(DESTDIR)$(DATADIR)/lazaret/presets/,$(notdir $(PRESETS))) \
	    $(addprefix $(DESTDIR)$(DATADIR)/lazaret/,$(KITS)) \
	    $(DESTDIR)$(DATADIR)/lazaret/packages $(DESTDIR)$(DATADIR)/lazaret/surface.tsv \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
	    $(DESTDIR)$(BASHCOMPDIR)/lazaret $(DESTDIR)$(BASHCOMPDIR)/lazaret-workbench
	for d in $(DESTDIR)$(DATADIR)/lazaret/themes $(DESTDIR)$(DATADIR)/lazaret/presets \
	    $(addprefix $(DESTDIR)$(DATADIR)/lazaret/,$(dir $(KITS))) $(DESTDIR)$(DATADIR)/lazaret/kits \
	    $(DESTDIR)$(DATADIR)/lazaret \
	    $(DESTDIR)$(LIBEXECDIR)/lazaret; do rmdir "$$d" 2>/dev/null || true; done

# A Debian package of the installed tree (PREFIX=/usr): Depends are the
# shared libraries the programs link (dpkg-shlibdeps) and the "run" and
# "image" roles of scripts/packages, the list setup-host installs.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB      := $(BUILD)/lazaret_$(VERSION)_$(DEB_ARCH).deb
deb: all
	scripts/make-deb $(BUILD) $(VERSION) $(DEB)

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
