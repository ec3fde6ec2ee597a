#include "CLinuxSupportExecutor.h"

// Defined by the Swift runtime (swift_Concurrency) as function pointers, for custom executors;
// only their addresses are taken here, so their exact types do not matter to C.
extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;

void *alarmd_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
void *alarmd_enqueue_global_with_delay_hook(void) { return &swift_task_enqueueGlobalWithDelay_hook; }
void *alarmd_enqueue_global_with_deadline_hook(void) { return &swift_task_enqueueGlobalWithDeadline_hook; }
