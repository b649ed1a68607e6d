/* crdyn: runs over MPI ranks (parallel.h): replicated state, element
 * passes divided in blocks. */
#include <limits.h>
#include <stdlib.h>

#include "crdyn/error.h"
#include "crdyn/parallel.h"

static void (*at_end)(void);

void crd_par_at_finalize(void (*fn)(void)) { at_end = fn; }

#ifdef CRD_HAVE_MPI
#include <mpi.h>

static int par_rank = 0, par_size = 1, par_on = 0;

int crd_par_init(int *argc, char ***argv)
{
  if (MPI_Init(argc, argv) != MPI_SUCCESS) return CRD_ERR(CRD_ERR_INPUT, "MPI_Init failed");
  par_on = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &par_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &par_size);
  return 0;
}

void crd_par_finalize(int status)
{
  if (!par_on) return;
  par_on = 0;
  /* every rank holds the same state and takes the same decisions, so a
   * failure is every rank's: finalize normally; MPI_Abort is for a rank
   * that fails alone (never expected, but then no rank may wait) */
  int worst = status, rc = MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && worst != status) MPI_Abort(MPI_COMM_WORLD, worst);
  if (at_end) at_end();
  MPI_Finalize();
}

int crd_par_rank(void) { return par_rank; }
int crd_par_size(void) { return par_size; }

static long long block_start(int ne, int r)
{
  return (long long)ne * r / par_size;
}

void crd_par_elem_range(int ne, int *e0, int *e1)
{
  *e0 = (int)block_start(ne, par_rank);
  *e1 = (int)block_start(ne, par_rank + 1);
}

int crd_par_gather_elems(double *a, int width, int ne)
{
  if (par_size == 1) return 0;
  int *cnt = malloc(2 * sizeof(int) * (size_t)par_size);
  if (!cnt) return CRD_TRACE(CRD_ERR_MEM);
  int *dsp = cnt + par_size;
  for (int r = 0; r < par_size; ++r) {
    long long b0 = block_start(ne, r), b1 = block_start(ne, r + 1);
    if ((b1 - b0) * width > INT_MAX || b0 * width > INT_MAX) {
      free(cnt);
      return CRD_ERR(CRD_ERR_INPUT, "MPI: %d elements of %d values exceed one gather's int counts", ne, width);
    }
    cnt[r] = (int)((b1 - b0) * width);
    dsp[r] = (int)(b0 * width);
  }
  int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
  free(cnt);
  return rc == MPI_SUCCESS ? 0 : CRD_ERR(CRD_ERR_INPUT, "MPI_Allgatherv of element results failed");
}

void crd_par_first_bad(int *bad, int *kind)
{
  if (par_size == 1) return;
  struct { int v, k; } in = {*bad < 0 ? INT_MAX : *bad, *bad < 0 ? 0 : *kind}, out;
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  *bad = out.v == INT_MAX ? -1 : out.v;
  *kind = out.k;
}

void crd_par_max_int(int *v, int n)
{
  if (par_size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

void crd_par_max_dbl(double *v, int n)
{
  if (par_size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

#else /* a single process */

int crd_par_init(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  return 0;
}
void crd_par_finalize(int status)
{
  (void)status;
  if (at_end) at_end();
}
int crd_par_rank(void) { return 0; }
int crd_par_size(void) { return 1; }
void crd_par_elem_range(int ne, int *e0, int *e1)
{
  *e0 = 0;
  *e1 = ne;
}
int crd_par_gather_elems(double *a, int width, int ne)
{
  (void)a, (void)width, (void)ne;
  return 0;
}
void crd_par_first_bad(int *bad, int *kind) { (void)bad, (void)kind; }
void crd_par_max_int(int *v, int n) { (void)v, (void)n; }
void crd_par_max_dbl(double *v, int n) { (void)v, (void)n; }

#endif
