# chime — build, test, run and install.
#
#   make run       install what is missing, build, run on the example configuration
#   make test      install what is missing, build with warnings as errors, lint, run every test, then the suites
#                  that exercise concurrency again under the thread sanitizer (TSAN_SKIP below)
#   make tsan      every test under the thread sanitizer (build in .build/tsan)
#   make asan      every test under the address sanitizer and its leak checker (build in .build/asan)
#   make install   PREFIX=/usr/local DESTDIR= : binaries, man pages, example configuration, systemd units, catalog
#                  and the user chime
#   make deb       chime_VERSION_ARCH.deb in .build/deb (tools/make-deb): what make install installs, for /usr
#   make bench     release build and the benchmark suite
#   make soak      release build, then chimed for SOAK_SECONDS (600) under faults, checked against an exact reference
#                  of what should have fired (root: the state directory goes on a small tmpfs that fills up)
#   make fuzz      FUZZ_SECONDS=600 : each libFuzzer target in fuzzing/ in turn (docs/reliability.md)

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
# chimed finds its sound helper, chime-sound, in ../libexec/chime/ from its own directory.
LIBEXECDIR = $(PREFIX)/libexec
MANDIR = $(PREFIX)/share/man
SYSTEMDDIR = $(PREFIX)/lib/systemd
SYSUSERSDIR = $(PREFIX)/lib/sysusers.d
TMPFILESDIR = $(PREFIX)/lib/tmpfiles.d
DOCDIR = $(PREFIX)/share/doc/chime
DBUSDIR = $(PREFIX)/share/dbus-1
# The system bus and polkit read their files from /usr/share whatever the prefix.
DBUS_SYSTEM_POLICYDIR ?= /usr/share/dbus-1/system.d
POLKIT_ACTIONDIR ?= /usr/share/polkit-1/actions
SWIFT ?= swift
SWIFT_FLAGS ?=
# Release binaries carry the Swift runtime and Foundation inside: they start in half the time (no dozen shared
# libraries to map and bind at every run of chimectl) and run where the Swift toolchain is not installed.
RELEASE_FLAGS ?= --static-swift-stdlib

# Debian packages: for building, and for what the tests run for real.
# libcurl4-openssl-dev: FoundationNetworking, which the webhook backend (and so chimed) links, needs libcurl.
# libical-dev: RFC 5545 recurrence rules (RRule=). libdconf-dev: GNOME's do-not-disturb setting, read by chimed.
# libgstreamer1.0-dev: sound played and rung by chime (ChimeSound).
BUILD_PACKAGES = libsystemd-dev pkg-config libcurl4-openssl-dev libical-dev libdconf-dev libgstreamer1.0-dev
# cron: the idle benchmark runs Debian's cron beside chimed (bench/daemon idle).
BENCH_PACKAGES = cron
# systemd-container: systemd-nspawn boots a real systemd for the end-to-end test (Tests/E2E/systemd-e2e).
# openssl: the webhook tests make a self-signed certificate for an HTTPS server that must be refused.
# dbus-daemon, python3-dbus, python3-gi: a private session bus and the recording notification server (Tests/Fixtures).
# dbus-user-session: the session bus (dbus.socket) of the user manager in the end-to-end test's container.
# dunst, xvfb, imagemagick, tesseract-ocr: a real notification daemon on a virtual display, photographed and read back.
# bubblewrap: a caller in a Flatpak-like sandbox; polkitd: the system bus's authorisation in the end-to-end test.
# libglib2.0-bin, gsettings-desktop-schemas, dconf-gsettings-backend, dconf-service: GNOME's do-not-disturb setting.
# zsh, fish: chimectl's completion scripts, run by the real shells. apprise: the apprise backend, run for real.
# lintian: the Debian package's check (tools/lint-deb, behind the normal pass).
# pulseaudio, pulseaudio-utils, sox: a private audio server whose output is recorded and measured; the GStreamer
# plugins decode and play (Ogg Vorbis, WAV, FLAC, MP3, PulseAudio); sound-theme-freedesktop: the sounds named;
# espeak-ng: Speak=.
TEST_PACKAGES = systemd systemd-container tzdata python3 openssl dbus-daemon dbus-user-session python3-dbus python3-gi \
	dunst xvfb imagemagick tesseract-ocr bubblewrap polkitd libglib2.0-bin gsettings-desktop-schemas \
	dconf-gsettings-backend dconf-service zsh fish apprise lintian \
	pulseaudio pulseaudio-utils sox gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-pulseaudio \
	sound-theme-freedesktop espeak-ng
