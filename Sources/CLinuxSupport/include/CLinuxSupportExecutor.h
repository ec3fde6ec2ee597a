// The Swift runtime's hooks for the global executor, as their addresses: a binary that links the
// runtime statically (the packaged alarmd) does not export them to dlsym.
#ifndef ALARMD_CLINUXSUPPORT_EXECUTOR_H
#define ALARMD_CLINUXSUPPORT_EXECUTOR_H

/// Where swift_task_enqueueGlobal_hook lives.
void *alarmd_enqueue_global_hook(void);
/// Where swift_task_enqueueGlobalWithDelay_hook lives.
void *alarmd_enqueue_global_with_delay_hook(void);
/// Where swift_task_enqueueGlobalWithDeadline_hook lives.
void *alarmd_enqueue_global_with_deadline_hook(void);

/// Runs a job the way the runtime's own global executor does: on the "generic" executor, the one
/// of plain tasks and default actors, so that a hop from one idle actor to another goes on on the
/// same thread instead of being queued for another.
void alarmd_run_job_generic(void *job);

#endif
