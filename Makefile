# crdyn: one entry point.  make | make test | make cases | make check-deps | make info | make clean
# The CPU build needs cJSON, CHOLMOD (SuiteSparse), METIS, OpenBLAS and ARPACK;
# the tests and `crdyn plot` need python3 with matplotlib (and jsonschema: the
# case-file schema test, tests/cli/schema.sh).  The OpenCL backend
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

# CUDA (docs/cuda.md): the CUDA backend and the cuSOLVER sparse Cholesky,
# built where nvcc is found (CUDA=0 leaves them out, CUDA=1 requires nvcc).
# Code for sm_90 (H100/H200) plus compute_90 PTX for later cards.  FMA
# contraction on by default (CUDA_FMA=1: nvcc's -fmad=true, and the lean
# force kernel's reciprocals, CRD_EF_RCP): a fused multiply-add is one FP64
# instruction for two, and the element code is mostly multiply-adds; the
# results are the CPU's to round-off (t230 bounds the lean kernel's at
# 1e-12, or the CPU's own one-ulp spread on thin sections).  CUDA_FMA=0 is
# the bitwise build (-fmad=false, divisions): the device rounds as the host
# does, which the bitwise parity checks need (docs/cuda.md, "FMA").
# Sanitizer builds leave CUDA out unless CUDA=1 is given (ASan and the CUDA
# runtime's driver probing do not mix).  The cusolverSp API is deprecated in
# CUDA 13 (in favour of cuDSS): DISABLE_*_DEPRECATED keeps the build silent.
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CUDA_FOUND := $(shell [ -x $(NVCC) ] && [ -e $(CUDA_HOME)/include/cusolverSp_LOWLEVEL_PREVIEW.h ] && echo 1)
ifeq ($(SAN),1)
  CUDA ?= 0
endif
CUDA ?= $(if $(CUDA_FOUND),1,0)
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
# Device optimization.  The element code inlined into the kernels takes nvcc
# ~40 s at full optimization (cicc 36 s, ptxas 19 s, measured here), which
# every plain `make` would pay for a backend this machine cannot run: the
# everyday build compiles the device code at -O1 (~3 s, the same results:
# the same contraction either way), and `make gpu-bundle`, the build
# that travels to the GPU, at full optimization (CUDA_DEVOPT=).
CUDA_DEVOPT ?= -Xcicc -O1 -Xptxas -O1
CUDA_FMA ?= 1
ifeq ($(CUDA_FMA),1)
  CUDA_FMA_FLAGS := -fmad=true -DCRD_EF_RCP=1
else
  CUDA_FMA_FLAGS := -fmad=false
endif
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_ARCH) $(CUDA_FMA_FLAGS) $(CUDA_DEVOPT) -Xcompiler -Wall,-Wextra
ifeq ($(CUDA),1)
  CUDA_DEFS := -DCRD_HAVE_CUDA -DDISABLE_CUSOLVER_DEPRECATED -DDISABLE_CUSPARSE_DEPRECATED
  CPPFLAGS += $(CUDA_DEFS) -isystem $(CUDA_HOME)/include
  # cuSOLVER/cuSPARSE are dlopen'ed by solver_cusolver.c (their loading cost ~0.3 s per start)
  LDLIBS   += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lstdc++
endif

# cuDSS (optional, docs/cuda.md): CUDSS_DIR=<folder with include/cudss.h and
# lib/libcudss.so.1> (e.g. the nvidia/cu13 folder of the nvidia-cudss-cu13
# wheel) adds --solver cudss.  Off by default: the library (167 MB) cannot
# travel to the GPU machine, so `make gpu-bundle` refuses a cuDSS build.
CUDSS_DIR ?=
ifneq ($(CUDSS_DIR),)
  ifeq ($(CUDA),1)
    CUDSS := 1
    CUDA_DEFS += -DCRD_HAVE_CUDSS
    CPPFLAGS += -DCRD_HAVE_CUDSS -isystem $(CUDSS_DIR)/include
    LDLIBS   += -L$(CUDSS_DIR)/lib -Wl,-rpath,$(abspath $(CUDSS_DIR))/lib -l:libcudss.so.1
  endif
endif

