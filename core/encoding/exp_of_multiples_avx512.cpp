// ExpOfMultiples on AVX-512, eight angles a vector (compiled with -mavx512f -mavx512dq; see
// exp_of_multiples_kernels.h for why this file stands alone).
#include <immintrin.h>
#include <sleef.h>

#include "encoding/exp_of_multiples_kernels.h"

namespace pe::simd_kernels {
namespace {

// ExpOfMultiple's steps eight lanes at a time (as Exp4 in exp_of_multiples_avx2.cpp).
inline void Exp8(__m512d m, __m512d w, __m512d* re, __m512d* im) {
  const __m512d hi = _mm512_mul_pd(m, w);
  const __m512d lo = _mm512_fmsub_pd(m, w, hi);
  // (The zero-masked form: GCC 12 warns that the plain one's undefined source is uninitialised.)
  const __m512d k =
      _mm512_maskz_roundscale_pd(0xff, _mm512_mul_pd(hi, _mm512_set1_pd(0x1.45f306dc9c883p-3)),
                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_sub_pd(hi, _mm512_mul_pd(k, _mm512_set1_pd(0x1.921fb0p+2)));
  r = _mm512_sub_pd(r, _mm512_mul_pd(k, _mm512_set1_pd(0x1.5110b0p-20)));
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(0x1.18469898cc517p-42), r);
  const __mmask8 reduce = _mm512_cmp_pd_mask(_mm512_abs_pd(hi), _mm512_set1_pd(4.0), _CMP_GT_OQ) &
                          _mm512_cmp_pd_mask(_mm512_abs_pd(k), _mm512_set1_pd(0x1p31), _CMP_LT_OQ);
  r = _mm512_mask_blend_pd(reduce, hi, r);
  const Sleef___m512d_2 sc = Sleef_sincosd8_u10avx512f(r);
  const __m512d cl =
      _mm512_fnmadd_pd(_mm512_mul_pd(_mm512_set1_pd(0.5), lo), lo, _mm512_set1_pd(1.0));
  *re = _mm512_fnmadd_pd(sc.x, lo, _mm512_mul_pd(sc.y, cl));
  *im = _mm512_fmadd_pd(sc.y, lo, _mm512_mul_pd(sc.x, cl));
}

}  // namespace

void ExpOfMultiplesAvx512(double m, const double* w, int64_t n, double* re, double* im) {
  const __m512d mv = _mm512_set1_pd(m);
  int64_t l = 0;
  for (; l + 8 <= n; l += 8) {
    __m512d r, i;
    Exp8(mv, _mm512_loadu_pd(w + l), &r, &i);
    _mm512_storeu_pd(re + l, r);
    _mm512_storeu_pd(im + l, i);
  }
  if (l < n) {
    // The last one to seven under a mask (the masked-off lanes compute e^0).
    const __mmask8 tail = static_cast<__mmask8>((1u << (n - l)) - 1u);
    __m512d r, i;
    Exp8(mv, _mm512_maskz_loadu_pd(tail, w + l), &r, &i);
    _mm512_mask_storeu_pd(re + l, tail, r);
    _mm512_mask_storeu_pd(im + l, tail, i);
  }
}

}  // namespace pe::simd_kernels
