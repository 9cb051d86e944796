// scipy-compatible LinearNDInterpolator on Debian's reentrant Qhull. See the header for what is
// matched; docs/cluster-speed-models.md for why (degenerate grid inputs have several valid
// Delaunay triangulations, and the interpolated values depend on which one is chosen).
#include "cluster/speed/linear_nd_interpolator.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/error.h"

#include <libqhull_r/libqhull_r.h>

namespace dmlkit::cluster {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Captures Qhull's messages so that a failure can be reported in the Error.
class MessageStream {
 public:
  MessageStream() { file_ = open_memstream(&buf_, &len_); }
  ~MessageStream() {
    if (file_) std::fclose(file_);
    std::free(buf_);
  }
  FILE* file() const { return file_; }
  std::string text() {
    if (file_) std::fflush(file_);
    return buf_ ? std::string(buf_, len_) : std::string();
  }

 private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  FILE* file_ = nullptr;
};

// Owns one Qhull instance and frees it on every exit path.
class QhullRun {
 public:
  explicit QhullRun(FILE* err) { qh_zero(&qh_, err); }
  ~QhullRun() {
    int curlong = 0, totlong = 0;
    qh_freeqhull(&qh_, !qh_ALL);
    qh_memfreeshort(&qh_, &curlong, &totlong);
  }
  qhT* get() { return &qh_; }

 private:
  qhT qh_;
};

// Inverse of the n x n row-major matrix `a` by Gaussian elimination with partial pivoting (the
// algorithm of LAPACK dgetrf/dgetrs), and the reciprocal 1-norm condition number. Returns false if
// a pivot is exactly zero.
bool invert(int n, const double* a_in, double* inv, double& rcond) {
  double a[16], b[16];
  for (int i = 0; i < n * n; ++i) a[i] = a_in[i];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) b[i * n + j] = (i == j) ? 1.0 : 0.0;
  double anorm = 0;
  for (int j = 0; j < n; ++j) {
    double col = 0;
    for (int i = 0; i < n; ++i) col += std::fabs(a[i * n + j]);
    if (col > anorm) anorm = col;
  }
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (a[p * n + k] == 0.0) return false;
    if (p != k) {
      for (int j = 0; j < n; ++j) {
        std::swap(a[k * n + j], a[p * n + j]);
        std::swap(b[k * n + j], b[p * n + j]);
      }
    }
    for (int i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      a[i * n + k] = f;
      for (int j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
      for (int j = 0; j < n; ++j) b[i * n + j] -= f * b[k * n + j];
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int j = 0; j < n; ++j) {
      double s = b[k * n + j];
      for (int i = k + 1; i < n; ++i) s -= a[k * n + i] * b[i * n + j];
      b[k * n + j] = s / a[k * n + k];
    }
  }
  double inorm = 0;
  for (int j = 0; j < n; ++j) {
    double col = 0;
    for (int i = 0; i < n; ++i) col += std::fabs(b[i * n + j]);
    if (col > inorm) inorm = col;
  }
  rcond = (anorm > 0 && inorm > 0) ? 1.0 / (anorm * inorm) : 0.0;
  for (int i = 0; i < n * n; ++i) inv[i] = b[i];
  return true;
}

}  // namespace

