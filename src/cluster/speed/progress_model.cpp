// make_job_progress: picks the progress model of a job by its kind (measured application profile
// or fixed-duration trace replay) and checks the job against its profile.
#include "cluster/speed/progress_model.h"

#include "cluster/speed/app_profile.h"
#include "cluster/speed/fixed_duration_progress.h"
#include "cluster/speed/profile_progress.h"
#include "cluster/speed/ps_progress.h"
#include "core/error.h"

namespace dmlkit::cluster {

std::unique_ptr<JobProgress> make_job_progress(const Job& job, const ProgressOptions& options) {
  switch (job.kind) {
    case WorkKind::FixedDuration:
      return std::make_unique<FixedDurationProgress>(job, options);
    case WorkKind::ParameterServer:
      return std::make_unique<PsProgress>(job, options);
    case WorkKind::Profile:
      break;
  }
  if (!AppProfile::is_known(job.application)) {
    throw Error(job.source_file, job.source_line, "application",
                "unknown application '" + job.application + "' (known: " + AppProfile::known_list() + ")");
  }
  const AppProfile& app = AppProfile::get(job.application, options.data_dir);
  const auto& sizes = app.validated_batch_sizes();
  if (job.batch_size < sizes.front() || job.batch_size > sizes.back()) {
    throw Error(job.source_file, job.source_line, "batch_size",
                "batch size " + std::to_string(job.batch_size) + " of " + job.application +
                    " is outside its validated range [" + std::to_string(sizes.front()) + ", " +
                    std::to_string(sizes.back()) + "]");
  }
  return std::make_unique<ProfileProgress>(job, app, options);
}

}  // namespace dmlkit::cluster
