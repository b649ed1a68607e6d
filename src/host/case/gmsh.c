/* crdyn: reader for Gmsh .msh files, format 4.1 ASCII ("mesh": {"file": ...},
 * docs/case_format.md).  Format reference: Gmsh manual, "MSH file format" (4.1).
 *
 * What becomes what:
 * - nodes: every node of $Nodes, numbered 0.. in file order (node tags may be
 *   any positive, non-contiguous numbers; they are mapped, never used as
 *   indices).  Nodes that no quadrangle uses are kept, so indices stay
 *   predictable; the case loader decides what to do with them.
 * - elements: every 4-node quadrangle (type 3), in file order, with its node
 *   order as given (Gmsh orients quads by the surface normal).
 * - lines (type 1) and points (type 15) only carry physical-group membership.
 *   Any other element type is an error: crdyn has 4-node shells only, and
 *   silently dropping triangles would leave holes in the shell.
 * - physical groups, through $Entities (element block -> entity -> physical
 *   tags) and $PhysicalNames (dim, tag -> name): a 2D group becomes an element
 *   set (with its nodes), a 0D or 1D group a node set.  Groups of one name in
 *   several dimensions are merged into one set.  Groups without a name, and
 *   named groups with no element in the file, make no set.
 * - other sections ($NodeData, $Periodic, $PartitionedEntities, ...) are skipped.
 * Errors name the file and the line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/mesh_io.h"

/* In mesh_gen.c; kept out of mesh_io.h, whose interface is fixed. */
int crd_mesh_part_add_set_(crd_mesh_part *p, const char *name, const int32_t *nodes, int nn,
                           const int32_t *elems, int ne);

#define GM_MAX_COUNT (INT32_MAX / 4) /* nodes, elements: 4*ne and 3*nn must fit an int */

/* ----------------------------------------------------------- tokenizer */

typedef struct gm_lex {
  const char *file;
  char *buf; /* whole file, NUL-terminated */
  size_t pos, len;
  int line, tokline; /* current line; line of the last token */
} gm_lex;

/* Next whitespace-separated token and its length; 0 at end of file. */
static int next_tok(gm_lex *L, const char **tok, int *n)
{
  while (L->pos < L->len && isspace((unsigned char)L->buf[L->pos]))
    if (L->buf[L->pos++] == '\n') ++L->line;
  if (L->pos >= L->len) return 0;
  size_t start = L->pos;
  while (L->pos < L->len && !isspace((unsigned char)L->buf[L->pos])) ++L->pos;
  L->tokline = L->line;
  *tok = L->buf + start;
  *n = L->pos - start > INT32_MAX ? INT32_MAX : (int)(L->pos - start);
  return 1;
}

static int tok_is(const char *tok, int n, const char *s)
{
  return (size_t)n == strlen(s) && !strncmp(tok, s, (size_t)n);
}

#define TOKLEN(n) ((n) > 60 ? 60 : (n)) /* how much of a token a message quotes */

static int read_ll(gm_lex *L, const char *what, long long *v)
{
  const char *t;
  int n;
  CRD_CHECK(next_tok(L, &t, &n), CRD_ERR_INPUT, "%s:%d: unexpected end of file (expected %s)",
            L->file, L->line, what);
  char *end;
  errno = 0;
  *v = strtoll(t, &end, 10);
  CRD_CHECK(end == L->buf + L->pos && errno == 0, CRD_ERR_INPUT,
            "%s:%d: expected %s (an integer), got '%.*s'", L->file, L->tokline, what, TOKLEN(n), t);
  return 0;
}

/* An integer in [lo, hi]. */
static int read_int(gm_lex *L, const char *what, long long lo, long long hi, long long *v)
{
  CRD_CALL(read_ll(L, what, v));
  CRD_CHECK(*v >= lo && *v <= hi, CRD_ERR_INPUT, "%s:%d: %s %lld out of range [%lld, %lld]",
            L->file, L->tokline, what, *v, lo, hi);
  return 0;
}

static int read_dbl(gm_lex *L, const char *what, double *v)
{
  const char *t;
  int n;
  CRD_CHECK(next_tok(L, &t, &n), CRD_ERR_INPUT, "%s:%d: unexpected end of file (expected %s)",
            L->file, L->line, what);
  char *end;
  *v = strtod(t, &end);
  CRD_CHECK(end == L->buf + L->pos && isfinite(*v), CRD_ERR_INPUT,
            "%s:%d: expected %s (a number), got '%.*s'", L->file, L->tokline, what, TOKLEN(n), t);
  return 0;
}

