/* Moved to hwrun/rundir.h (the run directory's vocabulary); this name goes once every reader
 * includes that. */
#include "hwrun/rundir.h"
