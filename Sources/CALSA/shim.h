#include <alsa/asoundlib.h>

// libasound as Swift sees it. The error handler that keeps ALSA's messages off stderr is not
// here but in CALSAShim: a handler and its buffer written in a header would be copied into every
// module that imports it, and ALSA, which has one process-wide handler, would fill whichever copy
// was installed last.