static int expect_end(gm_lex *L, const char *section)
{
  char want[64];
  const char *t;
  int n;
  snprintf(want, sizeof want, "$End%s", section);
  int got = next_tok(L, &t, &n);
  CRD_CHECK(got && tok_is(t, n, want), CRD_ERR_INPUT, "%s:%d: expected %s, got '%.*s'", L->file,
            got ? L->tokline : L->line, want, got ? TOKLEN(n) : 0, got ? t : "");
  return 0;
}

/* ------------------------------------------------------------- context */

typedef struct gm_name { int dim, tag; char name[CRD_NAME_MAX]; } gm_name;
typedef struct gm_ent { int tag, nphys, phys0; } gm_ent; /* phys0: offset into phys */
typedef struct gm_tag { long long tag; int32_t idx; } gm_tag;
typedef struct gm_blk { int dim, tag, type; int64_t first, count; } gm_blk;

typedef struct gm_ctx {
  gm_lex L;
  gm_name *names;
  int nnames;
  gm_ent *ents[4];
  int nents[4];
  int *phys;
  int nphys;
  gm_tag *tags; /* node tag -> index, sorted by tag */
  gm_blk *blks; /* element blocks: quads (first = first element) or lines/points */
  int nblks;
  int32_t *lnodes; /* nodes of line and point elements, by block */
  int64_t nlnodes;
  int have_nodes, have_elems;
} gm_ctx;

static void gm_free(gm_ctx *c)
{
  free(c->L.buf);
  free(c->names);
  for (int d = 0; d < 4; ++d) free(c->ents[d]);
  free(c->phys);
  free(c->tags);
  free(c->blks);
  free(c->lnodes);
}

/* Grow *p to hold `need` items of `size` bytes (doubling). */
static int grow(void *pp, int64_t *cap, int64_t need, size_t size)
{
  void **p = (void **)pp;
  if (need <= *cap) return 0;
  int64_t nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, (size_t)nc * size);
  CRD_CHECK(q, CRD_ERR_MEM, "out of memory reading a Gmsh mesh (%lld items)", (long long)nc);
  *p = q;
  *cap = nc;
  return 0;
}

/* ------------------------------------------------------------ sections */

static int sec_format(gm_ctx *c)
{
  gm_lex *L = &c->L;
  const char *t;
  int n;
  long long ftype, dsize;
  CRD_CHECK(next_tok(L, &t, &n), CRD_ERR_INPUT, "%s:%d: unexpected end of file in $MeshFormat",
            L->file, L->line);
  char *end;
  double v = strtod(t, &end);
  CRD_CHECK(end == L->buf + L->pos && fabs(v - 4.1) < 1e-9, CRD_ERR_UNSUPPORTED,
            "%s:%d: Gmsh format version %.*s is not supported: crdyn reads format 4.1 ASCII "
            "(save with Mesh.MshFileVersion = 4.1, or gmsh -format msh41)",
            L->file, L->tokline, TOKLEN(n), t);
  CRD_CALL(read_ll(L, "the file type", &ftype));
  CRD_CHECK(ftype == 0, CRD_ERR_UNSUPPORTED,
            "%s:%d: binary .msh files are not supported: save as ASCII (Mesh.Binary = 0)",
            L->file, L->tokline);
  CRD_CALL(read_ll(L, "the data size", &dsize));
  CRD_CALL(expect_end(L, "MeshFormat"));
  return 0;
}

