/* gather_cost.c SCALE - x' = x[src] on R-MAT for two cold-column orders (A's, first touch),
 * as loads (random reads) and as scatters (random writes), 2 threads, best of 10 */
#include <loom.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synthetic_inputs.h"
static int64_t *gdeg;
static int cmpd(const void *a, const void *b){int64_t x=gdeg[*(const int32_t*)a],y=gdeg[*(const int32_t*)b];return x>y?-1:x<y?1:(*(const int32_t*)a<*(const int32_t*)b?-1:1);}
int main(int argc,char**argv){
  loom_context*ctx;loom_context_create(&ctx);
  loom_csr*A=bench_rmat_matrix(ctx,atoi(argv[1]),4,2);
  int64_t m,n,nnz;loom_csr_info(A,&m,&n,&nnz,NULL,NULL);
  const int64_t*ro;const int32_t*ci;const void*vv;loom_csr_arrays(A,&ro,&ci,&vv);
  int64_t*deg=calloc(n,8);for(int64_t k=0;k<nnz;k++)deg[ci[k]]++;
  const int64_t dhot=18;
  for(int ft=0;ft<2;ft++){
    int32_t*new_of=malloc(n*4);int32_t*src=malloc(n*4);int64_t w=0;
    int32_t*hotc=malloc(n*4);int64_t nh=0;for(int64_t c=0;c<n;c++){new_of[c]=-1;if(deg[c]>=dhot)hotc[nh++]=c;}
    gdeg=deg;qsort(hotc,nh,4,cmpd);for(int64_t i=0;i<nh;i++){new_of[hotc[i]]=w;src[w++]=hotc[i];}
    if(!ft){for(int64_t c=0;c<n;c++)if(new_of[c]<0&&deg[c]>0){new_of[c]=w;src[w++]=c;}}
    else{for(int64_t k=0;k<nnz;k++){int32_t c=ci[k];if(new_of[c]<0){new_of[c]=w;src[w++]=c;}}}
    float*x=malloc(n*4),*xp=malloc(w*4),*xq=malloc(w*4);for(int64_t c=0;c<n;c++)x[c]=(float)c;
    double bl=1e9,bs=1e9;
    for(int r=0;r<10;r++){
      double t0=omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(2)
      for(int64_t j=0;j<w;j++)xp[j]=x[src[j]];
      double t1=omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(2)
      for(int64_t c=0;c<n;c++){int32_t j=new_of[c];if(j>=0)xq[j]=x[c];}
      double t2=omp_get_wtime();
      if(t1-t0<bl)bl=t1-t0; if(t2-t1<bs)bs=t2-t1;
    }
    printf("%s: kp %ld (hot %ld): gather by loads %.3f ms, by scatter %.3f ms, same %d\n",ft?"first touch":"A's order  ",(long)w,(long)nh,bl*1e3,bs*1e3,!memcmp(xp,xq,w*4));
  }
  return 0;}
