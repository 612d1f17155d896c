# chime — build, test, run and install.
#
#   make run       install what is missing, build, run on the example configuration
#   make test      install what is missing, build with warnings as errors, lint, run every test
#   make install   PREFIX=/usr/local DESTDIR= : binaries, man pages, example configuration
#   make bench     release build and the benchmark suite

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
DATADIR = $(PREFIX)/share/chime
SWIFT ?= swift
SWIFT_FLAGS ?=

# Debian packages: for building, and for what the tests run for real.
BUILD_PACKAGES = libsystemd-dev pkg-config
TEST_PACKAGES = systemd tzdata python3

.PHONY: all build release run test check lint deps deps-build deps-test config-modes install uninstall bench clean

all: build

deps-build:
	@./tools/ensure-packages $(BUILD_PACKAGES)

deps-test: deps-build
	@./tools/ensure-packages $(TEST_PACKAGES)

deps: deps-test

build: deps-build
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps-build
	$(SWIFT) build -c release $(SWIFT_FLAGS)

# chimed refuses configuration and generators that its group or others can write; git keeps only the x bit, so
# a checkout made with umask 002 needs this before the examples can be used.
config-modes:
	@chmod -R go-w config

# The daemon in the foreground on the example configuration; deliveries appear as JSON lines on stdout.
RUN_DIR = .build/chime-run
run: build config-modes
	@.build/debug/chimed --check --config-dir=config
	@echo "Starting chimed in the foreground (Ctrl-C stops it; 'kill -HUP' reloads):"
	exec .build/debug/chimed --config-dir=config --runtime-dir=$(RUN_DIR)/runtime --state-dir=$(RUN_DIR)/state \
		--deliver=journal,stdout

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

test: deps-test config-modes
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory lint
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

check: test

bench: release
	./bench/run

install: release
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(DATADIR)/examples/generators.d
	install -m 0755 .build/release/chimectl $(DESTDIR)$(BINDIR)/chimectl
	install -m 0755 .build/release/chimed $(DESTDIR)$(BINDIR)/chimed
	install -m 0644 man/chimectl.1 $(DESTDIR)$(MANDIR)/man1/chimectl.1
	install -m 0644 man/chime.notification.5 $(DESTDIR)$(MANDIR)/man5/chime.notification.5
	install -m 0644 config/*.notification config/exams.csv $(DESTDIR)$(DATADIR)/examples/
	install -m 0755 config/generators.d/* $(DESTDIR)$(DATADIR)/examples/generators.d/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/chimectl $(DESTDIR)$(BINDIR)/chimed
	rm -f $(DESTDIR)$(MANDIR)/man1/chimectl.1 $(DESTDIR)$(MANDIR)/man5/chime.notification.5
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf .build
