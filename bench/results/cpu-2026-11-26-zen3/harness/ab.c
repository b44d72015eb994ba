/* in-process A/B: plans made under different environment settings, timed in alternation.
   usage: ab SCALE ROUNDS "VAR=VAL;VAR2=VAL2" "..." ...   (scale 0: band) */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "synthetic_inputs.h"
static void apply(const char *spec, int set){
  char buf[512]; strcpy(buf,spec);
  for(char*t=strtok(buf,";");t;t=strtok(NULL,";")){ char*eq=strchr(t,'='); if(!eq)continue; *eq=0; if(set)setenv(t,eq+1,1); else unsetenv(t);} }
int main(int argc,char**argv){
  loom_context*ctx; loom_context_create(&ctx);
  int scale=atoi(argv[1]), rounds=atoi(argv[2]); int nv=argc-3;
  loom_csr*A= scale? bench_rmat_matrix(ctx,scale,4,2) : bench_band_matrix(ctx,1<<20,8);
  int64_t rows,cols,nnz; loom_dtype dt; loom_memory mem; loom_csr_info(A,&rows,&cols,&nnz,&dt,&mem);
  loom_dense X,Y; loom_dense_alloc(ctx,&X,cols,1,LOOM_ROW_MAJOR,LOOM_F32,LOOM_MEMORY_HOST);
  loom_dense_alloc(ctx,&Y,rows,1,LOOM_ROW_MAJOR,LOOM_F32,LOOM_MEMORY_HOST);
  loom_dense_fill_random(&X,1);
  loom_plan*p[16]; double best[16]; loom_dense Yr[16];
  for(int v=0;v<nv;v++){ apply(argv[3+v],1); double t0=omp_get_wtime();
    if(loom_spmm_plan_create(ctx,&p[v],A,&X,&Y,NULL)){printf("plan failed %s\n",loom_last_error());return 1;}
    printf("[%d] %s: plan %.0f ms\n   %s\n",v,argv[3+v],(omp_get_wtime()-t0)*1e3, getenv("EXPLAIN")?loom_plan_explain(p[v]):"");
    apply(argv[3+v],0); best[v]=1e9;
    loom_dense_alloc(ctx,&Yr[v],rows,1,LOOM_ROW_MAJOR,LOOM_F32,LOOM_MEMORY_HOST);
  }
  for(int r=0;r<rounds;r++) for(int v=0;v<nv;v++){
    for(int k=0;k<5;k++){ double t0=omp_get_wtime(); loom_spmm_execute(p[v],1.0,&X,0.0,&Yr[v]); double t=omp_get_wtime()-t0; if(t<best[v])best[v]=t; }
  }
  double floor_ms = ((nnz*8.0 + rows*8.0 + 8 + cols*4.0 + rows*4.0)/28.3e9)*1e3;
  for(int v=0;v<nv;v++){ loom_compare_result c; loom_dense_compare(&Yr[0],&Yr[v],&c);
    printf("[%d] %-50s best %.3f ms  (%.0f%% of floor at 28.3 GB/s) differs from [0]: %lld\n",v,argv[3+v],best[v]*1e3,100*floor_ms/(best[v]*1e3),(long long)c.differing);}
  return 0;
}
