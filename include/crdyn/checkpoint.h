/* crdyn: the checkpoint container (docs/checkpoint.md).
 *
 * A file of named sections, self-describing so that later versions can add
 * sections (rigid bodies, ...) without breaking older files or readers:
 *   header   "CRDCKPT\0", u32 version, u32 byte-order mark, u64 case hash,
 *            u64 reserved (0)                                     32 bytes
 *   sections name[16] (NUL-padded), u64 length, payload padded to 8 bytes
 *   trailer  a section named "end" whose payload is the u64 FNV-1a 64 of
 *            every byte before it
 * Readers look sections up by name and ignore those they do not know.  A
 * text section holds "key value\n" lines (doubles in C99 hex, exact).
 * The file is written to NAME.tmp, fsync'ed and renamed over NAME, so a
 * crash leaves the previous checkpoint intact. */
#ifndef CRDYN_CHECKPOINT_H
#define CRDYN_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CRD_CKPT_VERSION 1u

/* FNV-1a 64: h = crd_fnv1a(CRD_FNV_INIT, bytes, n), chainable. */
#define CRD_FNV_INIT 0xcbf29ce484222325ull
uint64_t crd_fnv1a(uint64_t h, const void *p, size_t n);
/* The hash of a file's bytes (the case's identity in a checkpoint). */
int crd_hash_file(const char *path, uint64_t *h);

typedef struct crd_ckpt_writer crd_ckpt_writer;
int crd_ckpt_begin(const char *path, uint64_t case_hash, crd_ckpt_writer **w);
int crd_ckpt_add(crd_ckpt_writer *w, const char *name, const void *data, size_t len);
/* Text section: printf-style lines appended to the section being built
 * with crd_ckpt_text_begin, closed by crd_ckpt_text_end. */
int crd_ckpt_text_begin(crd_ckpt_writer *w, const char *name);
void crd_ckpt_text_int(crd_ckpt_writer *w, const char *key, long long v);
void crd_ckpt_text_dbl(crd_ckpt_writer *w, const char *key, double v);
int crd_ckpt_text_end(crd_ckpt_writer *w);
/* Trailer, fsync, rename over the final name; frees w in any case. */
int crd_ckpt_commit(crd_ckpt_writer **w);
void crd_ckpt_abort(crd_ckpt_writer **w);

/* A checkpoint read into memory and verified (magic, version, byte order,
 * section bounds, checksum); errors name the file and what is wrong. */
typedef struct crd_ckpt crd_ckpt;
int crd_ckpt_open(const char *path, crd_ckpt **c);
void crd_ckpt_close(crd_ckpt **c);
const char *crd_ckpt_path(const crd_ckpt *c);
uint64_t crd_ckpt_case_hash(const crd_ckpt *c);
/* The payload of section name (NULL when absent). */
const void *crd_ckpt_find(const crd_ckpt *c, const char *name, size_t *len);
/* Copy section name into dst, which must be exactly len bytes. */
int crd_ckpt_get(const crd_ckpt *c, const char *name, void *dst, size_t len);
/* Values of a text section; missing keys are an error naming them. */
int crd_ckpt_get_dbl(const crd_ckpt *c, const char *section, const char *key, double *v);
/* The same, or dflt where the section lacks the key (a value added to the
 * format after version 1: checkpoints written before it still restart). */
int crd_ckpt_get_dbl_or(const crd_ckpt *c, const char *section, const char *key, double dflt, double *v);
int crd_ckpt_get_int(const crd_ckpt *c, const char *section, const char *key, long long *v);

#endif
