#ifndef CRDYN_MESH_IO_H
#define CRDYN_MESH_IO_H
#include <cjson/cJSON.h>
#include "crdyn/model.h"
typedef struct crd_mesh_part {
  int nn, ne;
  double *x;          /* 3*nn */
  int32_t *quads;     /* 4*ne */
  int nsets;
  crd_set *sets;      /* named node/element sets (generator edges, Gmsh physical groups) */
} crd_mesh_part;
/* gen: the JSON object under "generate"; path: case file path; jpath: JSON path of gen, e.g. "$.mesh.generate" (for messages). */
int crd_mesh_generate(const cJSON *gen, const char *path, const char *jpath, crd_mesh_part *out);
/* file: path of the .msh (already resolved relative to the case file). */
int crd_gmsh_read(const char *file, crd_mesh_part *out);
void crd_mesh_part_free(crd_mesh_part *p);
#endif
