#ifndef REMINDERSIM_SQLITE_SHIM_H
#define REMINDERSIM_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot
// import; the storage module binds text and blobs with this constant instead.
static inline sqlite3_destructor_type reminder_sim_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