# dpkg-dev: dpkg-shlibdeps, for the Debian package's dependencies.
DEB_PACKAGES = dpkg-dev
# tzdata: the fuzz targets read times in real zones.
FUZZ_PACKAGES = tzdata

.PHONY: all build release shipped e2e-binary deb run test tsan asan check lint deps deps-build deps-test deps-deb deps-bench deps-fuzz \
	config-modes install install-files install-systemd uninstall uninstall-systemd bench soak fuzz fuzz-build fuzz-smoke clean

all: build

deps-build:
	@./tools/ensure-packages $(BUILD_PACKAGES)

deps-test: deps-build deps-deb
	@./tools/ensure-packages $(TEST_PACKAGES)

deps-deb: deps-build
	@./tools/ensure-packages $(DEB_PACKAGES)

deps: deps-test

deps-bench: deps-test
	@./tools/ensure-packages $(BENCH_PACKAGES)

deps-fuzz: deps-build
	@./tools/ensure-packages $(FUZZ_PACKAGES)

build: deps-build
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps-build
	$(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS)

# The programs that make install and the package ship, and that the end-to-end tests boot in a container (no
# Swift runtime there, so the standard library is linked in), built one product at a time: not the benchmark.
# Linked as Debian links its programs: relocations read-only once resolved, and all resolved at start.
SHIPPED = chimed chimectl chime-calendar chime-sound
SHIPPED_FLAGS = --static-swift-stdlib -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
shipped: deps-build
	@for product in $(SHIPPED); do \
		echo "$(SWIFT) build -c release $(SHIPPED_FLAGS) --product $$product $(SWIFT_FLAGS)"; \
		$(SWIFT) build -c release $(SHIPPED_FLAGS) --product $$product $(SWIFT_FLAGS) || exit 1; \
	done

e2e-binary: shipped

# The Debian package of what make install installs with PREFIX=/usr, and its maintainer scripts (packaging/deb).
# DEB_COMPRESSION (xz) and DEB_COMPRESSION_LEVEL: make test uses gzip -1, in a seventh of xz's time, for a package
# larger by two thirds.
DEB_COMPRESSION ?= xz
DEB_COMPRESSION_LEVEL ?=
deb: shipped deps-deb
	DEB_COMPRESSION=$(DEB_COMPRESSION) DEB_COMPRESSION_LEVEL=$(DEB_COMPRESSION_LEVEL) MAKE="$(MAKE)" \
		./tools/make-deb .build/deb

# chimed refuses configuration and generators that its group or others can write; git keeps only the x bit, so
# a checkout made with umask 002 needs this before the examples can be used.
config-modes:
	@chmod -R go-w config

# The daemon in the foreground on the example configuration; deliveries appear as JSON lines on stdout, and in the
# journal where a journald listens (elsewhere each delivery to it would fail, and say so).
RUN_DIR = .build/chime-run
comma := ,
RUN_DELIVER = $(if $(wildcard /run/systemd/journal/socket),journal$(comma)stdout,stdout)
# In a desktop session, a user's instance: it plays the examples' sounds itself through the session's audio server.
RUN_INSTANCE = $(if $(XDG_RUNTIME_DIR),--user,)
# The example calendar generator runs chime-calendar, which is found beside chimed.
run: build config-modes
	@PATH="$(CURDIR)/.build/debug:$$PATH" .build/debug/chimed --check --config-dir=config \
		--runtime-dir=$(RUN_DIR)/runtime --state-dir=$(RUN_DIR)/state
	@echo "Starting chimed in the foreground (Ctrl-C stops it; 'kill -HUP' reloads):"
	PATH="$(CURDIR)/.build/debug:$$PATH" exec .build/debug/chimed $(RUN_INSTANCE) --config-dir=config \
		--runtime-dir=$(RUN_DIR)/runtime --state-dir=$(RUN_DIR)/state --deliver=$(RUN_DELIVER)

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests fuzzing/Sources fuzzing/Package.swift

