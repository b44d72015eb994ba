#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  size_t n = (size_t)150 << 20 >> 2; float *a = aligned_alloc(64, n * 4);
  int th = atoi(argv[1]);
#pragma omp parallel for num_threads(th)
  for (size_t i = 0; i < n; i++) a[i] = 1.0f;
  double best = 1e30; float sink = 0;
  for (int r = 0; r < 10; r++) {
    double t0 = omp_get_wtime(); float s = 0;
#pragma omp parallel for num_threads(th) reduction(+:s)
    for (size_t i = 0; i < n; i += 64) {
      __m512 v0 = _mm512_load_ps(a + i), v1 = _mm512_load_ps(a + i + 16), v2 = _mm512_load_ps(a + i + 32), v3 = _mm512_load_ps(a + i + 48);
      s += _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(v0, v1), _mm512_add_ps(v2, v3)));
    }
    double t = omp_get_wtime() - t0; if (t < best) best = t; sink += s;
  }
  printf("threads %d read %.2f GB/s (%g)\n", th, n * 4 / best / 1e9, sink);
}
