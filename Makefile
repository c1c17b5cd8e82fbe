# pvshim: a standalone Xen PV-shim. Top-level build; see README.md.
#   make          build the shim image (build/pvshim), test guests and tools
#   make deps     install the Debian packages the build and the tests need (root)
#   make run      the main job: boot the Debian Linux PV guest in a shim under a real Xen L0
#   make test     host unit tests + guest runs on the real Xen L0; ends with "N passed, N failed"
#   make fuzz     fuzz the guest-image path, the ptwr instruction decoder, the page-table validator
#                 (FUZZ_TIME=seconds each, default 600), then run the hostile guest hcfuzz on our
#                 shim for HCFUZZ_SEEDS seeds (default 10; HCFUZZ_CALLS, HCFUZZ_SEED0);
#                 FUZZ_TARGETS=image|insn|mmu|hcfuzz picks; test/fuzz/Makefile
#   make install  the shim under the Xen boot directory and xl-shim on PATH (DESTDIR, PREFIX)
#   make deb      build/pvshim_<version>_amd64.deb with Debian's tools (debian/), checked by lintian
export TOP := $(CURDIR)
export O := $(TOP)/build

PREFIX ?= /usr/local

.PHONY: all deps shim guests tools corpus run test test-long unit fuzz install deb clean
all: shim guests tools

deps:
	@./setup/deps.sh

shim: deps
	@$(MAKE) --no-print-directory -C shim

guests: deps
	@$(MAKE) --no-print-directory -C test/guests

tools: deps
	@$(MAKE) --no-print-directory -C tools/xl-shim all

fuzz: deps
	@$(MAKE) --no-print-directory -C test/fuzz run

install: all
	@$(MAKE) --no-print-directory -C tools/xl-shim install PREFIX=$(PREFIX)

# A copy of the tree without build/ and .git (dpkg-buildpackage writes its output beside the
# source), built there; the .deb comes back to build/, then lintian must find no error.
# Each build in a directory of its own, so two at once (suite lines) never share one.
deb: deps
	@mkdir -p $(O) && d=$$(mktemp -d $(O)/deb-src.XXXXXX) && mkdir $$d/pvshim && \
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $$d/pvshim && \
	(cd $$d/pvshim && dpkg-buildpackage -b -us -uc --no-sign) && \
	mv $$d/pvshim_*_amd64.deb $(O)/ && rm -rf $$d || { rm -rf $$d; exit 1; }
	lintian --fail-on error $(O)/pvshim_*_amd64.deb
	@ls -l $(O)/pvshim_*_amd64.deb

corpus: deps
	@./test/corpus/build-corpus.sh

run: all corpus
	./test/run-guest --l0 xen --shim ours --guest linux --vcpus 1

unit: deps
	@$(MAKE) --no-print-directory -C test/unit

test: all corpus
	@./test/run-tests

# the long oracle and baseline runs make test leaves out (test/suite-long)
test-long: all corpus
	@./test/run-tests --suite test/suite-long

clean:
	rm -rf $(O)
