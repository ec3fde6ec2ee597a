/* Placeholder until the shim lands. */
int alarmd_gpio_placeholder(void);
