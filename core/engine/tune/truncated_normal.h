#pragma once

// The standard normal's tails and the truncated normal, as TPE's Parzen estimators need them:
// log-space where a plain formula would underflow (a kernel's far tail, a narrow integer bin).
namespace lathe::engine::truncated_normal {

double logCdf(double z);                   // log Φ(z), accurate for z far below 0
double ppf(double p);                      // Φ⁻¹(p), 0 < p < 1
double logMass(double a, double b);        // log(Φ(b) - Φ(a)) for a < b; -inf when a >= b
// A draw of N(mu, sigma) truncated to [low, high], by the inverse CDF at u in [0, 1).
double sample(double mu, double sigma, double low, double high, double u);
// log of the truncated density at x in [low, high].
double logPdf(double x, double mu, double sigma, double low, double high);

} // namespace lathe::engine::truncated_normal