# Most tests wait (for a real chimed, dbus-daemon, HTTP server or container), so each pass deals its suites out to
# TEST_WORKERS test processes (tools/test-shards), each running its share one test at a time: within one process,
# tests run side by side would each hold one of the two threads of Swift's cooperative pool while they wait,
# starving the async deliveries of the rest. TEST_ALONE run first with nothing beside them: two step the wall clock,
# which every other test's chimed would see, the end-to-end test steps it inside its container, the package's test
# compares the host's /usr, /etc and /var (its container's lower layers) before and after (Xvfb beside it writes
# /var/lib/xkb), and the soak measures lateness. tools/suite-seconds.* hold each suite's seconds from a run, to deal them out evenly (tools/test-shards
# --weigh LOG rewrites them). tools/test-passes runs lintian and the sanitizer's build behind the normal pass, then
# the sanitizer's pass with the fuzzers' build and smoke run behind it.
TEST_WORKERS = 4
TEST_ALONE = ChimedClockChangeTests ClockChangeMonitorTests SystemdE2ETests PackageE2ETests SoakTests
export TEST_WORKERS TEST_ALONE

test: deps-test config-modes
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory deb DEB_COMPRESSION=gzip DEB_COMPRESSION_LEVEL=1
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" MAKE="$(MAKE)" ./tools/test-passes $(TSAN_SKIP)

# The sanitizer passes (tools/sanitized-test): a build of their own each, the tests and the chimed, chimectl and
# probe they start all instrumented, and the pass fails on any report from any of those processes. Both leave
# SystemdE2ETests and SoakTests to the normal pass (they run the static release chimed, which is not instrumented).
#
# make test runs the thread sanitizer on every suite except those that start no thread of their own: ChimeCoreTests'
# parsers, calendar engine, recurrence rules and sets, quiet hours, time syntax, input bounds and zone suites, the
# calendar generator's conversion (ChimeCalendarTests), the completion scripts in their shells (what of
# ChimeCore runs on several threads, the parallel loading of NotificationSearch and GeneratorOutput, stays in), the
# documentation and help-text snapshots, chimectl history run in-process (HistoryIntegrationTests runs the binary),
# the checks of the unit files, ScaleReferenceTests (100,000 notifications) and PendingReuseTests (a fortnight of
# rebuilds, twice), which drive the scheduler from one thread on a manual clock, and DunstDesktopTests: what chimed does there (the desktop backend, focus) runs under the
# sanitizer against the recording server in ChimedDesktopTests, and dunst and Xvfb are not instrumented. What stays:
# the scheduler, the dispatcher and its timeouts, CommandRunner and the command backend, generators, the webhook
# backend, the journal and sd_notify wrappers, the desktop backend on D-Bus, and every other test that runs chimed
# or chimectl (signals, reloads, clock and zone changes, crashes). make tsan runs them all.
TSAN_SKIP = --skip '^ChimeCoreTests\.(CalendarOracleTests|CalendarRobustnessTests|TimeParsingRobustnessTests)/' \
	--skip '^ChimeCoreTests\.(ZoneRulesTests|CalendarSpecTests|TimestampTests|TimespanTests|InputBoundsTests)/' \
	--skip '^ChimeCoreTests\.(RecurrenceRuleTests|RecurrenceTriggerTests|QuietnessTests)/' \
	--skip '^ChimeCalendarTests\.' --skip '^ChimeControlTests\.CompletionTests/' \
	--skip '^ChimeCoreTests\.(UnitFileParserTests|UnitFileRobustnessTests|UnitFileWriterTests)/' \
	--skip '^ChimeControlTests\.(DocumentationTests|HistoryCommandTests)/' \
	--skip '^ChimeControlTests\.ChimectlTests/helpSnapshots' \
	--skip '^IntegrationTests\.SystemdFilesTests/' --skip '^ChimeDaemonTests\.(ScaleReferenceTests|PendingReuseTests)/' \
	--skip '^DesktopTests\.DunstDesktopTests/'

tsan: deps-test config-modes
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./tools/sanitized-test thread

asan: deps-test config-modes
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" ./tools/sanitized-test address

check: test

# The whole suite, one table (bench/README.md): calendar throughput against systemd-analyze (bench/run), then the
# running chimed (bench/daemon all: latency, burst, idle against cron, start-up, the peer systemd in a container,
# next-fire cost, scale to 1,000,000). About 15 minutes; root for the container and cron's namespace.
bench: release deps-bench
	./bench/run
	./bench/daemon --no-build --calendar-results=bench/results/calendar-latest.json all

