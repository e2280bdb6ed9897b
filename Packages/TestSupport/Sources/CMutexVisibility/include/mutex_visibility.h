// Nothing to call: linking this target is what it does (see mutex_visibility.c).
#ifndef EGW_MUTEX_VISIBILITY_H
#define EGW_MUTEX_VISIBILITY_H
/// Always 1; referenced so the object is linked and its definitions take effect.
int egw_mutex_visibility_linked(void);
#endif
