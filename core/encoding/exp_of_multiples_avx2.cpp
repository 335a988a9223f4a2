// ExpOfMultiples on AVX2 + FMA, four angles a vector (compiled with -mavx2 -mfma; see
// exp_of_multiples_kernels.h for why this file stands alone).
#include <immintrin.h>
#include <sleef.h>

#include "encoding/exp_of_multiples_kernels.h"

namespace pe::simd_kernels {
namespace {

// The steps of ExpOfMultiple (encoding/wave.cpp), four lanes at a time: m w = hi + lo exactly,
// hi reduced by k 2 pi with 2 pi = P1 + P2 + P3 (k P1 and k P2 exact for |k| < 2^31) when
// |hi| > 4, then e^{i (r + lo)} from sin and cos of r and lo's first-order terms.
inline void Exp4(__m256d m, __m256d w, __m256d* re, __m256d* im) {
  const __m256d hi = _mm256_mul_pd(m, w);
  const __m256d lo = _mm256_fmsub_pd(m, w, hi);
  const __m256d k = _mm256_round_pd(_mm256_mul_pd(hi, _mm256_set1_pd(0x1.45f306dc9c883p-3)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_sub_pd(hi, _mm256_mul_pd(k, _mm256_set1_pd(0x1.921fb0p+2)));
  r = _mm256_sub_pd(r, _mm256_mul_pd(k, _mm256_set1_pd(0x1.5110b0p-20)));
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(0x1.18469898cc517p-42), r);
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d reduce =
      _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, hi), _mm256_set1_pd(4.0), _CMP_GT_OQ),
                    _mm256_cmp_pd(_mm256_andnot_pd(sign, k), _mm256_set1_pd(0x1p31), _CMP_LT_OQ));
  r = _mm256_blendv_pd(hi, r, reduce);
  const Sleef___m256d_2 sc = Sleef_sincosd4_u10avx2(r);
  const __m256d cl =
      _mm256_fnmadd_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), lo), lo, _mm256_set1_pd(1.0));
  *re = _mm256_fnmadd_pd(sc.x, lo, _mm256_mul_pd(sc.y, cl));
  *im = _mm256_fmadd_pd(sc.y, lo, _mm256_mul_pd(sc.x, cl));
}

}  // namespace

void ExpOfMultiplesAvx2(double m, const double* w, int64_t n, double* re, double* im) {
  const __m256d mv = _mm256_set1_pd(m);
  int64_t l = 0;
  for (; l + 4 <= n; l += 4) {
    __m256d r, i;
    Exp4(mv, _mm256_loadu_pd(w + l), &r, &i);
    _mm256_storeu_pd(re + l, r);
    _mm256_storeu_pd(im + l, i);
  }
  if (l < n) {
    // The last one to three through a padded vector.
    double wt[4] = {0, 0, 0, 0}, rt[4], it[4];
    for (int64_t j = l; j < n; ++j) wt[j - l] = w[j];
    __m256d r, i;
    Exp4(mv, _mm256_loadu_pd(wt), &r, &i);
    _mm256_storeu_pd(rt, r);
    _mm256_storeu_pd(it, i);
    for (int64_t j = l; j < n; ++j) {
      re[j] = rt[j - l];
      im[j] = it[j - l];
    }
  }
}

}  // namespace pe::simd_kernels