LinearNDInterpolator::LinearNDInterpolator(int ndim, std::vector<double> points, int nvalues,
                                           std::vector<double> values)
    : ndim_(ndim), nvalues_(nvalues), points_(std::move(points)), values_(std::move(values)) {
  if (ndim_ < 2 || ndim_ > 3) throw Error("LinearNDInterpolator: only 2-D and 3-D data are supported");
  npoints_ = static_cast<int>(points_.size() / ndim_);
  if (npoints_ < ndim_ + 1 || points_.size() != static_cast<size_t>(npoints_) * ndim_ ||
      values_.size() != static_cast<size_t>(npoints_) * nvalues_) {
    throw Error("LinearNDInterpolator: need at least ndim+1 points and one value row per point");
  }
  min_bound_.assign(ndim_, std::numeric_limits<double>::infinity());
  max_bound_.assign(ndim_, -std::numeric_limits<double>::infinity());
  for (int p = 0; p < npoints_; ++p) {
    for (int i = 0; i < ndim_; ++i) {
      const double v = points_[static_cast<size_t>(p) * ndim_ + i];
      if (!std::isfinite(v)) throw Error("LinearNDInterpolator: points must be finite");
      min_bound_[i] = std::min(min_bound_[i], v);
      max_bound_[i] = std::max(max_bound_[i], v);
    }
  }

  MessageStream messages;
  QhullRun run(messages.file() ? messages.file() : stderr);
  qhT* qh = run.get();
  std::vector<coordT> coords(points_.begin(), points_.end());
  // scipy.spatial.Delaunay's default options for ndim < 5, plus the "Qt" it always requires.
  char command[] = "qhull d Qbb Qc Qz Q12 Qt";
  const int exitcode = qh_new_qhull(qh, ndim_, npoints_, coords.data(), False, command, nullptr,
                                    messages.file() ? messages.file() : stderr);
  if (exitcode != 0) {
    throw Error("Qhull failed to triangulate the profile points: " + messages.text());
  }
  if (!qh->hasTriangulation) {
    // qh_new_qhull triangulates ("Qt") in qh_prepare_output; scipy's extra qh_triangulate call is
    // then a no-op. Anything else would mean a different Qhull behaviour than scipy's.
    throw Error("Qhull did not triangulate its output (option Qt ignored)");
  }

  const int facet_dim = ndim_ + 1;
  std::vector<int> id_map(qh->facet_id, -1);
  int count = 0;
  for (facetT* f = qh->facet_list; f && f->next; f = f->next) {
    if (f->upperdelaunay != qh->UPPERdelaunay) continue;
    if (!f->simplicial && (qh_setsize(qh, f->vertices) != facet_dim || qh_setsize(qh, f->neighbors) != facet_dim)) {
      throw Error("Qhull returned a non-simplicial facet");
    }
    id_map[f->id] = count++;
  }
  nsimplex_ = count;
  simplices_.assign(static_cast<size_t>(count) * facet_dim, 0);
  neighbors_.assign(static_cast<size_t>(count) * facet_dim, -1);
  equations_.assign(static_cast<size_t>(count) * (facet_dim + 1), 0.0);
  int j = 0;
  for (facetT* f = qh->facet_list; f && f->next; f = f->next) {
    if (f->upperdelaunay != qh->UPPERdelaunay) continue;
    // (scipy swaps the first two vertices of clockwise facets only in 2-D.)
    const bool swap_first_two = (f->toporient == qh_ORIENTclock && facet_dim == 3);
    for (int i = 0; i < facet_dim; ++i) {
      const int dst = (swap_first_two && i < 2) ? (1 ^ i) : i;
      auto* vertex = static_cast<vertexT*>(f->vertices->e[i].p);
      auto* neighbor = static_cast<facetT*>(f->neighbors->e[i].p);
      simplices_[static_cast<size_t>(j) * facet_dim + dst] = qh_pointid(qh, vertex->point);
      neighbors_[static_cast<size_t>(j) * facet_dim + dst] = id_map[neighbor->id];
    }
    for (int i = 0; i < facet_dim; ++i) equations_[static_cast<size_t>(j) * (facet_dim + 1) + i] = f->normal[i];
    equations_[static_cast<size_t>(j) * (facet_dim + 1) + facet_dim] = f->offset;
    ++j;
  }
  for (int v : simplices_) {
    if (v < 0 || v >= npoints_) throw Error("Qhull returned a simplex with a vertex that is not an input point");
  }
  if (qh->SCALElast) {
    paraboloid_scale_ = qh->last_newhigh / (qh->last_high - qh->last_low);
    paraboloid_shift_ = -qh->last_low * paraboloid_scale_;
  }
  compute_transforms();
}

void LinearNDInterpolator::compute_transforms() {
  const int n = ndim_;
  transforms_.assign(static_cast<size_t>(nsimplex_) * n * (n + 1), 0.0);
  const double rcond_limit = 1000 * DBL_EPSILON;
  double a[16], inv[16];
  for (int s = 0; s < nsimplex_; ++s) {
    double* t = &transforms_[static_cast<size_t>(s) * n * (n + 1)];
    const int* vs = simplex(s);
    const double* r = &points_[static_cast<size_t>(vs[n]) * n];
    // T[i][j] = (r_j - r_n)_i; scipy hands T's C-order buffer to Fortran LAPACK, so LAPACK sees
    // A = T^T. We invert A the same way; T^-1 = (A^-1)^T.
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) a[k * n + i] = points_[static_cast<size_t>(vs[k]) * n + i] - r[i];
    double rcond = 0;
    const bool ok = invert(n, a, inv, rcond) && rcond >= rcond_limit;
    if (!ok) {
      for (int i = 0; i < n * (n + 1); ++i) t[i] = kNan;
      continue;
    }
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) t[i * n + k] = inv[k * n + i];
    for (int i = 0; i < n; ++i) t[n * n + i] = r[i];
  }
}

bool LinearNDInterpolator::point_fully_outside(const double* x, double eps) const {
  for (int i = 0; i < ndim_; ++i)
    if (x[i] < min_bound_[i] - eps || x[i] > max_bound_[i] + eps) return true;
  return false;
}

double LinearNDInterpolator::distplane(int s, const double* z) const {
  const double* eq = &equations_[static_cast<size_t>(s) * (ndim_ + 2)];
  double dist = eq[ndim_ + 1];
  for (int k = 0; k < ndim_ + 1; ++k) dist += eq[k] * z[k];
  return dist;
}

void LinearNDInterpolator::barycentric(const double* t, const double* x, double* c) const {
  const int n = ndim_;
  c[n] = 1.0;
  for (int i = 0; i < n; ++i) {
    c[i] = 0;
    for (int j = 0; j < n; ++j) c[i] += t[n * i + j] * (x[j] - t[n * n + j]);
    c[n] -= c[i];
  }
}