# The soak under faults (soak/run, docs/reliability.md): 100,000 notifications, a fire every 10 ms, a SIGHUP every
# second with files changing, a failing and hanging [Command] backend, ENOSPC twice, SIGKILL twice. make test runs
# forty seconds of it (Tests/IntegrationTests/SoakTests.swift), which leaves memory to this ten-minute run.
SOAK_SECONDS ?= 600
soak: release
	./soak/run --seconds=$(SOAK_SECONDS)

# libFuzzer targets (fuzzing/, a package of its own, since each links libFuzzer's main) with AddressSanitizer and its
# leak checker, in release mode; lld, as gold fails to link them. `make fuzz` runs each for FUZZ_SECONDS (or
# FUZZ_RUNS executions) from its corpus and what earlier runs found; `make test` runs each for a few seconds on a
# corpus of its own, so that a crash or leak fails the tests. Findings are under .build/fuzz (see fuzzing/run).
FUZZ_TARGETS = unit-file calendar timestamp timespan generator state
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 3
FUZZ_BUILD_FLAGS = -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

# SwiftPM plans the fuzzing package again when its own directories change, not when chime's (a dependency of it) gain
# or lose a file: a directory of Sources changed since the plan makes it plan again.
fuzz-build: deps-fuzz
	@if [ -f fuzzing/.build/release.yaml ] && \
		[ -n "$$(find Sources -type d -newer fuzzing/.build/release.yaml -print -quit)" ]; then \
		rm -f fuzzing/.build/release.yaml fuzzing/.build/release/description.json; fi
	$(SWIFT) build --package-path fuzzing $(FUZZ_BUILD_FLAGS) $(SWIFT_FLAGS)

