// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Colour science for the palette check (tst_palette): sRGB to CIELAB (D65), the CIEDE2000 colour
// difference (Sharma, Wu and Dalal 2005), WCAG contrast, and colour-vision deficiency simulated
// with the matrices of Machado, Oliveira and Fernandes (2009) at severity 1, applied to linear
// sRGB. Plain C++, no Qt: the palette was chosen with the same functions.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace tilescope::test::colour {

struct Rgb {
  double r = 0, g = 0, b = 0;  // sRGB, 0..1
};
struct Lab {
  double l = 0, a = 0, b = 0;
};

inline double toLinear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

inline double toEncoded(double c) {
  c = std::clamp(c, 0.0, 1.0);
  return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
}

inline Rgb fromHex(unsigned rgb) {
  return {((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0};
}

// Relative luminance (WCAG 2), 0..1.
inline double luminance(const Rgb& c) {
  return 0.2126729 * toLinear(c.r) + 0.7151522 * toLinear(c.g) + 0.0721750 * toLinear(c.b);
}

// WCAG 2 contrast ratio, 1..21.
inline double contrast(const Rgb& a, const Rgb& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

inline Lab toLab(const Rgb& c) {
  const double r = toLinear(c.r), g = toLinear(c.g), b = toLinear(c.b);
  const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  constexpr double delta = 6.0 / 29.0;
  const auto f = [](double t) {
    return t > delta * delta * delta ? std::cbrt(t) : t / (3 * delta * delta) + 4.0 / 29.0;
  };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIEDE2000 with kL = kC = kH = 1.
inline double ciede2000(const Lab& first, const Lab& second) {
  constexpr double pi = std::numbers::pi;
  const auto degrees = [](double radians) { return radians * 180 / pi; };
  const auto radians = [](double degrees) { return degrees * pi / 180; };
  const auto pow7 = [](double v) { return v * v * v * v * v * v * v; };
  const double c1 = std::hypot(first.a, first.b), c2 = std::hypot(second.a, second.b);
  const double cMean = (c1 + c2) / 2;
  const double g = 0.5 * (1 - std::sqrt(pow7(cMean) / (pow7(cMean) + pow7(25.0))));
  const double a1 = (1 + g) * first.a, a2 = (1 + g) * second.a;
  const double cp1 = std::hypot(a1, first.b), cp2 = std::hypot(a2, second.b);
  const auto hue = [&](double b, double a) {
    if (a == 0 && b == 0) return 0.0;
    const double h = degrees(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(first.b, a1), h2 = hue(second.b, a2);
  const double dL = second.l - first.l, dC = cp2 - cp1;
  double dh = 0;
  if (cp1 * cp2 != 0) {
    dh = h2 - h1;
    if (dh > 180)
      dh -= 360;
    else if (dh < -180)
      dh += 360;
  }
  const double dH = 2 * std::sqrt(cp1 * cp2) * std::sin(radians(dh / 2));
  const double lMean = (first.l + second.l) / 2, cpMean = (cp1 + cp2) / 2;
  double hMean = h1 + h2;
  if (cp1 * cp2 != 0) {
    if (std::abs(h1 - h2) <= 180)
      hMean = (h1 + h2) / 2;
    else
      hMean = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  }
  const double t = 1 - 0.17 * std::cos(radians(hMean - 30)) + 0.24 * std::cos(radians(2 * hMean)) +
                   0.32 * std::cos(radians(3 * hMean + 6)) -
                   0.20 * std::cos(radians(4 * hMean - 63));
  const double dTheta = 30 * std::exp(-std::pow((hMean - 275) / 25, 2));
  const double rc = 2 * std::sqrt(pow7(cpMean) / (pow7(cpMean) + pow7(25.0)));
  const double lShift = (lMean - 50) * (lMean - 50);
  const double sl = 1 + 0.015 * lShift / std::sqrt(20 + lShift);
  const double sc = 1 + 0.045 * cpMean;
  const double sh = 1 + 0.015 * cpMean * t;
  const double rt = -std::sin(radians(2 * dTheta)) * rc;
  const double l = dL / sl, c = dC / sc, h = dH / sh;
  return std::sqrt(l * l + c * c + h * h + rt * c * h);
}

enum class Vision { Normal, Protan, Deutan, Tritan };
inline constexpr Vision kVisions[] = {Vision::Normal, Vision::Protan, Vision::Deutan,
                                      Vision::Tritan};

inline const char* visionName(Vision vision) {
  switch (vision) {
    case Vision::Normal:
      return "normal";
    case Vision::Protan:
      return "protan";
    case Vision::Deutan:
      return "deutan";
    case Vision::Tritan:
      return "tritan";
  }
  return "";
}

// The colour as seen with the deficiency (Machado et al. 2009, severity 1.0: protanopia,
// deuteranopia, tritanopia), back in sRGB.
inline Rgb simulate(const Rgb& colour, Vision vision) {
  using Matrix = std::array<std::array<double, 3>, 3>;
  static constexpr Matrix kProtan{{{0.152286, 1.052583, -0.204868},
                                   {0.114503, 0.786281, 0.099216},
                                   {-0.003882, -0.048116, 1.051998}}};
  static constexpr Matrix kDeutan{{{0.367322, 0.860646, -0.227968},
                                   {0.280085, 0.672501, 0.047413},
                                   {-0.011820, 0.042940, 0.968881}}};
  static constexpr Matrix kTritan{{{1.255528, -0.076749, -0.178779},
                                   {-0.078411, 0.930809, 0.147602},
                                   {0.004733, 0.691367, 0.303900}}};
  if (vision == Vision::Normal) return colour;
  const Matrix& m = vision == Vision::Protan   ? kProtan
                    : vision == Vision::Deutan ? kDeutan
                                               : kTritan;
  const std::array<double, 3> linear{toLinear(colour.r), toLinear(colour.g), toLinear(colour.b)};
  std::array<double, 3> seen{};
  for (int row = 0; row < 3; ++row)
    for (int column = 0; column < 3; ++column) seen[row] += m[row][column] * linear[column];
  return {toEncoded(seen[0]), toEncoded(seen[1]), toEncoded(seen[2])};
}

// CIEDE2000 between two colours as seen with `vision`.
inline double difference(const Rgb& a, const Rgb& b, Vision vision) {
  return ciede2000(toLab(simulate(a, vision)), toLab(simulate(b, vision)));
}

}  // namespace tilescope::test::colour
