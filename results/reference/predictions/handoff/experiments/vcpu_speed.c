#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){volatile double x=1;double mn=1e9,mx=0;double v[400];for(int k=0;k<400;k++){double t0=now();for(long i=0;i<2000000;i++)x=x*1.0000001+1e-9;v[k]=now()-t0;if(v[k]<mn)mn=v[k];if(v[k]>mx)mx=v[k];}
int slow=0;for(int k=0;k<400;k++)if(v[k]>1.1*mn)slow++;printf("min %.3f ms max %.3f ms, %d/400 chunks >10%% slower\n",mn*1e3,mx*1e3,slow);}
