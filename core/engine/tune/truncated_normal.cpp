#include "engine/tune/truncated_normal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::engine::truncated_normal {

namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kLogSqrt2Pi = 0.91893853320467274178; // log(sqrt(2 pi))

double cdf(double z)
{
    return 0.5 * std::erfc(-z / kSqrt2);
}

} // namespace

double logCdf(double z)
{
    if (z > -20)
        return std::log(cdf(z));
    // Mills' ratio: Φ(z) = φ(z)/|z| (1 - 1/z² + 3/z⁴ - 15/z⁶ + ...), z ≪ 0 (erfc underflows below -38).
    const double z2 = z * z;
    const double series = 1 - 1 / z2 + 3 / (z2 * z2) - 15 / (z2 * z2 * z2) + 105 / (z2 * z2 * z2 * z2);
    return -0.5 * z2 - kLogSqrt2Pi - std::log(-z) + std::log(series);
}

double ppf(double p)
{
    // Acklam's rational approximation (relative error 1.15e-9), then one Halley step on erfc.
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01,  -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (!(p > 0))
        return -std::numeric_limits<double>::infinity();
    if (!(p < 1))
        return std::numeric_limits<double>::infinity();
    const double low = 0.02425;
    double x;
    if (p < low) {
        const double q = std::sqrt(-2 * std::log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - low) {
        const double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        const double q = std::sqrt(-2 * std::log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    const double e = cdf(x) - p;
    const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double logMass(double a, double b)
{
    if (!(a < b))
        return -std::numeric_limits<double>::infinity();
    if (b <= 0) {
        const double la = logCdf(a), lb = logCdf(b);
        return lb + std::log1p(-std::exp(la - lb));
    }
    if (a >= 0)
        return logMass(-b, -a);
    // Straddling 0: both tails are at most 1/2, so 1 - tails loses nothing.
    return std::log1p(-cdf(a) - cdf(-b));
}

double sample(double mu, double sigma, double low, double high, double u)
{
    double a = (low - mu) / sigma, b = (high - mu) / sigma;
    // Draw from the side whose tail is the smaller mass, so the inverse CDF keeps its precision.
    bool flipped = false;
    if (a > 0) {
        std::swap(a, b);
        a = -a;
        b = -b;
        flipped = true;
    }
    const double left = cdf(a);    // mass below the interval
    const double right = cdf(-b);  // mass above it
    const double mass = 1 - left - right;
    double z;
    if (a <= 0 && b >= 0 && mass > 0) {
        const double p = left + u * mass;
        z = p < 0.5 ? ppf(p) : -ppf(right + (1 - u) * mass);
    } else {
        // Both ends in the lower tail (a < b <= 0): in log space.
        const double la = logCdf(a), lb = logCdf(b);
        const double lp = lb + std::log(u + (1 - u) * std::exp(la - lb));
        z = ppf(std::exp(lp));
    }
    z = std::clamp(z, a, b);
    return mu + sigma * (flipped ? -z : z);
}

double logPdf(double x, double mu, double sigma, double low, double high)
{
    const double z = (x - mu) / sigma;
    return -0.5 * z * z - kLogSqrt2Pi - std::log(sigma) - logMass((low - mu) / sigma, (high - mu) / sigma);
}

} // namespace lathe::engine::truncated_normal
