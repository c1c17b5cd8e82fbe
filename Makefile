# pvshim: a standalone Xen PV-shim. Top-level build; see README.md.
#   make          build the shim image (build/pvshim), test guests and tools
#   make deps     install the Debian packages the build and the tests need (root)
#   make run      the main job: boot the Debian Linux PV guest in a shim under a real Xen L0
#   make test     host unit tests + guest runs on the real Xen L0; ends with "N passed, N failed"
export TOP := $(CURDIR)
export O := $(TOP)/build

.PHONY: all deps shim guests corpus run test unit clean
all: shim guests

deps:
	@./setup/deps.sh

shim: deps
	@$(MAKE) --no-print-directory -C shim

guests: deps
	@$(MAKE) --no-print-directory -C test/guests

corpus: deps
	@./test/corpus/build-corpus.sh

run: all corpus
	./test/run-guest --l0 xen --shim stock --guest linux --vcpus 2

unit: deps
	@$(MAKE) --no-print-directory -C test/unit

test: all corpus
	@./test/run-tests

clean:
	rm -rf $(O)
