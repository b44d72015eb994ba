#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){
  size_t n = 64 << 20;
  for (int r = 0; r < 4; r++) {
    double t0 = now(); char *p = malloc(n); memset(p, 1, n); double t1 = now(); free(p);
    void *q; posix_memalign(&q, 2 << 20, n); madvise(q, n, MADV_HUGEPAGE); double t2 = now(); memset(q, 1, n); double t3 = now(); free(q);
    printf("malloc+touch %.1f ms   huge touch %.1f ms\n", (t1-t0)*1e3, (t3-t2)*1e3);
  }
}