static int sec_names(gm_ctx *c)
{
  gm_lex *L = &c->L;
  long long num, dim, tag;
  CRD_CALL(read_int(L, "the number of physical names", 0, 1000000, &num));
  gm_name *nms = realloc(c->names, (size_t)(c->nnames + num + 1) * sizeof *nms);
  CRD_CHECK(nms, CRD_ERR_MEM, "out of memory reading %s", L->file);
  c->names = nms;
  for (long long k = 0; k < num; ++k) {
    CRD_CALL(read_int(L, "a physical group dimension", 0, 3, &dim));
    CRD_CALL(read_int(L, "a physical tag", INT32_MIN, INT32_MAX, &tag));
    /* "name": quoted, may hold spaces, on this line. */
    while (L->pos < L->len && (L->buf[L->pos] == ' ' || L->buf[L->pos] == '\t')) ++L->pos;
    CRD_CHECK(L->pos < L->len && L->buf[L->pos] == '"', CRD_ERR_INPUT,
              "%s:%d: expected a quoted physical name", L->file, L->line);
    const char *s = L->buf + ++L->pos, *e = s;
    while (*e && *e != '"' && *e != '\n') ++e;
    CRD_CHECK(*e == '"', CRD_ERR_INPUT, "%s:%d: physical name not closed by '\"'", L->file,
              L->line);
    CRD_CHECK(e - s < CRD_NAME_MAX && e > s, CRD_ERR_INPUT,
              "%s:%d: physical name '%.*s' must have 1 to %d characters", L->file, L->line,
              (int)(e - s), s, CRD_NAME_MAX - 1);
    gm_name *nm = &c->names[c->nnames++];
    nm->dim = (int)dim;
    nm->tag = (int)tag;
    snprintf(nm->name, sizeof nm->name, "%.*s", (int)(e - s), s);
    L->pos = (size_t)(e + 1 - L->buf);
  }
  CRD_CALL(expect_end(L, "PhysicalNames"));
  return 0;
}

static int cmp_ent(const void *a, const void *b)
{
  int x = ((const gm_ent *)a)->tag, y = ((const gm_ent *)b)->tag;
  return (x > y) - (x < y);
}

static int sec_entities(gm_ctx *c)
{
  gm_lex *L = &c->L;
  long long num[4], v;
  double d;
  int64_t cap = c->nphys;
  for (int dim = 0; dim < 4; ++dim)
    CRD_CALL(read_int(L, "an entity count", 0, GM_MAX_COUNT, &num[dim]));
  for (int dim = 0; dim < 4; ++dim) {
    free(c->ents[dim]);
    CRD_CALL(CRD_CALLOC(num[dim], &c->ents[dim]));
    c->nents[dim] = (int)num[dim];
    for (long long k = 0; k < num[dim]; ++k) {
      gm_ent *e = &c->ents[dim][k];
      CRD_CALL(read_int(L, "an entity tag", INT32_MIN, INT32_MAX, &v));
      e->tag = (int)v;
      for (int j = 0; j < (dim == 0 ? 3 : 6); ++j) /* point: x y z; others: bounding box */
        CRD_CALL(read_dbl(L, "an entity coordinate", &d));
      CRD_CALL(read_int(L, "a number of physical tags", 0, 1000000, &v));
      e->nphys = (int)v;
      e->phys0 = c->nphys;
      CRD_CALL(grow(&c->phys, &cap, c->nphys + v, sizeof *c->phys));
      for (int j = 0; j < e->nphys; ++j) {
        CRD_CALL(read_int(L, "a physical tag", INT32_MIN, INT32_MAX, &v));
        c->phys[c->nphys++] = (int)v;
      }
      if (dim > 0) { /* bounding entities: not needed */
        long long nb;
        CRD_CALL(read_int(L, "a number of bounding entities", 0, GM_MAX_COUNT, &nb));
        for (long long j = 0; j < nb; ++j) CRD_CALL(read_ll(L, "a bounding entity tag", &v));
      }
    }
    qsort(c->ents[dim], (size_t)num[dim], sizeof(gm_ent), cmp_ent);
  }
  CRD_CALL(expect_end(L, "Entities"));
  return 0;
}

static int cmp_tag(const void *a, const void *b)
{
  long long x = ((const gm_tag *)a)->tag, y = ((const gm_tag *)b)->tag;
  return (x > y) - (x < y);
}

