# crdyn: one entry point.  make | make test | make check-deps | make info | make clean
# The CPU build needs cJSON, CHOLMOD (SuiteSparse), METIS, OpenBLAS and ARPACK;
# the tests and `crdyn plot` need python3 with matplotlib.  The OpenCL backend
# (docs/opencl.md) is built when the OpenCL headers and ICD loader are found
# (OPENCL=0 leaves it out, OPENCL=1 requires it); its tests run on PoCL.
# 'make deps' installs them on Debian (as root); every build checks first and
# names what is missing.

CC      ?= gcc
OPT     ?= -O2 -march=x86-64-v2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -Wall -Wextra -fopenmp
CPPFLAGS += -D_GNU_SOURCE -Iinclude -I/usr/include/suitesparse
LDLIBS  += -lcholmod -lsuitesparseconfig -lcjson -larpack -lopenblas -lm -fopenmp

# OpenCL: the headers and the ICD loader (libOpenCL); PoCL runs it on the CPU.
OPENCL_FOUND := $(shell [ -e /usr/include/CL/cl.h ] && printf 'int main(void){return 0;}' | \
                  $(CC) -x c - -lOpenCL -o /dev/null 2>/dev/null && echo 1)
OPENCL ?= $(if $(OPENCL_FOUND),1,0)
ifeq ($(OPENCL),1)
  CPPFLAGS += -DCRD_HAVE_OPENCL
  LDLIBS   += -lOpenCL
endif

ifeq ($(SAN),1)
  CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
  LDLIBS += -fsanitize=address,undefined
endif

BUILD   := build
LIB_SRC := $(filter-out src/host/main.c,$(wildcard src/host/*.c))
LIB_OBJ := $(patsubst src/host/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
# the OpenCL program: the CRD_HD headers (dependency order) and the kernels
CL_PARTS := include/crdyn/crd_hd.h include/crdyn/director.h include/crdyn/shell_q4.h include/crdyn/cr_frame.h \
            include/crdyn/shell_dyn.h include/crdyn/elem_eval.h src/kernels/crd_elements.cl
ifeq ($(OPENCL),1)
  LIB_OBJ += $(BUILD)/obj/crd_cl_source.o
endif
TESTS_C := $(wildcard tests/t[0-9][0-9][0-9]-*.c)
TESTS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TESTS_C))
HEADERS := $(wildcard include/crdyn/*.h)

DEB_PKGS := libcjson-dev libsuitesparse-dev libmetis-dev libopenblas-dev libarpack2-dev python3-matplotlib g++
DEP_FILES := /usr/include/cjson/cJSON.h /usr/include/suitesparse/cholmod.h /usr/include/metis.h /usr/include/arpack/arpack.h \
             /usr/lib/python3/dist-packages/matplotlib/__init__.py /usr/bin/g++
# OpenCL backend and its tests (PoCL: OpenCL on the CPU); OPENCL=0 skips them
ifneq ($(OPENCL),0)
  DEB_PKGS += opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo libclblast-dev
  DEP_FILES += /usr/include/CL/cl.h /usr/lib/x86_64-linux-gnu/libOpenCL.so /usr/include/clblast_c.h \
               /etc/OpenCL/vendors/pocl.icd
endif

.PHONY: all test deps check-deps info clean validate bench bench-tools bench-smoke
all: check-deps $(BUILD)/crdyn

check-deps:
	@missing=""; for f in $(DEP_FILES); do [ -e $$f ] || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
	  echo "crdyn: missing build dependencies:$$missing"; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "crdyn: installing $(DEB_PKGS) with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_PKGS) >/dev/null || exit 1; \
	  else \
	    echo "crdyn: install them with: sudo apt-get install $(DEB_PKGS)"; exit 1; \
	  fi; \
	fi

deps:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_PKGS)

$(BUILD)/obj/%.o: src/host/%.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/gen/crd_cl_source.c: tools/cl_embed.sh $(CL_PARTS) | $(BUILD)/gen
	sh tools/cl_embed.sh $@ $(CL_PARTS)

$(BUILD)/obj/crd_cl_source.o: $(BUILD)/gen/crd_cl_source.c | $(BUILD)/obj
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcrdyn.a: $(LIB_OBJ)
	ar rcs $@ $^

$(BUILD)/crdyn: $(BUILD)/obj/main.o $(BUILD)/libcrdyn.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/tap.h $(BUILD)/libcrdyn.a $(HEADERS) | $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $< $(BUILD)/libcrdyn.a -o $@ $(LDLIBS)

$(BUILD)/obj $(BUILD)/tests $(BUILD)/gen:
	mkdir -p $@

test: all $(TESTS) bench-tools
	@sh tests/run.sh $(BUILD)

# Benchmarks (profiling/README.md): not part of `make test`.  bench-tools are
# the ceilings (DGEMM of the OpenBLAS crdyn links, triad bandwidth) and the
# element flop counter; BENCH_ARGS go to profiling/bench.py.
BENCH_TOOLS := $(BUILD)/bench/ceil_dgemm $(BUILD)/bench/ceil_stream $(BUILD)/bench/flopcount
bench-tools: $(BENCH_TOOLS)
$(BUILD)/bench/ceil_dgemm: profiling/src/ceil_dgemm.c | $(BUILD)/bench
	$(CC) -O2 -std=c11 -Wall -Wextra $< -o $@ -lopenblas
$(BUILD)/bench/ceil_stream: profiling/src/ceil_stream.c | $(BUILD)/bench
	$(CC) $(OPT) -std=c11 -Wall -Wextra -fopenmp $< -o $@
$(BUILD)/bench/flopcount: profiling/src/flopcount.cpp $(HEADERS) | $(BUILD)/bench
	$(CXX) -O1 -std=c++11 -Wall -Wextra -Iinclude $< -o $@
$(BUILD)/bench:
	mkdir -p $@
bench: all bench-tools
	python3 profiling/bench.py --build $(BUILD) $(BENCH_ARGS)
bench-smoke: all bench-tools
	python3 profiling/bench.py --build $(BUILD) --smoke --out $(BUILD)/bench-smoke --results $(BUILD)/bench-smoke/RESULTS.md

info:
	@echo "cc: $(CC) $(CFLAGS)"; echo "backends: cpu$$( [ "$(OPENCL)" = 1 ] && echo ', opencl')"; \
	for f in $(DEP_FILES); do [ -e $$f ] && echo "found $$f" || echo "MISSING $$f"; done

clean:
	rm -rf $(BUILD)
