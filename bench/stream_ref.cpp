// The reference for the bandwidth probe: McCalpin's STREAM triad a[i] = b[i] + s * c[i], written here in
// the plainest form a compiler vectorises, built with -O3 -march=native -fopenmp (bench/CMakeLists.txt)
// and run over every core. Counts 3 x 8 bytes per element as STREAM does (the write-allocate read of a[]
// is not counted) and reports the best and the median of the timed passes, wall clock.
//
// Usage: stream_ref [TOTAL_BYTES [PASSES]]   (TOTAL_BYTES over the three arrays; default 1 GiB, 10 passes)
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  const double total = argc > 1 ? std::atof(argv[1]) : 1073741824.0;
  const int passes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 10;
  const long n = static_cast<long>(total / (3 * sizeof(double)));
  if (n < 1024) {
    std::fprintf(stderr, "stream_ref: TOTAL_BYTES must cover at least 1024 elements per array\n");
    return 2;
  }
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  // First touch by the thread that will stream each page, as STREAM does.
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double s = 3.0;
  std::vector<double> rates;
  for (int p = 0; p <= passes; ++p) {
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double t = omp_get_wtime() - t0;
    if (p > 0) rates.push_back(3.0 * sizeof(double) * static_cast<double>(n) / t);  // pass 0 warms up
  }
  // Keep the result observable so the loop cannot be dropped.
  double check = 0;
  for (long i = 0; i < n; i += n / 16) check += a[i];
  std::sort(rates.begin(), rates.end());
  std::printf("stream_triad_best %.6g\nstream_triad_median %.6g\nthreads %d\nbytes %.6g\ncheck %.3g\n", rates.back(),
              rates[rates.size() / 2], omp_get_max_threads(), 3.0 * sizeof(double) * static_cast<double>(n), check);
  return 0;
}
