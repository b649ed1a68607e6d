/* crdyn command line (placeholder until the driver lands). */
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
  if (argc > 1 && !strcmp(argv[1], "--version")) { puts("crdyn 0.1.0"); return 0; }
  fprintf(stderr, "usage: crdyn run CASE | check CASE | --help | --version\n");
  return 2;
}
