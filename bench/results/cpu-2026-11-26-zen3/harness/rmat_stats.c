#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synthetic_inputs.h"
static int cmpd(const void*a,const void*b){int64_t x=*(int64_t*)a,y=*(int64_t*)b;return x<y?1:x>y?-1:0;}
int main(int argc,char**argv){
  loom_context*ctx; loom_context_create(&ctx);
  int scale=atoi(argv[1]);
  loom_csr*A=bench_rmat_matrix(ctx,scale,4,2);
  int64_t rows,cols,nnz; const int64_t*ro; const int32_t*ci; const void*v; loom_dtype dt;
  loom_memory mem; loom_csr_info(A,&rows,&cols,&nnz,&dt,&mem);
  loom_csr_arrays(A,&ro,&ci,&v);
  int64_t*deg=calloc(cols,8); for(int64_t k=0;k<nnz;k++)deg[ci[k]]++;
  int64_t empty=0,nonempty=0; for(int64_t i=0;i<rows;i++) if(ro[i+1]==ro[i])empty++;
  for(int64_t c=0;c<cols;c++) nonempty+=deg[c]>0;
  qsort(deg,cols,8,cmpd);
  printf("scale %d rows %ld nnz %ld empty rows %ld nonempty cols %ld\n",scale,rows,nnz,empty,nonempty);
  int64_t lim[]={8192,32768,131072,524288,1<<20,1<<21,1<<22}; int64_t acc=0,c=0;
  for(int k=0;k<7;k++){ for(;c<lim[k]&&c<cols;c++)acc+=deg[c]; printf("  top %7ld cols (%6ld KiB): %.1f%% of nnz\n",lim[k],lim[k]*4/1024,100.0*acc/nnz);}
  return 0;
}
