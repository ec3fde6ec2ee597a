#include <sndfile.h>

// libsndfile as Swift sees it: alarm sounds in WAV, FLAC, Ogg Vorbis, Opus and MP3 (through
// libmpg123; libsndfile 1.1 and later), decoded as a stream.
