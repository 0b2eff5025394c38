# Lazaret - one non-recursive Makefile. Sources are found by directory, so a new
# module is a new file; see README "Building".
#   make            build every program into build/
#   make test       build, then run every unit and integration test (tests/run)
#   make check      include and layer rules, call circles, unit tests under ASan + UBSan
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
PKGS      := yaml-0.1 libuv sqlite3 libsodium openssl vterm ncursesw panelw formw menuw libmnl zlib
WARN      := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
             -Wmissing-prototypes -Wmissing-declarations -Wpointer-arith \
             -Wwrite-strings -Wundef -Wswitch-enum -Wno-missing-field-initializers
OPT       ?= -O2 -g -D_FORTIFY_SOURCE=2
CFLAGS_ALL = -std=c17 -D_GNU_SOURCE -DLZ_VERSION='"$(VERSION)"' $(WARN) $(OPT) \
             -fstack-protector-strong -fPIE -MMD -MP \
             $(INCS) \
             $(shell pkg-config --cflags $(PKGS)) $(CFLAGS) $(SANFLAGS)
INCS       = $(addprefix -Ibackend/common/,base policy wire config trust) -Ibackend/common \
             -Ibackend -Ivterm -Iwidgets -Iapp/client -Iapp \
             -Iapp/wb -Iapp/wb/core -Iapp/wb/views