# SAN=1: AddressSanitizer + UndefinedBehaviorSanitizer build in build-san/
# (the normal build/ is left alone); any finding aborts the program.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# clang by default: its UBSan also catches what gcc's does not (NULL + 0, a
# finding of the fuzzer); `make test SAN=1 CC=gcc` uses gcc's libasan/libubsan.
ifeq ($(SAN),1)
  ifeq ($(origin CC),default)
    CC := clang
  endif
  CFLAGS += $(SAN_FLAGS)
  LDLIBS += $(SAN_FLAGS)
  BUILD  ?= build-san
  # Reports also go to files under build-san/san-logs, which `make test`
  # checks at the end: a finding in a run whose failure a test expects (bad
  # input) would otherwise pass unseen.
  # intercept_tls_get_addr=0: the __tls_get_addr interceptor of the sanitizer
  # runtimes up to LLVM 16 / GCC 13 takes a dynamic TLS block that happens to
  # start 16 bytes past a page boundary for a pre-2.25 glibc header and reads
  # a bogus address from it; LeakSanitizer's tracer then dies at exit ("Tracer
  # caught signal 11", no leak reported; seen in CI on PoCL runs, whose
  # dlopen'ed device library and LLVM hold dynamic TLS).  crdyn's own TLS is
  # static, so leak scanning loses nothing of ours.
  # tests/san/lsan.supp: leaks inside PoCL's LLVM kernel compiler (see there).
  SAN_LOGS := $(abspath $(BUILD))/san-logs
  export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0:log_path=$(SAN_LOGS)/asan
  export LSAN_OPTIONS ?= suppressions=$(abspath tests/san/lsan.supp):print_suppressions=0
  export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$(SAN_LOGS)/ubsan
endif

# MPI=1 (docs/distributed.md): the build that runs over MPI ranks
# (`mpirun -n N crdyn run CASE`), with mpicc, in build-mpi/; without it no
# MPI code is compiled and crdyn runs as one process.
ifeq ($(MPI),1)
  ifeq ($(origin CC),default)
    CC := mpicc
  endif
  CPPFLAGS += -DCRD_HAVE_MPI
  BUILD ?= build-mpi
  # PETSc with MUMPS (Debian's petsc-dev): --solver mumps (solver_mumps.c);
  # PETSC=0 leaves it out
  PETSC_FOUND := $(shell pkg-config --exists petsc && echo 1)
  PETSC ?= $(if $(PETSC_FOUND),1,0)
  ifeq ($(PETSC),1)
    CPPFLAGS += -DCRD_HAVE_PETSC $(filter -I%,$(shell pkg-config --cflags petsc))
    LDLIBS   += $(shell pkg-config --libs petsc) -Wl,-rpath,$(shell pkg-config --variable=libdir petsc)
  endif
endif

BUILD   ?= build
# src/host/<part>/ (docs/architecture.md): one object per source, named by
# its file (the names are unique across the folders), found through vpath.
HOST_DIRS := $(sort $(dir $(wildcard src/host/*/*.c src/host/*/*/*.c src/host/*/*/*.cpp)))
vpath %.c $(HOST_DIRS)
vpath %.cpp $(HOST_DIRS)
LIB_SRC := $(filter-out src/host/cli/main.c,$(wildcard src/host/*/*.c src/host/*/*/*.c))
LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(notdir $(LIB_SRC)))
CPU_DIR := src/host/backends/cpu
# the OpenCL program: the CRD_HD headers (dependency order) and the kernels
# (src/kernels/*.h: one text with the CUDA kernels)
KERNEL_TEXT := src/kernels/elements.h src/kernels/explicit_loop.h
CL_PARTS := include/crdyn/crd_hd.h include/crdyn/director.h include/crdyn/shell_q4.h include/crdyn/cr_frame.h \
            include/crdyn/shell_dyn.h include/crdyn/elem_eval.h include/crdyn/elem_split.h include/crdyn/shell_mass.h \
            include/crdyn/explicit_node.h $(KERNEL_TEXT)
ifeq ($(OPENCL),1)
  LIB_OBJ += $(BUILD)/obj/crd_cl_source.o
endif
# The CPU element bodies are also built for wider x86-64 levels and picked
# at run time (include/crdyn/elem_isa.h): the same binary runs on any
# x86-64 and uses AVX2/AVX-512 where the CPU has them.  PORTABLE=1 (or
# ELEM_ISAS=) builds the generic variant only.  -ffp-contract=off: no FMA
# fusion, so every variant gives the generic variant's (and OpenCL's) bits.
ifeq ($(PORTABLE),1)
  ELEM_ISAS ?=
