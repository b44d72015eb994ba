/* version.c - the library's version, for programs that load it at run time. */
#include "config.h"
#include "loom_internal.h"

void loom_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = LOOM_VERSION_MAJOR;
    if (minor)
        *minor = LOOM_VERSION_MINOR;
    if (patch)
        *patch = LOOM_VERSION_PATCH;
}
