#include "trace/trace-hw_display_vagx.h"
