#include <gpiod.h>
#include "CGPIOShim.h"
int alarmd_gpio_placeholder(void) { return 0; }
