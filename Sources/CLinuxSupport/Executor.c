#include "CLinuxSupportExecutor.h"

// Defined by the Swift runtime (swift_Concurrency) as function pointers, for custom executors;
// only their addresses are taken here, so their exact types do not matter to C.
extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;

void *alarmd_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
void *alarmd_enqueue_global_with_delay_hook(void) { return &swift_task_enqueueGlobalWithDelay_hook; }
void *alarmd_enqueue_global_with_deadline_hook(void) { return &swift_task_enqueueGlobalWithDeadline_hook; }

// `SWIFT_CC(swift) void swift_job_run(Job *, SerialExecutorRef)`: the swift calling convention
// passes the two-word SerialExecutorRef (identity, implementation) as two arguments; both zero is
// SerialExecutorRef::generic().
__attribute__((swiftcall)) extern void swift_job_run(void *job, void *identity, unsigned long implementation);

void alarmd_run_job_generic(void *job) { swift_job_run(job, 0, 0); }
