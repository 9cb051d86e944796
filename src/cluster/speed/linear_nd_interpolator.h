// Piecewise-linear interpolation of scattered data on a Delaunay triangulation, built to give the
// same values as scipy's LinearNDInterpolator (scipy 1.10): the triangulation comes from Qhull
// with scipy's options ("d Qbb Qc Qz Q12 Qt"), the point location repeats scipy's walk (plane
// distance on the paraboloid, then a directed barycentric walk, then brute force) with the same
// tolerances, and the barycentric transforms are rejected as degenerate by the same condition
// test. Build once, query many times; a query allocates nothing.
#pragma once
#include <cstddef>
#include <vector>

namespace dmlkit::cluster {

class LinearNDInterpolator {
 public:
  // `points`: n x ndim, row-major; `values`: n x nvalues, row-major. Throws Error if Qhull fails
  // (e.g. fewer than ndim+1 points in general position).
  LinearNDInterpolator(int ndim, std::vector<double> points, int nvalues, std::vector<double> values);

  int ndim() const { return ndim_; }
  int nvalues() const { return nvalues_; }
  int num_simplices() const { return nsimplex_; }
  // Vertex indices (into the input points) of simplex s: ndim+1 of them.
  const int* simplex(int s) const { return &simplices_[static_cast<std::size_t>(s) * (ndim_ + 1)]; }
  // True if simplex s is (nearly) flat: its barycentric transform is NaN, as in scipy.
  bool degenerate(int s) const { return transform(s)[0] != transform(s)[0]; }

  // Writes nvalues interpolated values for point x (ndim coordinates) to `out` and returns true,
  // or returns false if x lies outside the convex hull of the points (scipy returns NaN there).
  bool evaluate(const double* x, double* out) const;
  // The simplex containing x (scipy's find_simplex with LinearNDInterpolator's tolerances), or -1;
  // fills c (ndim+1 barycentric coordinates).
  int find_simplex(const double* x, double* c) const;

 private:
  void compute_transforms();
  bool point_fully_outside(const double* x, double eps) const;
  double distplane(int s, const double* z) const;
  void barycentric(const double* t, const double* x, double* c) const;
  bool barycentric_inside(const double* t, const double* x, double* c, double eps) const;
  int find_directed(double* c, const double* x, int start, double eps, double eps_broad) const;
  int find_bruteforce(double* c, const double* x, double eps, double eps_broad) const;
  const double* transform(int s) const { return &transforms_[static_cast<std::size_t>(s) * ndim_ * (ndim_ + 1)]; }

  int ndim_ = 0;
  int nvalues_ = 0;
  int npoints_ = 0;
  int nsimplex_ = 0;
  std::vector<double> points_;
  std::vector<double> values_;
  std::vector<int> simplices_;      // nsimplex x (ndim+1)
  std::vector<int> neighbors_;      // nsimplex x (ndim+1), -1 = none; k-th is opposite vertex k
  std::vector<double> equations_;   // nsimplex x (ndim+2): facet normal and offset on the paraboloid
  std::vector<double> transforms_;  // nsimplex x (ndim+1) x ndim; NaN for degenerate simplices
  std::vector<double> min_bound_, max_bound_;
  double paraboloid_scale_ = 1.0;
  double paraboloid_shift_ = 0.0;
};

}  // namespace dmlkit::cluster