static int sec_nodes(gm_ctx *c, crd_mesh_part *out)
{
  gm_lex *L = &c->L;
  long long nblk, nn, v, dim, param, cnt;
  double d;
  CRD_CHECK(!c->have_nodes, CRD_ERR_INPUT, "%s:%d: a second $Nodes section", L->file, L->line);
  c->have_nodes = 1;
  int line0 = L->line;
  CRD_CALL(read_int(L, "the number of node blocks", 0, GM_MAX_COUNT, &nblk));
  CRD_CALL(read_int(L, "the number of nodes", 0, GM_MAX_COUNT, &nn));
  CRD_CALL(read_ll(L, "the minimum node tag", &v));
  CRD_CALL(read_ll(L, "the maximum node tag", &v));
  CRD_CALL(CRD_CALLOC(3 * nn, &out->x));
  CRD_CALL(CRD_CALLOC(nn, &c->tags));
  out->nn = (int)nn;
  int64_t k = 0;
  for (long long b = 0; b < nblk; ++b) {
    CRD_CALL(read_int(L, "an entity dimension", 0, 3, &dim));
    CRD_CALL(read_ll(L, "an entity tag", &v));
    CRD_CALL(read_int(L, "the parametric flag", 0, 1, &param));
    CRD_CALL(read_int(L, "the number of nodes in the block", 0, nn - k, &cnt));
    for (long long j = 0; j < cnt; ++j) {
      CRD_CALL(read_int(L, "a node tag", 1, INT64_MAX, &v));
      c->tags[k + j].tag = v;
      c->tags[k + j].idx = (int32_t)(k + j);
    }
    for (long long j = 0; j < cnt; ++j) {
      for (int a = 0; a < 3; ++a)
        CRD_CALL(read_dbl(L, "a node coordinate", &out->x[3 * (k + j) + a]));
      for (int a = 0; a < (param ? dim : 0); ++a) /* u, v, w: not needed */
        CRD_CALL(read_dbl(L, "a parametric coordinate", &d));
    }
    k += cnt;
  }
  CRD_CHECK(k == nn, CRD_ERR_INPUT, "%s:%d: $Nodes announces %lld nodes but its blocks hold %lld",
            L->file, line0 + 1, nn, (long long)k);
  qsort(c->tags, (size_t)nn, sizeof *c->tags, cmp_tag);
  for (int64_t j = 1; j < nn; ++j)
    CRD_CHECK(c->tags[j].tag != c->tags[j - 1].tag, CRD_ERR_INPUT,
              "%s: $Nodes (line %d): node tag %lld appears twice", L->file, line0,
              c->tags[j].tag);
  CRD_CALL(expect_end(L, "Nodes"));
  return 0;
}

static int node_index(gm_ctx *c, int nn, long long tag, int32_t *idx)
{
  gm_tag key = {tag, 0}, *f = bsearch(&key, c->tags, (size_t)nn, sizeof key, cmp_tag);
  CRD_CHECK(f, CRD_ERR_INPUT, "%s:%d: node tag %lld is not in $Nodes", c->L.file, c->L.tokline,
            tag);
  *idx = f->idx;
  return 0;
}

static const char *type_name(long long t)
{
  switch (t) {
  case 2: return "3-node triangle";
  case 4: return "4-node tetrahedron";
  case 5: return "8-node hexahedron";
  case 6: return "6-node prism";
  case 7: return "5-node pyramid";
  case 8: return "3-node line";
  case 9: return "6-node triangle";
  case 10: return "9-node quadrangle";
  case 16: return "8-node quadrangle";
  default: return "element";
  }
}

