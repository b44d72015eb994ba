/* R-MAT s21/s22 rows, columns folded into [0, F): the SpMV's cost without x misses */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "synthetic_inputs.h"
static int cmpi(const void*a,const void*b){return *(int*)a-*(int*)b;}
int main(int argc,char**argv){
  loom_context*ctx; loom_context_create(&ctx);
  int scale=atoi(argv[1]); int F=atoi(argv[2]);
  loom_csr*A=bench_rmat_matrix(ctx,scale,4,2);
  int64_t rows,cols,nnz; loom_dtype dt; loom_memory mem; loom_csr_info(A,&rows,&cols,&nnz,&dt,&mem);
  const int64_t*ro; const int32_t*ci; const void*v; loom_csr_arrays(A,&ro,&ci,&v);
  int32_t*c2=malloc(nnz*4); 
  for(int64_t i=0;i<rows;i++){ for(int64_t k=ro[i];k<ro[i+1];k++) c2[k]=(int32_t)(k-ro[i]); }
  loom_csr*B; if(loom_csr_create(ctx,&B,rows,cols,nnz,LOOM_F32,ro,c2,v)){puts(loom_last_error());return 1;}
  loom_dense X,Y; loom_dense_alloc(ctx,&X,cols,1,LOOM_ROW_MAJOR,LOOM_F32,LOOM_MEMORY_HOST);
  loom_dense_alloc(ctx,&Y,rows,1,LOOM_ROW_MAJOR,LOOM_F32,LOOM_MEMORY_HOST); loom_dense_fill_random(&X,1);
  loom_csr*M[2]={A,B}; loom_plan*p[2];
  for(int m=0;m<2;m++){ setenv("LOOM_OMP_RELABEL","1",1); setenv("LOOM_OMP_SLICES_SORTED","1",1); loom_spmm_plan_create(ctx,&p[m],M[m],&X,&Y,NULL); puts(loom_plan_explain(p[m])); }
  double best[2]={1e9,1e9};
  for(int r=0;r<8;r++) for(int m=0;m<2;m++) for(int k=0;k<5;k++){ double t0=omp_get_wtime(); loom_spmm_execute(p[m],1.0,&X,0.0,&Y); double t=omp_get_wtime()-t0; if(t<best[m])best[m]=t;}
  double floor_ms = ((nnz*8.0 + rows*8.0 + 8 + cols*4.0 + rows*4.0)/28.3e9)*1e3;
  printf("rmat s%d: %.3f ms (%.0f%%); columns folded to %d: %.3f ms (%.0f%%)\n",scale,best[0]*1e3,100*floor_ms/best[0]/1e3,F,best[1]*1e3,100*floor_ms/best[1]/1e3);
}