fuzz: fuzz-build
	./fuzzing/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Crashes, leaks and hangs (10 s) fail the smoke run; a slow input is only reported (past 1 s: a busy machine
# stretched one input of 4 ms to 208 ms, twice): slowness is for make fuzz's report and the benchmarks.
fuzz-smoke: fuzz-build
	rm -rf .build/fuzz-smoke
	FUZZ_WORK=.build/fuzz-smoke CHIME_FUZZ_SLOW_MS=1000 FUZZ_SLOW_FAILS=no \
		./fuzzing/run $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

install: shipped
	$(MAKE) --no-print-directory install-files

# What make install installs, from the programs built already (make deb stages it with this).
install-files: install-systemd
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DOCDIR)/examples/generators.d
	install -m 0755 .build/release/chimectl $(DESTDIR)$(BINDIR)/chimectl
	install -m 0755 .build/release/chimed $(DESTDIR)$(BINDIR)/chimed
	install -m 0755 .build/release/chime-calendar $(DESTDIR)$(BINDIR)/chime-calendar
	install -d $(DESTDIR)$(LIBEXECDIR)/chime
	install -m 0755 .build/release/chime-sound $(DESTDIR)$(LIBEXECDIR)/chime/chime-sound
	install -m 0644 man/chime-calendar.1 $(DESTDIR)$(MANDIR)/man1/chime-calendar.1
	install -m 0644 man/chimectl.1 $(DESTDIR)$(MANDIR)/man1/chimectl.1
	install -m 0644 man/chime.notification.5 $(DESTDIR)$(MANDIR)/man5/chime.notification.5
	install -m 0644 man/chimed.conf.5 $(DESTDIR)$(MANDIR)/man5/chimed.conf.5
	install -m 0644 man/org.chime.Notifications1.5 $(DESTDIR)$(MANDIR)/man5/org.chime.Notifications1.5
	install -m 0644 man/chimed.8 $(DESTDIR)$(MANDIR)/man8/chimed.8
	install -m 0644 docs/security.md $(DESTDIR)$(DOCDIR)/security.md
	install -m 0644 config/*.notification config/chimed.conf config/exams.csv $(DESTDIR)$(DOCDIR)/examples/
	install -d $(DESTDIR)$(DOCDIR)/examples/calendars/family
	install -m 0644 config/calendars/family/*.ics $(DESTDIR)$(DOCDIR)/examples/calendars/family/
	install -m 0755 config/generators.d/* $(DESTDIR)$(DOCDIR)/examples/generators.d/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	.build/release/chimectl completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/chimectl
	.build/release/chimectl completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_chimectl
	.build/release/chimectl completion fish >$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/chimectl.fish

# The units name chimed by its installed path; the catalog is indexed, and the user chime that chimed.service runs
# as is created, at once unless staged into a DESTDIR (a package does both when it is installed).
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDDIR)/system $(DESTDIR)$(SYSTEMDDIR)/user $(DESTDIR)$(SYSTEMDDIR)/catalog \
		$(DESTDIR)$(SYSUSERSDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/chimed.service >$(DESTDIR)$(SYSTEMDDIR)/system/chimed.service
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/user/chimed.service >$(DESTDIR)$(SYSTEMDDIR)/user/chimed.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/system/chimed.service $(DESTDIR)$(SYSTEMDDIR)/user/chimed.service
	install -m 0644 systemd/chime.catalog $(DESTDIR)$(SYSTEMDDIR)/catalog/chime.catalog
	install -m 0644 systemd/chime.sysusers $(DESTDIR)$(SYSUSERSDIR)/chime.conf
	install -d $(DESTDIR)$(TMPFILESDIR)
	install -m 0644 systemd/chime.tmpfiles $(DESTDIR)$(TMPFILESDIR)/chime.conf
	install -d $(DESTDIR)$(DBUSDIR)/services $(DESTDIR)$(DBUSDIR)/interfaces
	sed 's|@BINDIR@|$(BINDIR)|g' dbus/org.chime.Notifications1.service \
		>$(DESTDIR)$(DBUSDIR)/services/org.chime.Notifications1.service
	chmod 0644 $(DESTDIR)$(DBUSDIR)/services/org.chime.Notifications1.service
	install -m 0644 dbus/org.chime.Notifications1.xml $(DESTDIR)$(DBUSDIR)/interfaces/org.chime.Notifications1.xml
	install -d $(DESTDIR)$(DBUS_SYSTEM_POLICYDIR) $(DESTDIR)$(POLKIT_ACTIONDIR)
	install -m 0644 dbus/org.chime.Notifications1.conf $(DESTDIR)$(DBUS_SYSTEM_POLICYDIR)/org.chime.Notifications1.conf
	install -m 0644 dbus/org.chime.Notifications1.policy $(DESTDIR)$(POLKIT_ACTIONDIR)/org.chime.Notifications1.policy
	@if [ -z "$(DESTDIR)" ] && command -v journalctl >/dev/null; then journalctl --update-catalog; fi
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers $(SYSUSERSDIR)/chime.conf && systemd-tmpfiles --create $(TMPFILESDIR)/chime.conf; fi

uninstall: uninstall-systemd
	rm -f $(DESTDIR)$(BINDIR)/chimectl $(DESTDIR)$(BINDIR)/chimed $(DESTDIR)$(BINDIR)/chime-calendar
	rm -f $(DESTDIR)$(LIBEXECDIR)/chime/chime-sound
	-rmdir $(DESTDIR)$(LIBEXECDIR)/chime 2>/dev/null
	rm -f $(DESTDIR)$(MANDIR)/man1/chimectl.1 $(DESTDIR)$(MANDIR)/man1/chime-calendar.1 \
		$(DESTDIR)$(MANDIR)/man5/chime.notification.5 \
		$(DESTDIR)$(MANDIR)/man5/chimed.conf.5 $(DESTDIR)$(MANDIR)/man5/org.chime.Notifications1.5 \
		$(DESTDIR)$(MANDIR)/man8/chimed.8
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/chimectl \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_chimectl \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/chimectl.fish

# The user chime stays, as users do on Debian when their package goes: files may still belong to it.
uninstall-systemd:
	rm -f $(DESTDIR)$(SYSTEMDDIR)/system/chimed.service $(DESTDIR)$(SYSTEMDDIR)/user/chimed.service
	rm -f $(DESTDIR)$(SYSTEMDDIR)/catalog/chime.catalog $(DESTDIR)$(SYSUSERSDIR)/chime.conf \
		$(DESTDIR)$(TMPFILESDIR)/chime.conf
	rm -f $(DESTDIR)$(DBUSDIR)/services/org.chime.Notifications1.service \
		$(DESTDIR)$(DBUSDIR)/interfaces/org.chime.Notifications1.xml \
		$(DESTDIR)$(DBUS_SYSTEM_POLICYDIR)/org.chime.Notifications1.conf \
		$(DESTDIR)$(POLKIT_ACTIONDIR)/org.chime.Notifications1.policy
	@if [ -z "$(DESTDIR)" ] && command -v journalctl >/dev/null; then journalctl --update-catalog; fi

clean:
	rm -rf .build fuzzing/.build
