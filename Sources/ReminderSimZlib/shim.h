#ifndef REMINDERSIM_ZLIB_SHIM_H
#define REMINDERSIM_ZLIB_SHIM_H

#include <zlib.h>

#endif
