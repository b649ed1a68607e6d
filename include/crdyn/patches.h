/* crdyn: the patches of a shell mesh at its nodes (docs/element.md,
 * "Folds and junctions").
 *
 * The elements around a node are grouped into patches: two elements that
 * share an edge through the node join the same patch when their normals at
 * the node differ by no more than the crease angle.  A node with one patch
 * is smooth: its normal is the average over its elements (docs/theory.md
 * eq 14).  A node with several is an intersection node of a folded or
 * branched shell, where each patch keeps its own normal. */
#ifndef CRDYN_PATCHES_H
#define CRDYN_PATCHES_H

#include "crdyn/model.h"

typedef struct crd_patches {
  int nn, ne;
  double *cn;          /* 12 ne: the unit normal of element e at its corner a (3 (4 e + a) + c) */
  int *corner_patch;   /* 4 ne: the patch of element e's corner a among its node's patches (0, 1, ...) */
  int *npatch;         /* nn: the number of patches at each node (1: smooth) */
  double *split;       /* nn: the largest angle (degrees) between the normals of two elements that share an
                        * edge through the node and lie in different patches (0 where smooth) */
  int nsplit;          /* nodes with more than one patch */
} crd_patches;

/* The patches of mesh m at crease angle crease_deg (degrees).  An element
 * that is degenerate at a corner is an input error naming it. */
int crd_patches_create(const crd_model *m, double crease_deg, crd_patches **out);
void crd_patches_destroy(crd_patches **pp);

#endif