LDLIBS_ALL = $(shell pkg-config --libs $(PKGS)) -lutil -lpthread $(LDLIBS)
LDFLAGS_ALL = -pie $(SANFLAGS) $(LDFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# One archive a room (docs/architecture.md "Where the code is"). backend/common/
# is five small libraries, bottom to top: base < policy < wire, config < trust.
COMMON_ROOMS := base policy wire config trust
BACKEND_ROOMS := coord sandbox escalation store net review doctor
# backend/sandbox/ has sub-rooms, bottom to top: runsc, rootless, image, sentry < podman, mounts
SANDBOX_ROOMS := runsc rootless image sentry podman mounts
BASE_SRC    := $(wildcard backend/common/base/*.c backend/common/*.c)
POLICY_SRC  := $(wildcard backend/common/policy/*.c)
WIRE_SRC    := $(wildcard backend/common/wire/*.c)
CONFIG_SRC  := $(wildcard backend/common/config/*.c)
TRUST_SRC   := $(wildcard backend/common/trust/*.c)
COMMON_SRC  := $(BASE_SRC) $(POLICY_SRC) $(WIRE_SRC) $(CONFIG_SRC) $(TRUST_SRC)
HOST_SRC    := $(wildcard backend/host/*.c)
BACKEND_SRC := $(wildcard $(addsuffix /*.c,$(addprefix backend/,$(BACKEND_ROOMS) $(addprefix sandbox/,$(SANDBOX_ROOMS)))))
TERM_SRC    := $(filter-out vterm/term-draw.c,$(wildcard vterm/*.c))
DRAW_SRC    := $(wildcard vterm/term-draw.c) $(wildcard widgets/*.c)
APP_MAINS   := app/cli/lazaret.c app/wb/workbench.c app/steps/lazaret-exec.c
CLIENT_SRC  := $(wildcard app/client/*.c)
STEPS_SRC   := $(filter-out $(APP_MAINS),$(wildcard app/steps/*.c))
CLI_SRC     := $(filter-out $(APP_MAINS),$(wildcard app/cli/*.c))
WB_SRC      := $(filter-out $(APP_MAINS),$(wildcard app/wb/*.c app/wb/core/*.c app/wb/views/*.c))
UNIT_SRC    := $(wildcard tests/unit/test-*.c)
UNIT_HELP   := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON  := $(foreach r,$(COMMON_ROOMS),$(BUILD)/lib$(r).a)
LIBHOST    := $(BUILD)/libhost.a
LIBBACKEND := $(BUILD)/libbackend.a
LIBTERM    := $(BUILD)/libterm.a
LIBDRAW    := $(BUILD)/libdraw.a
LIBCLIENT  := $(BUILD)/libclient.a
LIBSTEPS   := $(BUILD)/libsteps.a
LIBCLI     := $(BUILD)/libcli.a
LIBWB      := $(BUILD)/libwb.a
LIBS_ORDER := $(LIBCLI) $(LIBWB) $(LIBSTEPS) $(LIBCLIENT) $(LIBDRAW) $(LIBBACKEND) $(LIBHOST) \
              $(LIBTERM) $(LIBCOMMON)

PROGS := $(BUILD)/lazaret $(BUILD)/lazaret-exec $(BUILD)/lazaret-statx.so
ifneq ($(wildcard app/wb/workbench.c),)
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

.PHONY: all setup test check unit run bench bench-scale screenshots fuzz clean cppcheck clang-tidy install uninstall deb
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
$(eval $(call mklib,$(BUILD)/libbase.a,$(BASE_SRC)))
$(eval $(call mklib,$(BUILD)/libpolicy.a,$(POLICY_SRC)))
$(eval $(call mklib,$(BUILD)/libwire.a,$(WIRE_SRC)))
$(eval $(call mklib,$(BUILD)/libconfig.a,$(CONFIG_SRC)))
$(eval $(call mklib,$(BUILD)/libtrust.a,$(TRUST_SRC)))
$(eval $(call mklib,$(LIBHOST),$(HOST_SRC)))
$(eval $(call mklib,$(LIBBACKEND),$(BACKEND_SRC)))
$(eval $(call mklib,$(LIBTERM),$(TERM_SRC)))
$(eval $(call mklib,$(LIBDRAW),$(DRAW_SRC)))
$(eval $(call mklib,$(LIBCLIENT),$(CLIENT_SRC)))
$(eval $(call mklib,$(LIBSTEPS),$(STEPS_SRC)))
$(eval $(call mklib,$(LIBCLI),$(CLI_SRC)))
$(eval $(call mklib,$(LIBWB),$(WB_SRC)))

LINK = $(CC) $(LDFLAGS_ALL) -o $@ $^ -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

$(BUILD)/lazaret: $(call obj,app/cli/lazaret.c) $(LIBS_ORDER)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,app/cli/lazaret.c) -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

$(BUILD)/lazaret-workbench: $(call obj,app/wb/workbench.c) $(LIBS_ORDER)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,app/wb/workbench.c) -Wl,--start-group $(LIBS_ORDER) -Wl,--end-group $(LDLIBS_ALL)

# Static programs: plain libc (+ what each needs), no sanitizers, no NSS. They
# link the static build of the common libraries they need, nothing more.
STATIC_CFLAGS = -std=c17 -D_GNU_SOURCE -DLZ_VERSION='"$(VERSION)"' $(WARN) -O2 -g $(INCS)
sobj = $(patsubst %.c,$(BUILD)/sobj/%.o,$(1))
$(BUILD)/sobj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (static)")
	$(Q)$(CC) $(STATIC_CFLAGS) -MMD -MP -c -o $@ $<
define mkslib
$(1): $(call sobj,$(2))
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach r,base policy wire trust,$(eval $(call mkslib,$(BUILD)/static/lib$(r).a,$(wildcard backend/common/$(r)/*.c))))
STATIC_LIBS = $(foreach r,base policy wire trust,$(BUILD)/static/lib$(r).a)
SLINK = -Wl,--start-group $(STATIC_LIBS) -Wl,--end-group
ESC_LIBS   := -lssl -lcrypto -lsodium -lpthread -ldl
ESC_SRC := $(wildcard escalate/*.c)
$(BUILD)/lazaret-escalate: $(call sobj,$(ESC_SRC)) $(STATIC_LIBS)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) -static -o $@ $(call sobj,$(ESC_SRC)) $(SLINK) $(ESC_LIBS)
# The sidecar links libmnl/libnftnl, and Debian ships no libmnl.a nor
# fetchable sources (notes/sidecar-build.md): it is linked dynamically and
# its image holds exactly this binary and its ldd closure (backend/net/net-image.c).
SIDE_SRC    := $(wildcard sidecar/*.c)
SIDE_LIBS   := $(shell pkg-config --libs libnftnl libmnl 2>/dev/null) -lssl -lcrypto -lsodium -lz -lpthread
$(BUILD)/lazaret-sidecar: $(call sobj,$(SIDE_SRC)) $(STATIC_LIBS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) -fPIE -pie -Wl,-z,relro,-z,now -o $@ $(call sobj,$(SIDE_SRC)) $(SLINK) $(SIDE_LIBS)
# The coordinator's exec steps (ns-exec, cgroup-exec, sandbox-exec, disk-usage),
# static: three of them run one after another on a cold start, each without
# lazaret's libraries to load (app/steps/lazaret-exec.c). The coordinator and
# guard steps need the whole coordinator: lazaret and lazaret-workbench run them.
EXEC_SRC    := $(filter-out app/steps/cmd-coordinator.c app/steps/cmd-guard.c,$(wildcard app/steps/*.c)) \
               app/client/cli-usage.c $(addprefix backend/sandbox/,rootless/pause.c disk-usage.c runsc/runsc-call.c runsc/runsc-ctl.c)
$(BUILD)/lazaret-exec: $(call sobj,$(EXEC_SRC)) $(STATIC_LIBS)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) -static -o $@ $(call sobj,$(EXEC_SRC)) $(SLINK)
# The statx shim preloaded in every sandbox (shim/statx.c): no libc linked,
# so it loads into any image's glibc or musl.
$(BUILD)/lazaret-statx.so: shim/statx.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SHLIB   $@")
	$(Q)$(CC) -std=c17 $(WARN) -O2 -shared -fPIC -nostdlib -fno-stack-protector -fno-builtin \
	    -Wl,-soname,lazaret-statx.so -Wl,-z,now,-z,relro,-z,noexecstack -Wl,--hash-style=both -o $@ $<
PROBE_SRC := $(wildcard tests/probe/*.c) sidecar/dns.c
$(BUILD)/lazaret-probe: $(call sobj,$(PROBE_SRC)) $(STATIC_LIBS)
	@$(if $(Q),echo "  STATIC  $@")
	$(Q)$(CC) -static -o $@ $(call sobj,$(PROBE_SRC)) $(SLINK)

# The DNS wire parser is the sidecar's; its unit test links it from there.
$(BUILD)/tests/test-dns: $(call obj,sidecar/dns.c)
# The themes' contrast check computes WCAG luminance (pow).
UNIT_LDFLAGS_test-theme := -lm

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

# Include and layer rules between folders (scripts/check-includes), then unit
# tests under ASan+UBSan, leak detection on, in a build tree of their own,
# whose objects must hold no call circle inside a folder (scripts/check-cycles);
# each check with its own test.
check:
	scripts/check-includes
	tests/lint/test-check-includes.sh
	tests/lint/test-check-cycles.sh
	$(MAKE) cppcheck
	$(MAKE) BUILD=build/san OPT="-O1 -g -fno-omit-frame-pointer" \
	    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all" unit
	scripts/check-cycles build/san
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    LAZARET_BUILD=build/san tests/run --unit

run: setup
	$(MAKE) all
	scripts/run-main

bench: all
	bench/run

bench-scale: all
	bash bench/scale.sh

# The PNGs in screenshots/ from the real workbench on real sandboxes (root:
# the egress pictures use a network namespace of their own).
screenshots: all
	screenshots/make-screenshots.sh

fuzz:
	scripts/build-fuzz

# varFuncNullUB: glibc's NULL is ((void *)0), a pointer, so a NULL sentinel is fine.
cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --suppress=varFuncNullUB \
	    $(INCS) $(COMMON_SRC) $(HOST_SRC) $(BACKEND_SRC) app

clang-tidy:
	clang-tidy $(COMMON_SRC) $(HOST_SRC) $(BACKEND_SRC) -- $(CFLAGS_ALL)

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
