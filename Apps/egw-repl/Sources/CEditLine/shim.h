#ifndef EGW_CEDITLINE_SHIM_H
#define EGW_CEDITLINE_SHIM_H
#include <stdio.h>
#include <editline/readline.h>
#endif
