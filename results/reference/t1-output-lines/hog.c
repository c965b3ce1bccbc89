#include <immintrin.h>
int main(){for(;;)_mm_pause();}