static int sec_elements(gm_ctx *c, crd_mesh_part *out)
{
  gm_lex *L = &c->L;
  long long nblk, nel, v, dim, tag, type, cnt;
  int64_t qcap = 0, bcap = 0, lcap = 0;
  CRD_CHECK(c->have_nodes, CRD_ERR_INPUT, "%s:%d: $Elements before $Nodes", L->file, L->line);
  CRD_CHECK(!c->have_elems, CRD_ERR_INPUT, "%s:%d: a second $Elements section", L->file, L->line);
  c->have_elems = 1;
  int line0 = L->line;
  CRD_CALL(read_int(L, "the number of element blocks", 0, GM_MAX_COUNT, &nblk));
  CRD_CALL(read_int(L, "the number of elements", 0, INT64_MAX, &nel));
  CRD_CALL(read_ll(L, "the minimum element tag", &v));
  CRD_CALL(read_ll(L, "the maximum element tag", &v));
  int64_t seen = 0;
  for (long long b = 0; b < nblk; ++b) {
    CRD_CALL(read_int(L, "an entity dimension", 0, 3, &dim));
    CRD_CALL(read_int(L, "an entity tag", INT32_MIN, INT32_MAX, &tag));
    CRD_CALL(read_ll(L, "an element type", &type));
    CRD_CHECK(type == 3 || type == 1 || type == 15, CRD_ERR_UNSUPPORTED,
              "%s:%d: element type %lld (%s) is not supported: only 4-node quadrangles are "
              "supported (type 3; lines (1) and points (15) may carry physical groups)",
              L->file, L->tokline, type, type_name(type));
    CRD_CALL(read_int(L, "the number of elements in the block", 0, GM_MAX_COUNT, &cnt));
    const int nv = type == 3 ? 4 : type == 1 ? 2 : 1;
    CRD_CALL(grow(&c->blks, &bcap, c->nblks + 1, sizeof *c->blks));
    gm_blk *bk = &c->blks[c->nblks++];
    bk->dim = (int)dim;
    bk->tag = (int)tag;
    bk->type = (int)type;
    bk->count = cnt;
    int32_t *dst = NULL; /* an empty block may come before any buffer exists: no NULL + 0 */
    if (type == 3) {
      CRD_CHECK(out->ne + cnt <= GM_MAX_COUNT, CRD_ERR_INPUT, "%s:%d: too many elements",
                L->file, L->tokline);
      CRD_CALL(grow(&out->quads, &qcap, 4 * (out->ne + cnt), sizeof *out->quads));
      bk->first = out->ne;
      if (cnt) dst = out->quads + 4 * (int64_t)out->ne;
      out->ne += (int)cnt;
    } else {
      CRD_CALL(grow(&c->lnodes, &lcap, c->nlnodes + nv * cnt, sizeof *c->lnodes));
      bk->first = c->nlnodes;
      if (cnt) dst = c->lnodes + c->nlnodes;
      c->nlnodes += nv * cnt;
    }
    for (long long j = 0; j < cnt; ++j) {
      CRD_CALL(read_ll(L, "an element tag", &v));
      for (int a = 0; a < nv; ++a) {
        CRD_CALL(read_ll(L, "a node tag", &v));
        CRD_CALL(node_index(c, out->nn, v, &dst[nv * j + a]));
      }
      if (type == 3)
        for (int a = 0; a < 4; ++a)
          CRD_CHECK(dst[4 * j + a] != dst[4 * j + (a + 1) % 4] &&
                        dst[4 * j + a] != dst[4 * j + (a + 2) % 4],
                    CRD_ERR_INPUT, "%s:%d: quadrangle repeats a node (degenerate)", L->file,
                    L->tokline);
    }
    seen += cnt;
  }
  CRD_CHECK(seen == nel, CRD_ERR_INPUT,
            "%s:%d: $Elements announces %lld elements but its blocks hold %lld", L->file,
            line0 + 1, nel, (long long)seen);
  CRD_CALL(expect_end(L, "Elements"));
  return 0;
}

static int skip_section(gm_ctx *c, const char *name)
{
  gm_lex *L = &c->L;
  char want[80];
  const char *t;
  int n, line0 = L->tokline;
  snprintf(want, sizeof want, "$End%s", name);
  while (next_tok(L, &t, &n))
    if (tok_is(t, n, want)) return 0;
  return CRD_ERR(CRD_ERR_INPUT, "%s:%d: section $%s is not closed by %s", L->file, line0, name,
                 want);
}

/* ---------------------------------------------------------------- sets */

static const gm_ent *find_ent(const gm_ctx *c, int dim, int tag)
{
  gm_ent key = {tag, 0, 0};
  return bsearch(&key, c->ents[dim], (size_t)c->nents[dim], sizeof key, cmp_ent);
}

static int has_phys(const gm_ctx *c, const gm_blk *b, int phys)
{
  const gm_ent *e = find_ent(c, b->dim, b->tag);
  for (int k = 0; e && k < e->nphys; ++k)
    if (c->phys[e->phys0 + k] == phys) return 1;
  return 0;
}

