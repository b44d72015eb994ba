#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <omp.h>
#include <immintrin.h>
int main(int argc,char**argv){
  int th=atoi(argv[1]);
  size_t nidx = 1<<24;
  int32_t *idx = aligned_alloc(64, nidx*4);
  for (size_t sz = 1<<15; sz <= (1u<<26); sz <<= 2) {
    float *x = aligned_alloc(64, sz*4);
    for (size_t i=0;i<sz;i++) x[i]=1.0f;
    uint64_t s=88172645463325252ull;
    for (size_t i=0;i<nidx;i++){ s^=s<<13; s^=s>>7; s^=s<<17; idx[i]=(int32_t)(s%sz);}
    double bg=1e9, bs=1e9;
    for (int r=0;r<3;r++){
      double t0=omp_get_wtime();
      #pragma omp parallel num_threads(th)
      {
        __m256 a=_mm256_setzero_ps(), b=_mm256_setzero_ps();
        #pragma omp for
        for (size_t i=0;i<nidx;i+=16){
          a=_mm256_add_ps(a,_mm256_i32gather_ps(x,_mm256_load_si256((__m256i*)(idx+i)),4));
          b=_mm256_add_ps(b,_mm256_i32gather_ps(x,_mm256_load_si256((__m256i*)(idx+i+8)),4));
        }
        float t[8]; _mm256_storeu_ps(t,_mm256_add_ps(a,b)); if(t[0]==12345.f) printf("x");
      }
      double t=omp_get_wtime()-t0; if(t<bg)bg=t;
      t0=omp_get_wtime();
      #pragma omp parallel num_threads(th)
      {
        float a0=0,a1=0,a2=0,a3=0;
        #pragma omp for
        for (size_t i=0;i<nidx;i+=4){ a0+=x[idx[i]]; a1+=x[idx[i+1]]; a2+=x[idx[i+2]]; a3+=x[idx[i+3]]; }
        if(a0+a1+a2+a3==12345.f) printf("x");
      }
      t=omp_get_wtime()-t0; if(t<bs)bs=t;
    }
    printf("x %8zu KiB: gather %.2f ns/elem, scalar %.2f ns/elem (%d threads)\n", sz*4/1024, bg*1e9/nidx, bs*1e9/nidx, th);
    free(x);
  }
}