else ifeq ($(shell uname -m),x86_64)
  ELEM_ISAS ?= v3 v4
endif
ELEM_OPT ?= -O3 -ffp-contract=off
LIB_OBJ += $(patsubst %,$(BUILD)/obj/elem_isa_%.o,$(ELEM_ISAS))
# The range bodies (src/host/backends/cpu/elem_batch.cpp): the element headers compiled
# as C++ over a vector type, several elements per vector, one object per
# variant beside elem_isa_<v>.o.  No C++ runtime is used (no exceptions,
# RTTI, allocation), so the C link line stays as it is.
ifeq ($(origin CXX),default)
  CXX := $(if $(filter clang,$(notdir $(CC))),clang++,g++)
endif
CXXFLAGS ?= $(OPT) -g
CXXFLAGS += -std=c++17 -Wall -Wextra -fno-exceptions -fno-rtti -fopenmp $(if $(filter 1,$(SAN)),$(SAN_FLAGS))
# clang's UBSan checks of C++ function types and vtables need the C++ ABI
# library's type info, which the C link does not bring (and there is no
# virtual or indirect C++ call to check)
ifeq ($(SAN)$(findstring clang,$(notdir $(CXX))),1clang)
  CXXFLAGS += -fno-sanitize=function,vptr
endif
LIB_OBJ += $(BUILD)/obj/elem_batch.o $(patsubst %,$(BUILD)/obj/elem_batch_%.o,$(ELEM_ISAS))
TESTS_C := $(wildcard tests/t[0-9][0-9][0-9]-*.c)
TESTS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TESTS_C))
HEADERS := $(wildcard include/crdyn/*.h) $(wildcard src/host/*/*.h src/host/*/*/*.h)
# the CUDA kernels: the same CRD_HD headers, compiled by nvcc
CU_SRC := $(wildcard src/kernels/*.cu)
ifeq ($(CUDA),1)
  LIB_OBJ += $(patsubst src/kernels/%.cu,$(BUILD)/obj/%.cu.o,$(CU_SRC))
endif

DEB_PKGS := libcjson-dev libsuitesparse-dev libmetis-dev libopenblas-dev libarpack2-dev python3-matplotlib python3-jsonschema g++
DEP_FILES := /usr/include/cjson/cJSON.h /usr/include/suitesparse/cholmod.h /usr/include/metis.h /usr/include/arpack/arpack.h \
             /usr/lib/python3/dist-packages/matplotlib/__init__.py /usr/lib/python3/dist-packages/jsonschema/__init__.py \
             /usr/bin/g++
# OpenCL backend and its tests (PoCL: OpenCL on the CPU); OPENCL=0 skips them
ifneq ($(OPENCL),0)
  DEB_PKGS += opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo libclblast-dev
  DEP_FILES += /usr/include/CL/cl.h /usr/lib/x86_64-linux-gnu/libOpenCL.so /usr/include/clblast_c.h \
               /etc/OpenCL/vendors/pocl.icd
endif

.PHONY: gpu-bundle gpu-check test-mpi
.PHONY: all test deps check-deps check-tools info clean complexity bench bench-tools bench-smoke valgrind fuzz fuzz-build cases
all: check-deps $(BUILD)/crdyn

# SAN=1, make fuzz and make valgrind also need clang, its runtimes and
# OpenMP (libclang-rt-14-dev, libomp-dev) and valgrind; .ci/run installs them.
TOOL_PKGS := clang libclang-rt-14-dev libomp-dev valgrind
TOOL_FILES := /usr/bin/clang /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a \
              /usr/lib/llvm-14/lib/clang/14.0.6/include/omp.h /usr/bin/valgrind
ifeq ($(SAN),1)
  DEB_PKGS += $(TOOL_PKGS)
  DEP_FILES += $(TOOL_FILES)
endif
check-tools:
	@$(MAKE) --no-print-directory check-deps DEB_PKGS="$(TOOL_PKGS)" DEP_FILES="$(TOOL_FILES)"

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

# The configuration the objects were built with (compilers, flags, the
# backends found): when it changes, e.g. OpenCL installed after a build, or
# another CUDA_DEVOPT, everything is rebuilt rather than linked stale.
BUILD_CONFIG := $(strip $(CC) $(CXX) $(CPPFLAGS) $(CFLAGS) $(CXXFLAGS) $(LDLIBS) $(NVCCFLAGS))
$(shell mkdir -p $(BUILD) && { printf '%s\n' '$(BUILD_CONFIG)' | cmp -s - $(BUILD)/config.flags || \
  printf '%s\n' '$(BUILD_CONFIG)' >$(BUILD)/config.flags; })
HEADERS += $(BUILD)/config.flags

$(BUILD)/obj/%.o: %.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/elem_isa.o: $(CPU_DIR)/elem_isa.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(CPPFLAGS) $(foreach i,$(ELEM_ISAS),-DCRD_ELEM_HAVE_$(i)) $(CFLAGS) $(ELEM_OPT) -c $< -o $@

$(BUILD)/obj/elem_isa_%.o: $(CPU_DIR)/elem_isa.c $(HEADERS) | $(BUILD)/obj
	$(CC) $(CPPFLAGS) -DCRD_ELEM_ISA_SUFFIX=$* $(CFLAGS) $(ELEM_OPT) -march=x86-64-$* -c $< -o $@

$(BUILD)/obj/elem_batch.o: $(CPU_DIR)/elem_batch.cpp $(HEADERS) | $(BUILD)/obj
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(ELEM_OPT) -c $< -o $@

$(BUILD)/obj/elem_batch_%.o: $(CPU_DIR)/elem_batch.cpp $(HEADERS) | $(BUILD)/obj
	$(CXX) $(CPPFLAGS) -DCRD_ELEM_ISA_SUFFIX=$* $(CXXFLAGS) $(ELEM_OPT) -march=x86-64-$* -c $< -o $@

$(BUILD)/gen/crd_cl_source.c: tools/cl_embed.sh $(CL_PARTS) | $(BUILD)/gen
	sh tools/cl_embed.sh $@ $(CL_PARTS)

$(BUILD)/obj/crd_cl_source.o: $(BUILD)/gen/crd_cl_source.c | $(BUILD)/obj
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: src/kernels/%.cu $(KERNEL_TEXT) $(HEADERS) | $(BUILD)/obj
	@[ -x $(NVCC) ] || { echo "crdyn: CUDA=1 but nvcc not found at $(NVCC) (set NVCC= or CUDA_HOME=, or CUDA=0)"; exit 1; }
	@echo "$(NVCC) $(NVCCFLAGS) $(CUDA_DEFS) -Iinclude -c $< -o $@"; \
	$(NVCC) $(NVCCFLAGS) $(CUDA_DEFS) -Iinclude -c $< -o $@ >$@.log 2>&1; rc=$$?; cat $@.log; exit $$rc

$(BUILD)/libcrdyn.a: $(LIB_OBJ)
	ar rcs $@ $^

$(BUILD)/crdyn: $(BUILD)/obj/main.o $(BUILD)/libcrdyn.a
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/tap.h tests/fuzz_replay.h tests/elem_util.h tests/backend_util.h fuzz/fuzz_case.c fuzz/fuzz_gmsh.c $(BUILD)/libcrdyn.a $(HEADERS) | $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $< $(BUILD)/libcrdyn.a -o $@ $(LDLIBS)

# t230: the lean force phases also with reciprocals and FMA contraction
# (tests/elem_force_fma.c), the default device build's choices, checked
# against the CPU to 1e-12; x86-64-v3 has FMA (the test skips that check
# on a CPU without it)
EF_FMA_FLAGS := -ffp-contract=fast $(if $(filter x86_64,$(shell uname -m)),-march=x86-64-v3)
$(BUILD)/tests/elem_force_fma.o: tests/elem_force_fma.c tests/elem_force_host.h $(HEADERS) | $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(filter-out -march=%,$(CFLAGS)) $(EF_FMA_FLAGS) -c $< -o $@
$(BUILD)/tests/t230-elem-force: tests/t230-elem-force.c tests/elem_force_host.h tests/tap.h tests/elem_util.h \
    $(BUILD)/tests/elem_force_fma.o $(BUILD)/libcrdyn.a $(HEADERS) | $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $< $(BUILD)/tests/elem_force_fma.o $(BUILD)/libcrdyn.a -o $@ $(LDLIBS)

# the dependencies are checked (and installed) before anything compiles,
# also under make -j (every object waits for its folder, the folder for this)
$(BUILD)/obj $(BUILD)/tests $(BUILD)/gen: | check-deps
	mkdir -p $@

# MPI (docs/distributed.md): the MPI build in build-mpi/ beside this one,
# and its parity with the single process (tests/mpi/parity.sh; needs mpicc
# and mpirun: Debian's openmpi-bin and libopenmpi-dev)
test-mpi: all
	$(MAKE) MPI=1 BUILD=build-mpi CUDA=0 all
	@sh tests/mpi/parity.sh $(BUILD)/crdyn build-mpi/crdyn > build-mpi/parity.tap; rc=$$?; cat build-mpi/parity.tap; \
	p=$$(grep -c '^ok ' build-mpi/parity.tap); f=$$(grep -c '^not ok ' build-mpi/parity.tap); \
	echo "$$p passed, $$f failed"; [ $$rc -eq 0 ] && [ $$f -eq 0 ]

test: all $(TESTS) bench-tools
ifeq ($(SAN),1)
	@rm -rf $(SAN_LOGS); mkdir -p $(SAN_LOGS)
	@sh tests/run.sh $(BUILD); rc=$$?; \
	if ls $(SAN_LOGS)/* >/dev/null 2>&1; then \
	  echo "sanitizer reports in $(SAN_LOGS):"; head -60 $(SAN_LOGS)/*; exit 1; \
	fi; [ $$rc -eq 0 ] && echo "sanitizers: no reports (ASan, UBSan, LeakSanitizer)"; exit $$rc
else
	@sh tests/run.sh $(BUILD)
endif

# ------------------------------------------------ every shipped case
# make cases: each cases/*.json runs as shipped (no case shortened) into a
# temporary folder and must exit 0 with summary.json "status": "complete"
# (tools/run_cases.sh; CASE_TIMEOUT=seconds per case, default 600).
cases: all
	@sh tools/run_cases.sh $(BUILD)/crdyn

# ------------------------------------------------ valgrind (memcheck)
# A small static and a small dynamic case under memcheck; any error or
# definite/indirect leak fails (tests/valgrind/*.json).
VALGRIND_CASES := $(wildcard tests/valgrind/*.json)
VALGRIND := valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
            --track-origins=yes --suppressions=tests/valgrind/openmp.supp
valgrind: all check-tools
	@command -v valgrind >/dev/null || { echo "crdyn: valgrind not found (apt-get install valgrind)"; exit 1; }
	@rm -rf $(BUILD)/valgrind; fail=0; for c in $(VALGRIND_CASES); do \
	  n=$$(basename $$c .json); \
	  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(VALGRIND) --log-file=$(BUILD)/valgrind-$$n.log \
	    $(BUILD)/crdyn run $$c --out $(BUILD)/valgrind/$$n --quiet; rc=$$?; \
	  if [ $$rc -eq 0 ]; then echo "valgrind $$n: clean: $$(grep -o "ERROR SUMMARY.*" $(BUILD)/valgrind-$$n.log)"; \
	  else echo "valgrind $$n: FAILED (status $$rc)"; cat $(BUILD)/valgrind-$$n.log; fail=1; fi; \
	done; exit $$fail

# ------------------------------------------------ libFuzzer (clang)
# make fuzz FUZZ_TIME=SECONDS: each harness (fuzz/fuzz_*.c) runs that long on
# a corpus in build-fuzz/corpus/NAME seeded from cases/, fuzz/seeds/ and
# fuzz/msh/; a crash stops with its input in build-fuzz/artifacts/.
FUZZ_TIME ?= 60
FUZZ_CC   ?= clang
FUZZ_DIR  := build-fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=c11 -Wall -Wextra -fopenmp $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_OBJ  := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(notdir $(LIB_SRC)))
# the generic range bodies (elem_batch.cpp; elem_isa.c is built here without
# the v3/v4 variants): C++ without its runtime, UBSan's C++ type checks off
# as in the SAN build
FUZZ_CXX  ?= clang++
FUZZ_CXXFLAGS := -O1 -g -std=c++17 -Wall -Wextra -fno-exceptions -fno-rtti -fopenmp $(FUZZ_SAN) \
  -fno-sanitize=function,vptr -fsanitize=fuzzer-no-link
FUZZ_OBJ  += $(FUZZ_DIR)/obj/elem_batch.o
ifeq ($(OPENCL),1)
  FUZZ_OBJ += $(FUZZ_DIR)/obj/crd_cl_source.o   # the embedded OpenCL program the backend links
endif
ifeq ($(CUDA),1)
  FUZZ_OBJ += $(patsubst src/kernels/%.cu,$(BUILD)/obj/%.cu.o,$(CU_SRC))  # nvcc's objects, not instrumented
endif
FUZZ_BINS := $(FUZZ_DIR)/fuzz_case $(FUZZ_DIR)/fuzz_gmsh
FUZZ_OPTS := -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# corpus folders per harness: the first one collects what the fuzzer finds
FUZZ_SEEDS_case := cases fuzz/seeds/json
FUZZ_SEEDS_gmsh := fuzz/msh

$(FUZZ_DIR)/obj/%.o: %.c $(HEADERS) | $(FUZZ_DIR)/obj
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/elem_batch.o: $(CPU_DIR)/elem_batch.cpp $(HEADERS) | $(FUZZ_DIR)/obj
	$(FUZZ_CXX) $(CPPFLAGS) $(FUZZ_CXXFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/crd_cl_source.o: $(BUILD)/gen/crd_cl_source.c | $(FUZZ_DIR)/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/libcrdyn.a: $(FUZZ_OBJ)
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DIR)/libcrdyn.a $(HEADERS) | $(FUZZ_DIR)/obj
	$(FUZZ_CC) $(CPPFLAGS) -DFUZZ_MSH_DIR='"$(abspath fuzz/msh)"' $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  $< $(FUZZ_DIR)/libcrdyn.a -o $@ $(LDLIBS) $(FUZZ_SAN)

$(FUZZ_DIR)/obj:
	mkdir -p $@

fuzz-build: check-deps check-tools $(FUZZ_BINS)

fuzz: fuzz-build
	@mkdir -p $(FUZZ_DIR)/artifacts; for h in case gmsh; do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$h; \
	  case $$h in case) seeds="$(FUZZ_SEEDS_case)";; *) seeds="$(FUZZ_SEEDS_gmsh)";; esac; \
	  echo "fuzz_$$h: $(FUZZ_TIME) s"; \
	  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 \
	  $(FUZZ_DIR)/fuzz_$$h $(FUZZ_OPTS) -max_total_time=$(FUZZ_TIME) -dict=fuzz/$$h.dict \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$$h- $(FUZZ_DIR)/corpus/$$h $$seeds \
	    >$(FUZZ_DIR)/fuzz_$$h.log 2>&1 || { tail -60 $(FUZZ_DIR)/fuzz_$$h.log; exit 1; }; \
	  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss)' $(FUZZ_DIR)/fuzz_$$h.log; \
	  echo "  corpus: $$(ls $(FUZZ_DIR)/corpus/$$h | wc -l) found + seeds"; \
	done

# Benchmarks (profiling/README.md): not part of `make test`.  bench-tools are
# the ceilings (DGEMM of the OpenBLAS crdyn links, triad bandwidth) and the
# element flop counter; BENCH_ARGS go to profiling/bench.py.
BENCH_TOOLS := $(BUILD)/bench/ceil_dgemm $(BUILD)/bench/ceil_stream $(BUILD)/bench/flopcount $(BUILD)/bench/kernbench
bench-tools: $(BENCH_TOOLS)
$(BUILD)/bench/ceil_dgemm: profiling/src/ceil_dgemm.c | $(BUILD)/bench
	$(CC) -O2 -std=c11 -Wall -Wextra $< -o $@ -lopenblas
$(BUILD)/bench/ceil_stream: profiling/src/ceil_stream.c | $(BUILD)/bench
	$(CC) $(OPT) -std=c11 -Wall -Wextra -fopenmp $< -o $@
$(BUILD)/bench/flopcount: profiling/src/flopcount.cpp $(HEADERS) | $(BUILD)/bench
	$(CXX) -O1 -std=c++11 -Wall -Wextra -Iinclude $< -o $@
$(BUILD)/bench/kernbench: profiling/src/kernbench.c $(BUILD)/libcrdyn.a $(HEADERS) | $(BUILD)/bench
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(BUILD)/libcrdyn.a -o $@ $(LDLIBS)
# the lean force kernel's throughput on a device (make gpu-check; CUDA builds)
$(BUILD)/bench/leanbench: profiling/src/leanbench.c $(BUILD)/libcrdyn.a $(HEADERS) | $(BUILD)/bench
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(BUILD)/libcrdyn.a -o $@ $(LDLIBS)
$(BUILD)/bench:
	mkdir -p $@
bench: all bench-tools
	python3 profiling/bench.py --build $(BUILD) $(BENCH_ARGS)
bench-smoke: all bench-tools
	python3 profiling/bench.py --build $(BUILD) --smoke --out $(BUILD)/bench-smoke --results $(BUILD)/bench-smoke/RESULTS.md

# ------------------------------------------------ GPU machine (docs/cuda.md)
# gpu-bundle (here): the binary, t501-cuda, flopcount and their non-glibc,
# non-CUDA shared libraries in build/gpu-bundle(.tar.gz), to carry.
# gpu-check (there): parity tests and the ladder from the carried bundle;
# no prerequisites, so that make does not try to rebuild on that machine.
# The bundle is built apart (GPU_BUILD) with the device code at full
# optimization; it lands in $(BUILD)/gpu-bundle(.tar.gz) as before.
# Beside the full build, the binary with the device code at -O1 (the
# everyday build's) and at -G (no device optimization), so that the check
# tells code generation from logic; and compute-sanitizer from PyPI's
# nvidia-cuda-sanitizer-api wheel (downloaded once into $(GPU_CACHE); the
# bundle carries the wheel as it is).
GPU_BUILD ?= build-gpu
GPU_CACHE ?= build-gpu-cache
# the bundle's main build: FMA contraction (the default); GPU_FMA=0 carries
# the bitwise build instead
GPU_FMA ?= $(CUDA_FMA)
SANITIZER_WHEEL_PKG ?= nvidia-cuda-sanitizer-api==13.*
gpu-bundle:
	@[ "$(CUDA)" = 1 ] || { echo "crdyn: gpu-bundle needs the CUDA build (nvcc not found; CUDA=$(CUDA))"; exit 1; }
	@[ -z "$(CUDSS)" ] || { echo "crdyn: gpu-bundle: a cuDSS build (CUDSS_DIR) cannot travel (libcudss is 167 MB); rebuild without CUDSS_DIR"; exit 1; }
	$(MAKE) BUILD=$(GPU_BUILD) CUDA_DEVOPT= CUDA_FMA=$(GPU_FMA) all $(GPU_BUILD)/tests/t501-cuda $(GPU_BUILD)/bench/flopcount \
	  $(GPU_BUILD)/bench/leanbench
	$(MAKE) BUILD=$(GPU_BUILD)-O1 all
	$(MAKE) BUILD=$(GPU_BUILD)-G CUDA_DEVOPT=-G all
	@mkdir -p $(GPU_CACHE); ls $(GPU_CACHE)/nvidia_cuda_sanitizer_api-*.whl >/dev/null 2>&1 || \
	  pip download --no-deps -q -d $(GPU_CACHE) "$(SANITIZER_WHEEL_PKG)" || \
	  echo "crdyn: gpu-bundle: no compute-sanitizer wheel (pip download $(SANITIZER_WHEEL_PKG) failed): the check runs without it"
	VARIANTS="$(GPU_BUILD)-O1/crdyn:O1 $(GPU_BUILD)-G/crdyn:G" SANITIZER_WHEEL="$$(ls $(GPU_CACHE)/nvidia_cuda_sanitizer_api-*.whl 2>/dev/null | head -1)" \
	  sh profiling/gpu_bundle.sh $(GPU_BUILD) $(BUILD)/gpu-bundle
gpu-check:
	sh profiling/gpu_check.sh $(BUILD)/gpu-bundle

# The house rules on function size and complexity (tools/complexity.sh,
# lizard from PyPI): no host function over 100 lines, at most 5 over 60,
# none with a cyclomatic complexity over 30.
complexity:
	@sh tools/complexity.sh

info:
	@echo "cc: $(CC) $(CFLAGS)"; echo "backends: cpu$$( [ "$(OPENCL)" = 1 ] && echo ', opencl')"; \
	echo "element variants: generic $(ELEM_ISAS) ($(ELEM_OPT))"; \
	for f in $(DEP_FILES); do [ -e $$f ] && echo "found $$f" || echo "MISSING $$f"; done
	@[ "$(CUDA)" = 1 ] && echo "cuda: yes, nvcc $(NVCC) $(NVCCFLAGS)$(if $(CUDSS), cuDSS $(CUDSS_DIR))" || echo "cuda: no (CUDA=$(CUDA))"

clean:
	rm -rf $(BUILD) build-san build-fuzz $(GPU_BUILD) $(GPU_BUILD)-O1 $(GPU_BUILD)-G