bool LinearNDInterpolator::barycentric_inside(const double* t, const double* x, double* c, double eps) const {
  const int n = ndim_;
  c[n] = 1.0;
  for (int i = 0; i < n; ++i) {
    c[i] = 0;
    for (int j = 0; j < n; ++j) c[i] += t[n * i + j] * (x[j] - t[n * n + j]);
    c[n] -= c[i];
    if (!(-eps <= c[i] && c[i] <= 1 + eps)) return false;
  }
  return -eps <= c[n] && c[n] <= 1 + eps;
}

int LinearNDInterpolator::find_bruteforce(double* c, const double* x, double eps, double eps_broad) const {
  const int n = ndim_;
  if (point_fully_outside(x, eps)) return -1;
  for (int s = 0; s < nsimplex_; ++s) {
    const double* t = transform(s);
    if (t[0] == t[0]) {
      if (barycentric_inside(t, x, c, eps)) return s;
      continue;
    }
    // Degenerate simplex: accept a neighbour that (almost) contains the point, with extra leeway
    // on the side facing the degenerate one.
    for (int k = 0; k < n + 1; ++k) {
      const int nb = neighbors_[static_cast<size_t>(s) * (n + 1) + k];
      if (nb == -1) continue;
      const double* tn = transform(nb);
      if (tn[0] != tn[0]) continue;
      barycentric(tn, x, c);
      bool inside = true;
      for (int m = 0; m < n + 1; ++m) {
        const double lo = (neighbors_[static_cast<size_t>(nb) * (n + 1) + m] == s) ? -eps_broad : -eps;
        if (!(lo <= c[m] && c[m] <= 1 + eps)) {
          inside = false;
          break;
        }
      }
      if (inside) return nb;
    }
  }
  return -1;
}

int LinearNDInterpolator::find_directed(double* c, const double* x, int start, double eps, double eps_broad) const {
  const int n = ndim_;
  int s = (start < 0 || start >= nsimplex_) ? 0 : start;
  const int max_cycles = 1 + nsimplex_ / 4;
  for (int cycle = 0; cycle < max_cycles; ++cycle) {
    if (s == -1) return -1;
    const double* t = transform(s);
    int inside = 1;
    for (int k = 0; k < n + 1; ++k) {
      if (k == n) {
        c[n] = 1.0;
        for (int j = 0; j < n; ++j) c[n] -= c[j];
      } else {
        c[k] = 0;
        for (int j = 0; j < n; ++j) c[k] += t[n * k + j] * (x[j] - t[n * n + j]);
      }
      if (c[k] < -eps) {
        const int m = neighbors_[static_cast<size_t>(s) * (n + 1) + k];
        if (m == -1) return -1;  // outside the (convex) triangulation
        s = m;
        inside = -1;
        break;
      } else if (c[k] <= 1 + eps) {
        // inside along this coordinate
      } else {
        inside = 0;  // outside, or NaN (degenerate simplex)
      }
    }
    if (inside == -1) continue;
    if (inside == 1) return s;
    return find_bruteforce(c, x, eps, eps_broad);
  }
  return find_bruteforce(c, x, eps, eps_broad);
}

int LinearNDInterpolator::find_simplex(const double* x, double* c) const {
  const double eps = 100 * DBL_EPSILON;
  const double eps_broad = std::sqrt(DBL_EPSILON);
  if (point_fully_outside(x, eps) || nsimplex_ <= 0) return -1;
  const int n = ndim_;
  // Lift to the paraboloid and walk towards a facet with a positive plane distance.
  double z[4];
  z[n] = 0;
  for (int i = 0; i < n; ++i) {
    z[i] = x[i];
    z[n] += x[i] * x[i];
  }
  z[n] *= paraboloid_scale_;
  z[n] += paraboloid_shift_;
  int s = 0;
  double best = distplane(s, z);
  bool changed = true;
  while (changed) {
    if (best > 0) break;
    changed = false;
    for (int k = 0; k < n + 1; ++k) {
      const int nb = neighbors_[static_cast<size_t>(s) * (n + 1) + k];
      if (nb == -1) continue;
      const double d = distplane(nb, z);
      if (d > best + eps * (1 + std::fabs(best))) {
        s = nb;  // continue the sweep from the next k, as scipy does
        best = d;
        changed = true;
      }
    }
  }
  return find_directed(c, x, s, eps, eps_broad);
}

bool LinearNDInterpolator::evaluate(const double* x, double* out) const {
  double c[4];
  const int s = find_simplex(x, c);
  if (s == -1) return false;
  for (int k = 0; k < nvalues_; ++k) out[k] = 0;
  const int* vs = simplex(s);
  for (int j = 0; j < ndim_ + 1; ++j) {
    const double* v = &values_[static_cast<size_t>(vs[j]) * nvalues_];
    for (int k = 0; k < nvalues_; ++k) out[k] = out[k] + c[j] * v[k];
  }
  return true;
}

}  // namespace dmlkit::cluster
