// hog MODE MB: mode 0 = sequential read sum over MB, 1 = write (memset), 2 = random line reads, 3 = fma
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
int main(int argc,char**argv){int mode=atoi(argv[1]);size_t mb=atoi(argv[2]);size_t n=mb<<20;
 char*b=aligned_alloc(64,n);memset(b,1,n);volatile uint64_t sink=0;uint64_t r=88172645463325252ull;
 for(;;){ if(mode==0){uint64_t s=0;for(size_t i=0;i<n;i+=8)s+=*(uint64_t*)(b+i);sink+=s;}
  else if(mode==1){memset(b,(int)sink,n);sink++;}
  else if(mode==2){uint64_t s=0;for(int k=0;k<1000000;k++){r^=r<<13;r^=r>>7;r^=r<<17;s+=b[(r%(n/64))*64];}sink+=s;}
  else {float x[16]={0};for(int k=0;k<10000000;k++)for(int j=0;j<16;j++)x[j]=x[j]*0.999f+0.1f;sink+=(uint64_t)x[3];}}
}