static int make_sets(gm_ctx *c, crd_mesh_part *out)
{
  int32_t *nodes = NULL, *elems = NULL;
  int rc = 0;
  for (int g = 0; g < c->nnames && !rc; ++g) {
    const gm_name *nm = &c->names[g];
    int64_t nn = 0, ne = 0;
    for (int b = 0; b < c->nblks; ++b) { /* size first */
      const gm_blk *bk = &c->blks[b];
      if (bk->dim != nm->dim || !has_phys(c, bk, nm->tag)) continue;
      if (bk->type == 3) ne += bk->count;
      else nn += bk->count * (bk->type == 1 ? 2 : 1);
    }
    if (nn + ne == 0) continue;
    rc = CRD_CALLOC(nn, &nodes);
    if (!rc) rc = CRD_CALLOC(ne, &elems);
    nn = ne = 0;
    for (int b = 0; b < c->nblks && !rc; ++b) {
      const gm_blk *bk = &c->blks[b];
      if (bk->dim != nm->dim || !has_phys(c, bk, nm->tag)) continue;
      if (bk->type == 3)
        for (int64_t j = 0; j < bk->count; ++j) elems[ne++] = (int32_t)(bk->first + j);
      else
        for (int64_t j = 0; j < bk->count * (bk->type == 1 ? 2 : 1); ++j)
          nodes[nn++] = c->lnodes[bk->first + j];
    }
    if (!rc) rc = crd_mesh_part_add_set_(out, nm->name, nodes, (int)nn, elems, (int)ne);
    CRD_FREE(nodes);
    CRD_FREE(elems);
  }
  CRD_CALL(rc);
  return 0;
}

/* ---------------------------------------------------------------- read */

static int read_all(const char *file, gm_lex *L)
{
  FILE *f = fopen(file, "rb");
  CRD_CHECK(f, CRD_ERR_IO, "%s: cannot open: %s", file, strerror(errno));
  int64_t cap = 0;
  size_t got;
  L->len = 0;
  do {
    if (grow(&L->buf, &cap, (int64_t)L->len + 65537, 1)) {
      fclose(f);
      return CRD_ERR(CRD_ERR_MEM, "%s: out of memory reading the file", file);
    }
    got = fread(L->buf + L->len, 1, (size_t)cap - L->len - 1, f);
    L->len += got;
  } while (got > 0);
  int bad = ferror(f);
  fclose(f);
  CRD_CHECK(!bad, CRD_ERR_IO, "%s: read error", file);
  L->buf[L->len] = 0;
  L->line = 1;
  return 0;
}

static int parse(gm_ctx *c, crd_mesh_part *out)
{
  gm_lex *L = &c->L;
  const char *t;
  int n, first = 1;
  CRD_CALL(read_all(L->file, L));
  while (next_tok(L, &t, &n)) {
    CRD_CHECK(!first || tok_is(t, n, "$MeshFormat"), CRD_ERR_INPUT,
              "%s:%d: not a Gmsh .msh file (it does not start with $MeshFormat)", L->file,
              L->tokline);
    CRD_CHECK(t[0] == '$' && n > 1, CRD_ERR_INPUT, "%s:%d: expected a section ($Name), got '%.*s'",
              L->file, L->tokline, TOKLEN(n), t);
    char name[64];
    snprintf(name, sizeof name, "%.*s", TOKLEN(n) - 1, t + 1);
    if (!strcmp(name, "MeshFormat")) {
      CRD_CHECK(first, CRD_ERR_INPUT, "%s:%d: a second $MeshFormat", L->file, L->tokline);
      CRD_CALL(sec_format(c));
    } else if (!strcmp(name, "PhysicalNames")) CRD_CALL(sec_names(c));
    else if (!strcmp(name, "Entities")) CRD_CALL(sec_entities(c));
    else if (!strcmp(name, "Nodes")) CRD_CALL(sec_nodes(c, out));
    else if (!strcmp(name, "Elements")) CRD_CALL(sec_elements(c, out));
    else CRD_CALL(skip_section(c, name));
    first = 0;
  }
  CRD_CHECK(!first, CRD_ERR_INPUT, "%s: empty file (not a Gmsh .msh file)", L->file);
  CRD_CHECK(c->have_nodes && c->have_elems, CRD_ERR_INPUT, "%s: no %s section", L->file,
            c->have_nodes ? "$Elements" : "$Nodes");
  CRD_CHECK(out->ne > 0, CRD_ERR_INPUT, "%s: no 4-node quadrangles (type 3) in the mesh", L->file);
  CRD_CALL(make_sets(c, out));
  return 0;
}

int crd_gmsh_read(const char *file, crd_mesh_part *out)
{
  gm_ctx c;
  memset(&c, 0, sizeof c);
  memset(out, 0, sizeof *out);
  c.L.file = file;
  int rc = parse(&c, out);
  gm_free(&c);
  if (rc) crd_mesh_part_free(out); /* nothing half-read reaches the caller */
  CRD_CALL(rc);
  return 0;
}
